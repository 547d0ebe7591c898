package flow

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/chorusai/chorus/text"
)

// ErrNoJSON means the reply held no JSON value at all.
var ErrNoJSON = errors.New("no JSON found in the reply")

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?(</think>|$)`)

// WithoutThinking is a reply without the <think> blocks some models write
// before it (an unclosed one runs to the end).
func WithoutThinking(reply string) string { return thinkBlock.ReplaceAllString(reply, "") }

// ExtractJSON finds the JSON value in a model reply.
func ExtractJSON(reply string) (any, error) {
	s := strings.TrimSpace(WithoutThinking(reply))
	if s == "" {
		return nil, ErrNoJSON
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return cleanDecoded(v), nil
	}
	// Fenced blocks first: models often explain around them.
	for _, m := range fence.FindAllStringSubmatch(s, -1) {
		if v, err := DecodeLenient(m[1]); err == nil {
			return v, nil
		}
	}
	// Scan top-level bracketed values in order. An unbalanced one means the
	// reply was cut off: everything after its start is inside it, so no
	// fragment of it may be mistaken for the plan.
	var firstErr error
	for i := 0; i < len(s); i++ {
		if s[i] != '[' && s[i] != '{' {
			continue
		}
		end, ok := matchBracket(s, i)
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("the JSON in the reply is cut off or unbalanced")
			}
			return nil, firstErr
		}
		v, err := DecodeLenient(s[i : end+1])
		if err == nil {
			return v, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		i = end
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, ErrNoJSON
}

// maxField bounds, in bytes, one string the controller writes in its JSON
// (an argument's value, a name, a reason): a plan's token limit bounds the
// whole, this any one of its parts — a quoted document is cut, with an
// ellipsis, rather than flood every pane, log line and saved session.
const maxField = 16 << 10

// cleanDecoded cleans every string of a JSON value the controller wrote,
// keys and values: JSON escapes ("\u001b[2J", "\u003c|im_start|\u003e")
// decode to what text.CleanGenerated removes from the raw reply, and a
// field is capped at maxField.
func cleanDecoded(v any) any {
	switch x := v.(type) {
	case string:
		s, _ := text.ClipBytes(text.CleanGenerated(x), maxField)
		return s
	case []any:
		for i := range x {
			x[i] = cleanDecoded(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[cleanDecoded(k).(string)] = cleanDecoded(e)
		}
		return out
	}
	return v
}

var fence = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*(.*?)```")

// DecodeLenient parses JSON after removing trailing commas and comments
// outside strings, the two slips models make most.
func DecodeLenient(s string) (any, error) {
	var v any
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		return cleanDecoded(v), nil
	}
	if err2 := json.Unmarshal([]byte(cleanJSON(s)), &v); err2 == nil {
		return cleanDecoded(v), nil
	}
	return nil, fmt.Errorf("the reply's JSON does not parse: %w", err)
}

// JSONStrings tracks whether a byte-by-byte scan of JSON text is inside a
// string literal, so brackets, commas and slashes in strings are ignored.
type JSONStrings struct{ In, esc bool }

// Inside reports whether c (the next byte) belongs to a string literal,
// its quotes included.
func (j *JSONStrings) Inside(c byte) bool {
	switch {
	case j.In && j.esc:
		j.esc = false
	case j.In && c == '\\':
		j.esc = true
	case j.In && c == '"':
		j.In = false
		return true
	case !j.In && c == '"':
		j.In = true
	}
	return j.In
}

func cleanJSON(s string) string {
	var b strings.Builder
	var str JSONStrings
	for i := 0; i < len(s); i++ {
		c := s[i]
		if str.Inside(c) {
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ',':
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == ']' || s[j] == '}') {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// matchBracket returns the index of the bracket closing the one at start.
func matchBracket(s string, start int) (int, bool) {
	var stack []byte
	var str JSONStrings
	for i := start; i < len(s); i++ {
		c := s[i]
		if str.Inside(c) {
			continue
		}
		switch c {
		case '[', '{':
			stack = append(stack, c)
		case ']', '}':
			if len(stack) == 0 {
				return 0, false
			}
			open := stack[len(stack)-1]
			if (open == '[') != (c == ']') {
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i, true
			}
		}
	}
	return 0, false
}
