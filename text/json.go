package text

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// CleanJSON returns the JSON document b with every string value passed
// through Clean, keeping everything else byte for byte (key order,
// numbers, spacing). JSON escapes control characters but carries them:
// a consumer that prints a value would still show an escape sequence, a
// C1 control or a bidi override. b must be valid JSON; a document that
// needs nothing is returned as is.
func CleanJSON(b []byte) []byte {
	if !jsonNeedsCleaning(b) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b))
	for i := 0; i < len(b); {
		if b[i] != '"' {
			out.WriteByte(b[i])
			i++
			continue
		}
		end := i + 1
		for end < len(b) && b[end] != '"' {
			if b[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(b) {
			out.Write(b[i:])
			break
		}
		lit := b[i : end+1]
		var s string
		if json.Unmarshal(lit, &s) == nil && needsCleaning(s) {
			enc, _ := marshalNoHTML(Clean(s))
			out.Write(enc)
		} else {
			out.Write(lit)
		}
		i = end + 1
	}
	return out.Bytes()
}

// jsonNeedsCleaning is a quick look for what Clean would change in a JSON
// document: an escaped control character other than \n and \t, a raw C1
// or bidi control, or invalid UTF-8.
func jsonNeedsCleaning(b []byte) bool {
	return hasEscapedControl(b) || needsCleaning(string(b))
}

// hasEscapedControl reports an escape of a control character: \r, \b,
// \f, or \u0000–\u001f and \u007f–\u009f.
func hasEscapedControl(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		switch b[i+1] {
		case 'r', 'b', 'f':
			return true
		case 'u':
			if i+5 < len(b) && b[i+2] == '0' && b[i+3] == '0' {
				hi, lo := b[i+4], b[i+5]
				if hi == '0' || hi == '1' || hi == '7' && (lo == 'f' || lo == 'F') || hi == '8' || hi == '9' {
					return true
				}
			}
		}
		i++ // skip the escaped character, which may be a backslash
	}
	return false
}

func marshalNoHTML(s string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// EscapeJSON returns the JSON document b with every C1 control
// (U+0080–U+009F), bidi embedding, override and isolate (U+202A–U+202E,
// U+2066–U+2069) and bidi mark (U+200E, U+200F, U+061C) written as its \u
// escape. encoding/json writes them raw: a consumer that shows the
// document — `chorus sessions list --json` in a terminal, a log viewer —
// would act on an 8-bit CSI or show text out of order. Escaped, the value
// is kept whole (unlike CleanJSON, which drops them) and the bytes are
// inert. Such characters can stand only inside strings, where the escape
// means the same character, so b is rewritten without being parsed; a
// document holding none is returned as is.
func EscapeJSON(b []byte) []byte {
	i := nextInvisible(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i >= 0 {
		r, size := utf8.DecodeRune(b[i:])
		out = append(out, b[:i]...)
		out = append(out, '\\', 'u', hexDigit(r>>12), hexDigit(r>>8), hexDigit(r>>4), hexDigit(r))
		b = b[i+size:]
		i = nextInvisible(b)
	}
	return append(out, b...)
}

// nextInvisible is the offset of the first character EscapeJSON escapes,
// -1 when there is none: a look at the lead bytes (0xC2 for C1, 0xD8 for
// ALM, 0xE2 for the rest) before any decoding.
func nextInvisible(b []byte) int {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case 0xc2, 0xd8, 0xe2:
			if r, _ := utf8.DecodeRune(b[i:]); isInvisible(r) {
				return i
			}
		}
	}
	return -1
}

// isInvisible reports the characters EscapeJSON escapes.
func isInvisible(r rune) bool {
	return r >= 0x80 && r <= 0x9f || isBidiControl(r) || r == 0x200e || r == 0x200f || r == 0x061c
}

func hexDigit(r rune) byte { return "0123456789abcdef"[r&0xf] }
