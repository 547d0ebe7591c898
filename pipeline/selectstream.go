package pipeline

import "strings"

// choiceStream reads a selection reply while it streams and hands over
// each choice the moment its object is complete. With one local Ollama the
// reply is decoded a token at a time, and a four-task reply takes seconds;
// a task whose choice came first need not wait for the rest of it.
//
// Only the {"choices":[{…},{…}]} form the schema asks for is read here;
// anything else — a bare list, a single object, a reply cut off — is left
// to parseChoices on the whole reply, which is lenient.
type choiceStream struct {
	// buf is the reply so far; a Builder's String does not copy, so each
	// token costs its own length, not the reply's.
	buf strings.Builder
	// next is where the next choice object may start; 0 until the
	// choices array has been seen.
	next   int
	onPick func(choicePick)
}

// write takes the next piece of the streamed reply.
func (s *choiceStream) write(tok string) {
	s.buf.WriteString(tok)
	b := s.buf.String()
	if s.next == 0 {
		i := strings.Index(b, `"choices"`)
		if i < 0 {
			return
		}
		j := strings.IndexByte(b[i:], '[')
		if j < 0 {
			return
		}
		s.next = i + j + 1
	}
	for {
		k := s.next
		for k < len(b) && strings.IndexByte(" \t\r\n,", b[k]) >= 0 {
			k++
		}
		s.next = k
		if k >= len(b) || b[k] != '{' {
			return
		}
		end, ok := matchBracket(b, k)
		if !ok {
			return
		}
		s.next = end + 1
		for id, p := range parseChoices(b[k : end+1]) {
			if id >= 0 && s.onPick != nil {
				s.onPick(p)
			}
		}
	}
}
