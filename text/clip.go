package text

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where Clip, OneLine and ClipBytes cut.
const Ellipsis = "…"

// Clip shortens s to at most n characters (runes), the last of them an
// ellipsis when anything was cut. It never cuts a character in half. A
// limit below one yields "".
func Clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, count := 0, 0
	for i := range s {
		if count == n-1 {
			cut = i
			break
		}
		count++
	}
	return s[:cut] + Ellipsis
}

// OneLine collapses every run of white space in s (newlines included) to
// one space, trims it, and clips the result to n characters; n <= 0 means
// no limit.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if n <= 0 {
		return s
	}
	return Clip(s, n)
}

// ClipBytes shortens s to at most n bytes followed by an ellipsis, cutting
// at a character boundary: for budgets measured in bytes (prompts, event
// payloads). It returns s unchanged when it fits, and the number of bytes
// cut.
func ClipBytes(s string, n int) (string, int) {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s, 0
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + Ellipsis, len(s) - cut
}
