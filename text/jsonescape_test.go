package text

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// invisible are the characters a --json consumer that prints a value would
// act on or be misled by: every C1 control, the bidi embeddings,
// overrides and isolates, and the marks (LRM, RLM, ALM).
var invisible = func() []rune {
	var rs []rune
	for r := rune(0x80); r <= 0x9f; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069)
	return rs
}()

// TestEscapeJSONControls: a JSON document carries none of them raw — each
// becomes its \u escape, so the value is kept (a consumer decoding it gets
// the same string) and a terminal shown the document sees only ASCII.
// Everything else is left byte for byte.
func TestEscapeJSONControls(t *testing.T) {
	t.Parallel()
	for _, r := range invisible {
		title := "evil" + string(r) + "[2J title"
		in, _ := json.Marshal(map[string]string{"title": title, "model": "m"})
		out := EscapeJSON(in)
		if bytes.ContainsRune(out, r) {
			t.Errorf("U+%04X is raw in %q", r, out)
		}
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil || got["title"] != title {
			t.Errorf("U+%04X: the value changed: %q (%v)", r, out, err)
		}
	}
	for _, keep := range []string{`{"a":"plain ascii"}`, `{"a":"café — naïve 日本 \u2028 ✓"}`, `[1,2,"x\\u009b"]`, `{"a":"é\u0301"}`} {
		if got := EscapeJSON([]byte(keep)); string(got) != keep {
			t.Errorf("EscapeJSON(%s) = %s, want it unchanged", keep, got)
		}
	}
}

// FuzzEscapeJSON: whatever strings a document holds, the escaped document
// decodes to the same values and holds none of the characters raw.
func FuzzEscapeJSON(f *testing.F) {
	f.Add("evil\u009b2J", "\u202eabc", "\u200f")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		in, _ := json.MarshalIndent([]string{a, b, c}, "", "  ")
		out := EscapeJSON(in)
		var want, got []string
		_ = json.Unmarshal(in, &want)
		if err := json.Unmarshal(out, &got); err != nil || strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("EscapeJSON(%q) = %q: %v", in, out, err)
		}
		for _, r := range invisible {
			if bytes.ContainsRune(out, r) {
				t.Fatalf("U+%04X is raw in %q", r, out)
			}
		}
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
	})
}
