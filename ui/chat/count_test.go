package chat

import "testing"

func TestCountReadsAsEnglish(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 turns"}, {1, "1 turn"}, {2, "2 turns"}} {
		if got := Count(c.n, "turn"); got != c.want {
			t.Errorf("count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
