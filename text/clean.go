package text

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s with everything a terminal would act on removed, so text
// from a model, a server or a file can be shown, logged or copied without
// clearing the screen, moving the cursor, retitling the window or setting
// the clipboard (OSC 52):
//
//   - escape sequences are removed whole — CSI (ESC [ … and the 8-bit
//     U+009B), OSC (ESC ] … up to BEL or ST), DCS/SOS/PM/APC strings, and
//     two-byte escapes — not just their ESC, which would leave "[2J" behind;
//   - other C0 and C1 control characters are dropped;
//   - "\r\n" and a lone "\r" become "\n"; newlines and tabs stay;
//   - bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069)
//     are dropped, so text cannot show in an order other than its bytes'
//     ("Trojan Source");
//   - invalid UTF-8 becomes U+FFFD;
//   - the password of a URL in it is redacted (RedactURLs): a configured
//     URL may carry one, and it must never show.
//
// Text that needs none of this is returned as is, without copying.
func Clean(s string) string {
	return RedactURLs(clean(s))
}

func clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
		case r == 0x1b:
			size = escapeLen(s[i:])
		case r == 0x9b: // 8-bit CSI
			size = size + csiLen(s[i+size:])
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS SOS OSC PM APC
			size = size + stringLen(s[i+size:])
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			// another control character: dropped
		case isBidiControl(r):
			// dropped: it would reorder what follows on screen
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsCleaning reports whether s holds anything Clean would change.
func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return true
		case c < 0x80:
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return true // a C1 control
		case c == 0xe2 && i+2 < len(s) && (s[i+1] == 0x80 && s[i+2] >= 0xaa && s[i+2] <= 0xae ||
			s[i+1] == 0x81 && s[i+2] >= 0xa6 && s[i+2] <= 0xa9):
			return true // a bidi override or isolate
		}
	}
	return !utf8.ValidString(s)
}

// isBidiControl reports whether r is an embedding, override or isolate
// control: the characters that make a terminal show text out of order.
func isBidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// escapeLen returns the length of the escape sequence at the start of s,
// which begins with ESC: the whole sequence, so none of its parameters are
// left behind as text.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + csiLen(s[2:])
	case ']', 'P', 'X', '^', '_':
		return 2 + stringLen(s[2:])
	}
	// nF escapes (ESC, intermediates 0x20–0x2F, a final byte) and the
	// two-byte Fp/Fe/Fs escapes.
	n := 1
	for n < len(s) && s[n] >= 0x20 && s[n] <= 0x2f {
		n++
	}
	if n < len(s) && s[n] >= 0x30 && s[n] <= 0x7e {
		n++
	}
	return n
}

// csiLen returns the length of a control sequence's parameters,
// intermediates and final byte, which follow its introducer. A sequence cut
// off by the end of the text, or broken by a byte that cannot be in it,
// ends there.
func csiLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		case c >= 0x20 && c <= 0x3f:
			// parameter or intermediate byte
		default:
			return i
		}
	}
	return len(s)
}

// stringLen returns the length of a control string's body and terminator
// (BEL, ESC \ or the 8-bit ST), which follow its introducer. An
// unterminated string swallows the rest of the text, as a terminal would.
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0x07:
			return i + 1
		case 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // a new sequence starts: the string ended unterminated
		case 0xc2:
			if i+1 < len(s) && s[i+1] == 0x9c {
				return i + 2
			}
		}
	}
	return len(s)
}
