package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "hello, world", "hello, world"},
		{"newlines and tabs stay", "a\n\tb", "a\n\tb"},
		{"crlf", "a\r\nb", "a\nb"},
		{"lone cr", "a\rb", "a\nb"},
		{"clear screen, whole", "x\x1b[2Jy", "xy"},
		{"colour", "\x1b[38;5;196mred\x1b[0m", "red"},
		{"cursor move with private params", "a\x1b[?25lb", "ab"},
		{"OSC 52 clipboard (BEL)", "a\x1b]52;c;ZXZpbA==\ab", "ab"},
		{"OSC title (ST)", "a\x1b]0;pwned\x1b\\b", "ab"},
		{"OSC 8 link keeps its text", "\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC kitty graphics", "a\x1b_Ga=d\x1b\\b", "ab"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"8-bit OSC with 8-bit ST", "a\u009d0;t\u009cb", "ab"},
		{"other C1", "a\u0085b", "ab"},
		{"bell and backspace", "a\a\bb", "ab"},
		{"DEL", "a\x7fb", "ab"},
		{"two-byte escape", "a\x1bcb", "ab"},
		{"charset escape", "a\x1b(Bb", "ab"},
		{"ESC at end", "ab\x1b", "ab"},
		{"unterminated CSI", "ab\x1b[12", "ab"},
		{"unterminated OSC swallows the rest", "ab\x1b]0;title", "ab"},
		{"RLO override", "file\u202Egnp.exe", "filegnp.exe"},
		{"isolates", "a\u2066b\u2069c", "abc"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"emoji and CJK stay", "🍂 秋", "🍂 秋"},
		{"zero-width joiner stays", "👩\u200d💻", "👩\u200d💻"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clean(tc.in); got != tc.want {
				t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCleanDoesNotCopyCleanText(t *testing.T) {
	s := strings.Repeat("plain text, nothing to do. ", 100)
	if n := testing.AllocsPerRun(10, func() { _ = Clean(s) }); n != 0 {
		t.Errorf("Clean allocated %v times on clean text", n)
	}
}

// safe reports what in s a terminal would still act on.
func unsafe(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return "a control character"
		case isBidiControl(r):
			return "a bidi control"
		}
	}
	return ""
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "a\x1b[2Jb", "\x1b]52;c;x\a", "\u009b1m", "\u202e", "a\r\nb", "\xff\xfe", "\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if why := unsafe(out); why != "" {
			t.Fatalf("Clean(%q) = %q still holds %s", s, out, why)
		}
		if again := Clean(out); again != out {
			t.Fatalf("Clean is not idempotent: %q → %q → %q", s, out, again)
		}
		if len(out) > len(s)*3+3 {
			t.Fatalf("Clean grew %d bytes to %d", len(s), len(out))
		}
	})
}
