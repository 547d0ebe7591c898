package text

import (
	"bytes"
	"encoding/json"
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
