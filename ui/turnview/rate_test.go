package turnview

import "testing"

// Rates read like the other figures on screen: a few significant digits
// and a k or M, never "74000.0 tok/s".
func TestHumanRate(t *testing.T) {
	for _, c := range []struct {
		tps  float64
		want string
	}{
		{0.26, "0.3 tok/s"},
		{7.46, "7.5 tok/s"},
		{41.04, "41 tok/s"},
		{999.4, "999 tok/s"},
		{1234, "1.2k tok/s"},
		{74000, "74k tok/s"},
		{74321.5, "74k tok/s"},
		{2.5e6, "2.5M tok/s"},
	} {
		if got := HumanRate(c.tps); got != c.want {
			t.Errorf("HumanRate(%v) = %q, want %q", c.tps, got, c.want)
		}
	}
}
