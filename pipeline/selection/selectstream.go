package selection

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/text"
)

// pickStream reads a selection reply while it streams. The schema asks for
// {"picks":{"<task id>":n,…},"reasons":{"<task id>":"…",…}}: every pick
// first, then the reasons. Each pick is handed over the moment its number
// is complete, so every task can start once the picks are decoded — a few
// tokens each — while the controller writes the reasons, which are handed
// over one by one as they close.
//
// Only that form is read here; anything else (a list of choices, a single
// object, a reply cut off) is left to parseChoices on the whole reply. The
// scan is incremental: each byte is looked at once.
type pickStream struct {
	flow.JSONScan
	// key is the last key read at depth 1 or 2, keyStart where its
	// literal began; open is the top-level key whose object is being read.
	key      string
	keyStart int
	open     string
	// inValue: the value of key is being read inside that object, from
	// valStart.
	inValue  bool
	valStart int

	onPick   func(id, pick int)
	onReason func(id int, reason string)
}

// write takes the next piece of the streamed reply.
func (s *pickStream) write(tok string) { s.Feed(tok, s.scan) }

func (s *pickStream) scan(b string, i int) {
	c := b[i]
	if s.Opening(c) {
		return
	}
	wasIn := s.Str.In
	if s.Str.Inside(c) || wasIn {
		if s.Depth > 2 {
			return
		}
		switch {
		case !wasIn && s.inValue:
			// A string value (a reason) begins; it ends at , or }.
		case !wasIn:
			s.keyStart = i
		case !s.Str.In && !s.inValue:
			s.key = b[s.keyStart+1 : i]
		}
		return
	}
	switch c {
	case ':':
		if s.Depth == 2 {
			s.inValue, s.valStart = true, i+1
		}
	case '{', '[':
		s.Depth++
		if s.Depth == 2 {
			s.open, s.inValue = s.key, false
		}
	case ',', '}', ']':
		if s.Depth == 2 && s.inValue {
			s.value(s.key, strings.TrimSpace(b[s.valStart:i]))
			s.inValue = false
		}
		if c != ',' {
			s.Depth--
			if s.Depth == 0 {
				s.Off = true
			}
		}
	}
}

// value takes one entry of the picks or reasons object.
func (s *pickStream) value(key, raw string) {
	id, err := strconv.Atoi(strings.TrimSpace(key))
	if err != nil {
		return
	}
	switch s.open {
	case "picks":
		var n int
		var str string
		switch {
		case json.Unmarshal([]byte(raw), &n) == nil:
		case json.Unmarshal([]byte(raw), &str) == nil:
			n, _ = strconv.Atoi(strings.TrimSpace(str))
		}
		if n > 0 && s.onPick != nil {
			s.onPick(id, n)
		}
	case "reasons":
		var r string
		if json.Unmarshal([]byte(raw), &r) == nil && s.onReason != nil {
			s.onReason(id, text.CleanGenerated(r))
		}
	}
}
