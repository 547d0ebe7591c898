package text

import "testing"

func TestShowRefs(t *testing.T) {
	for in, want := range map[string]string{
		"the caption of <resource>-0 and <GENERATED>-12": "the caption of →#0 and →#12",
		"`<resource>-3`":       "`→#3`",
		"<resource> alone":     "<resource> alone",
		"no references at all": "no references at all",
	} {
		if got := ShowRefs(in); got != want {
			t.Errorf("ShowRefs(%q) = %q, want %q", in, got, want)
		}
	}
}
