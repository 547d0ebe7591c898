package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"héllo wörld", 6, "héllo…"},
		{"🍂🍂🍂🍂", 3, "🍂🍂…"},
		{"", 3, ""},
	} {
		if got := Clip(tc.in, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"  a\n\tb   c ", 0, "a b c"},
		{"line one\nline two", 9, "line one…"},
		{"short", 80, "short"},
	} {
		if got := OneLine(tc.in, tc.n); got != tc.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestClipBytes(t *testing.T) {
	s := strings.Repeat("é", 10) // 20 bytes
	got, cut := ClipBytes(s, 5)
	if got != "éé…" || cut != 16 {
		t.Errorf("ClipBytes cut inside a character or miscounted: %q, %d", got, cut)
	}
	if got, cut := ClipBytes("abc", 3); got != "abc" || cut != 0 {
		t.Errorf("ClipBytes changed text that fits: %q, %d", got, cut)
	}
}

func FuzzClip(f *testing.F) {
	f.Add("héllo 🍂 wörld", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 200
		out := Clip(s, n)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Clip(%q, %d) = %q is not valid UTF-8", s, n, out)
		}
		if n >= 0 && utf8.RuneCountInString(out) > max(n, 0) {
			t.Fatalf("Clip(%q, %d) = %q has %d runes", s, n, out, utf8.RuneCountInString(out))
		}
		b, _ := ClipBytes(s, n)
		if utf8.ValidString(s) && !utf8.ValidString(b) {
			t.Fatalf("ClipBytes(%q, %d) = %q is not valid UTF-8", s, n, b)
		}
	})
}
