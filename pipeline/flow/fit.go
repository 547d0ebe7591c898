package flow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/text"
)

// Every controller call of a turn — the plan and its re-ask, the
// selection, a text task the controller does, the answer, the warm-up —
// is sent through callController, which fits its prompt under the
// controller's prompt budget (controller.prompt_tokens) before it goes.
// The stages keep their own shares (a result's part of the answer, the
// chat log, quoted files), but what a call holds also depends on what
// came before it in the conversation — a 20 MB tool result handed to a
// text task, piped input seen by the plan and the answer — so the budget
// is kept here, in one place, for whatever a call holds. The controller
// refuses a prompt over it unsent (controller/limits.go): this is where
// the stages make sure it never has to.

// Fit returns msgs cut to at most budget bytes of text (msgs itself
// when they fit; they are never modified). The quoted data — results,
// file contents, inputs, between <data> and </data> — gives way first,
// the largest first, each part kept from its start with a note of how
// much was left out; only when that is not enough does the text of the
// messages after the head give way, the same way. The head (the system
// message) is never cut: without its rules no stage works, and a head over
// the budget is the configuration's to fix — the controller refuses it,
// naming controller.prompt_tokens.
func Fit(msgs []controller.Message, budget int) []controller.Message {
	excess := controller.PromptSize(msgs) - budget
	if excess <= 0 {
		return msgs
	}
	out := slices.Clone(msgs)
	excess = shrink(out, excess, dataSpans)
	if excess > 0 {
		shrink(out, excess, wholeSpans)
	}
	return out
}

// span is a part of one message's text that may be cut: [start, end).
type span struct{ msg, start, end int }

func (s span) len() int { return s.end - s.start }

// dataSpans are the quoted data of msgs' non-system messages: the text
// between each "<data>\n" and the "\n</data>" that closes it (quoteData
// defuses both inside the data, so they pair).
func dataSpans(msgs []controller.Message) []span {
	const open, closing = "<data>\n", "\n</data>"
	var out []span
	for i, m := range msgs {
		if m.Role == "system" {
			continue
		}
		for at := 0; ; {
			s := strings.Index(m.Content[at:], open)
			if s < 0 {
				break
			}
			s += at + len(open)
			e := strings.Index(m.Content[s:], closing)
			if e < 0 {
				break
			}
			out = append(out, span{msg: i, start: s, end: s + e})
			at = s + e + len(closing)
		}
	}
	return out
}

// wholeSpans are the whole texts of msgs' non-system messages.
func wholeSpans(msgs []controller.Message) []span {
	var out []span
	for i, m := range msgs {
		if m.Role != "system" {
			out = append(out, span{msg: i, start: 0, end: len(m.Content)})
		}
	}
	return out
}

// shrink cuts the spans find gives in msgs, the largest first, to one
// common length — the longest that saves excess bytes — and returns what
// is still over (0 when it fits).
func shrink(msgs []controller.Message, excess int, find func([]controller.Message) []span) int {
	spans := find(msgs)
	if len(spans) == 0 {
		return excess
	}
	// A cut may keep a byte less than asked (a character is not split)
	// and so write one digit more in its note: a byte a span to spare.
	excess += len(spans)
	saved := func(keep int) int {
		n := 0
		for _, s := range spans {
			n += max(0, s.len()-clippedLen(s.len(), keep))
		}
		return n
	}
	longest := slices.MaxFunc(spans, func(a, b span) int { return a.len() - b.len() }).len()
	if saved(0) < excess {
		// Even cut to nothing they are not enough: cut them all as far
		// as they go, and let the next step (or the controller) say.
		excess -= saved(0)
		clipSpans(msgs, spans, 0)
		return excess
	}
	// The longest length kept that still saves enough.
	lo, hi := 0, longest
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if saved(mid) >= excess {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	clipSpans(msgs, spans, lo)
	return 0
}

// clippedLen is how long a part of n bytes is once cut to keep bytes by
// budgeted: the bytes kept and the note of what was left out.
func clippedLen(n, keep int) int {
	keep = max(keep, budgetFloor)
	if n <= keep {
		return n
	}
	return keep + len(text.Ellipsis) + len(fmt.Sprintf(" [%d more bytes]", n-keep))
}

// clipSpans cuts every span longer than keep to keep bytes, later spans of
// a message first so the earlier ones' offsets hold. A message cut whole
// that loses the end of a quote gets it closed again, so what follows is
// never read as data, nor the data as the message.
func clipSpans(msgs []controller.Message, spans []span, keep int) {
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		c := msgs[s.msg].Content
		part := c[s.start:s.end]
		if len(part) <= clippedLen(len(part), keep) {
			continue
		}
		cut := Budgeted(part, keep)
		if strings.Count(cut, "<data>") > strings.Count(cut, "</data>") {
			cut += "\n</data>"
		}
		msgs[s.msg].Content = c[:s.start] + cut + c[s.end:]
	}
}

// budgetFloor is the least of a part budgeted keeps.
const budgetFloor = 16

// Budgeted cuts s to a prompt budget of n bytes (budgetFloor at least),
// saying how much was left out so the controller does not take a part for
// the whole.
func Budgeted(s string, n int) string {
	out, cut := text.ClipBytes(s, max(n, budgetFloor))
	if cut > 0 {
		out += fmt.Sprintf(" [%d more bytes]", cut)
	}
	return out
}
