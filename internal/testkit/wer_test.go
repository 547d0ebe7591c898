package testkit

import "testing"

func TestWordErrorRate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		refs, hyps []string
		want       float64
	}{
		{[]string{"The cat sat."}, []string{"the cat sat"}, 0},
		{[]string{"the cat sat"}, []string{"the hat sat"}, 1.0 / 3},         // a substitution
		{[]string{"the cat sat"}, []string{"the sat"}, 1.0 / 3},             // a deletion
		{[]string{"the cat sat"}, []string{"oh the cat sat down"}, 2.0 / 3}, // two insertions
		{[]string{"a b", "c d e"}, []string{"a b", ""}, 3.0 / 5},            // pooled over pairs
		{[]string{"one two"}, nil, 1},                                       // nothing heard
		{[]string{"don't stop"}, []string{"Don't, stop!"}, 0},               // apostrophes kept, punctuation not
		{[]string{"x"}, []string{"y z w"}, 3},                               // can pass 1
	} {
		if got := WordErrorRate(c.refs, c.hyps); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("WER(%q, %q) = %.3f, want %.3f", c.refs, c.hyps, got, c.want)
		}
	}
}
