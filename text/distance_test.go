package text

import "testing"

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"model", "model", 0},
		{"modle", "model", 1}, // a swap is one edit
		{"controler", "controller", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1}, // characters, not bytes
		{"ca", "abc", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}
