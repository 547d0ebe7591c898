package prompt

import (
	"strings"
	"testing"
)

func TestScanAttachTokens(t *testing.T) {
	toks := scanAttachTokens(`see @a.png, mail me@x.com, @"my file.png" and @dir/b\ c.wav`)
	var got []string
	for _, tk := range toks {
		got = append(got, tk.path)
	}
	want := []string{"a.png,", "my file.png", "dir/b c.wav"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tokens = %q, want %q", got, want)
	}
	if w := shellWords(`'/a b/c.png' /d\ e.png "f.png"`); strings.Join(w, "|") != "/a b/c.png|/d e.png|f.png" {
		t.Errorf("shellWords = %q", w)
	}
	if r := attachRef("/x y.png"); r != `@"/x y.png"` {
		t.Errorf("attachRef = %q", r)
	}
}
