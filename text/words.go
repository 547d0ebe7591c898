package text

import "strings"

// Words splits a name or a text into lower-case words at separators
// (anything but an ASCII letter or digit) and at camelCase humps
// ("filePath" → file, path; "input_image" → input, image). A tool's
// property names and descriptions are read by their words — to find a
// path argument, a media argument, the media a tool promises — and the
// skills catalogue and the MCP endpoint read them alike.
func Words(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}
