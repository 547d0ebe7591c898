package skills

import "testing"

func TestKnownLicense(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"apache-2.0", "apache-2.0"}, {"Apache 2.0", "apache-2.0"}, {"Apache License 2.0", "apache-2.0"},
		{"apache-2", "apache-2.0"}, {"Apache v2", "apache-2.0"}, {"apache", "apache-2.0"}, {"MIT", "mit"},
		{"MIT License", "mit"}, {"GPLv3", "gpl-3.0"}, {"gpl-3.0", "gpl-3.0"}, {"CC-BY-NC-4.0", "cc-by-nc-4.0"},
		{"cc by nc 4.0", "cc-by-nc-4.0"}, {"openrail++", "openrail++"}, {"llama3.2", "llama3.2"},
		{"bsd-3-clause", "bsd-3-clause"}, {"my-own-licence", "my-own-licence"},
		{"8ۯ'k춊y", ""}, {"", ""}, {"apache-3.0", ""}, {"free", ""},
	} {
		got, ok := KnownLicense(tc.in, []string{"my-own-licence"})
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("KnownLicense(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
