package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
)

// ChatOpened counts a chat in (conversation.Observer).
func (m *Metrics) ChatOpened() { m.chats.Inc() }

// ChatClosed counts a chat out (conversation.Observer).
func (m *Metrics) ChatClosed() { m.chats.Dec() }

// TurnStarted starts watching a turn (conversation.Observer).
func (m *Metrics) TurnStarted() conversation.TurnObserver {
	m.turnsActive.Inc()
	return &turnWatch{m: m, start: time.Now()}
}

// turnWatch reads one turn's events. The service calls it one event at a
// time, so it keeps its state without a lock.
type turnWatch struct {
	m       *Metrics
	start   time.Time
	started bool // the answer's first token came
}

// Event notes the answer's first token and each expert call as its task
// ends.
func (t *turnWatch) Event(ev pipeline.Event) {
	switch ev := ev.(type) {
	case pipeline.TokenEvent:
		if !t.started {
			t.started = true
			t.m.firstToken.Observe(time.Since(t.start).Seconds())
		}
	case pipeline.TaskEndEvent:
		for i, a := range ev.Attempts {
			kind, provider := cleanLabel(a.Endpoint), cleanLabel(a.Provider)
			if a.Provider == "" {
				provider = "none"
			}
			out := OK
			switch {
			case a.Error == "":
			case ev.Cancelled && i == len(ev.Attempts)-1:
				out = Cancelled
			default:
				out = Failed
			}
			t.m.expertCalls.WithLabelValues(kind, provider, out).Inc()
			t.m.expertSeconds.WithLabelValues(kind, provider).Observe(float64(a.ElapsedMS) / 1000)
		}
	}
}

// Ended counts the turn by its outcome, its time, and its controller
// calls' tokens.
func (t *turnWatch) Ended(res conversation.Result) {
	t.m.turnsActive.Dec()
	t.m.turns.WithLabelValues(outcome(res)).Inc()
	t.m.turnSeconds.Observe(time.Since(t.start).Seconds())
	if res.Report == nil {
		return
	}
	for _, c := range res.Report.Calls {
		stage := cleanLabel(string(c.Stage))
		t.m.tokens.WithLabelValues(stage, "prompt").Add(float64(max(c.PromptTokens, 0)))
		t.m.tokens.WithLabelValues(stage, "prefilled").Add(float64(max(c.Prefilled, 0)))
		t.m.tokens.WithLabelValues(stage, "decoded").Add(float64(max(c.Tokens, 0)))
	}
}

// outcome is how a turn ended, as the session keeps it: cancelled (by the
// user, a plan turned down in review, a stop), failed (no answer), ok.
func outcome(res conversation.Result) string {
	switch {
	case res.Record.Cancelled, errors.Is(res.Err, pipeline.ErrCancelled), errors.Is(res.Err, context.Canceled):
		return Cancelled
	case res.Err != nil:
		return Failed
	}
	return OK
}

// cleanLabel keeps a label value read from an event to what a kind's name
// is made of — lower-case letters, digits, '-', '_', '.', at most 40 —
// and makes anything else "other": an endpoint kind or a provider's name
// passes, a stray message never becomes a series of its own.
func cleanLabel(v string) string {
	if v == "" || len(v) > 40 {
		return "other"
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return "other"
		}
	}
	return v
}
