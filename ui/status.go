package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/turnview"
)

// statusLine is the bottom bar: the controller model and whether its
// server answers, whether a Hugging Face token is set (never the token), the
// inference mode, the active constraints, the running turn's timer and the
// speed of the last answer. States read without colour too (✓/✗, words).
func (m *Model) statusLine(now time.Time) string {
	st := m.st
	sep := st.Status.Render(" │ ")
	var left []string
	h := m.conv.ControllerHints()
	ol := h.Tag + " ?"
	olStyle := st.Status
	switch {
	case !m.server.checked:
	case !m.server.reachable:
		ol, olStyle = h.Tag+" ✗ unreachable", st.StatusBad
	case !m.server.pulled:
		ol, olStyle = h.Tag+" ✓ model "+h.Missing, st.StatusBad
	default:
		ol, olStyle = h.Tag+" ✓", st.StatusGood
	}
	if m.conv.Replaying() {
		ol, olStyle = "▶ replay", st.StatusGood
	}
	left = append(left, st.StatusKey.Render(" "+m.conv.Model())+st.Status.Render(" ")+olStyle.Render(ol))
	// A host the chat's turns found down (the chat service keeps it until
	// a turn reaches it again) outranks what the configuration says.
	down := map[string]bool{}
	for _, u := range m.conv.Unreachable() {
		down[u.Endpoint] = true
		if u.Endpoint != "huggingface" {
			left = append(left, st.StatusBad.Render(u.Endpoint+" ✗ unreachable"))
		}
	}
	switch {
	case m.conv.Replaying():
		// A replay uses no token: saying one is missing would mislead.
	case down["huggingface"]:
		left = append(left, st.StatusBad.Render("HF router ✗ unreachable"))
	case m.opts.Config.HuggingFace.Token != "":
		left = append(left, st.StatusGood.Render("HF token ✓"))
	default:
		left = append(left, st.Status.Render("HF token ✗"))
	}
	left = append(left, st.Status.Render(string(m.opts.Config.InferenceMode)))
	if !m.conv.Constraints().IsZero() {
		left = append(left, st.Status.Render(m.conv.Constraints().String()))
	}
	var flags []string
	if m.review {
		flags = append(flags, "review")
	}
	if m.debug {
		flags = append(flags, "debug")
	}
	if m.raw {
		flags = append(flags, "raw")
	}
	if m.play != nil {
		flags = append(flags, "♪ playing")
	}
	if m.recording() {
		flags = append(flags, "● rec")
	}
	if len(flags) > 0 {
		left = append(left, st.Status.Render(strings.Join(flags, " ")))
	}

	var right []string
	if t := m.lastTurn(); t != nil {
		label := "⏱ "
		if t.Done {
			label = "last "
		}
		waiting, held := t.Waiting()
		switch {
		case !t.Done && held:
			// Nothing runs until the user answers: no clock.
			right = append(right, "waiting for you")
		case !t.Done && waiting:
			right = append(right, "waiting for you", label+turnview.HumanDuration(t.Elapsed(now)))
		case !t.Done && t.Queue.Waiting:
			// Other chats hold the controller's slots: say why nothing
			// moves (Ctrl+C leaves the queue).
			right = append(right, pipeline.QueueText(t.Queue))
			right = append(right, label+turnview.HumanDuration(t.Elapsed(now)))
		default:
			right = append(right, label+turnview.HumanDuration(t.Elapsed(now)))
		}
		if t.Done && t.TPS > 0 {
			right = append(right, turnview.HumanRate(t.TPS))
		}
	}
	l := strings.Join(left, sep)
	r := st.Status.Render(strings.Join(right, " · ") + " ")
	gap := m.width - ansi.StringWidth(l) - ansi.StringWidth(r)
	if gap < 1 {
		// Narrow terminal: the timer matters more than the tail of the left.
		l = ansi.Truncate(l, max(0, m.width-ansi.StringWidth(r)-2), "…")
		gap = m.width - ansi.StringWidth(l) - ansi.StringWidth(r)
	}
	return l + st.Status.Render(strings.Repeat(" ", max(0, gap))) + r
}
