package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/turnview"
)

// shownTurn is a turn on screen: its state, which turnview builds from the
// pipeline's events, and the chat entry that shows its answer.
type shownTurn struct {
	*turnview.TurnState
	// user is the chat message of the request, entry the one that shows
	// TurnState.Answer.
	user, entry *chat.Message
	// recID identifies the turn's record in the session; "" until the
	// turn is recorded.
	recID string
	// loaded: the turn was read from the session file, not run here — its
	// attachments are data from disk, which grant nothing (retry).
	loaded bool
}

// newShownTurn starts a turn with an empty answer entry.
func newShownTurn(id int, request string, files []string, model string, now time.Time) *shownTurn {
	return &shownTurn{TurnState: turnview.NewTurnState(id, request, files, model, now), entry: &chat.Message{Role: chat.RoleAssistant}}
}

// apply records an event and keeps the answer's entry in step with it.
func (t *shownTurn) apply(ev pipeline.Event, now time.Time) {
	if t.Apply(ev, now) {
		t.entry.Text = t.Answer
	}
}

// tickMsg advances timers, spinners and countdowns while a turn runs.
type tickMsg struct{ turn int }

// tickEvery is the refresh rate of the clock-driven parts of the screen.
const tickEvery = 100 * time.Millisecond

// tickWaiting is the refresh rate while a controller call of the running
// turn waits in the controller's queue behind other chats: nothing moves
// but the clock, and every tick redraws the whole screen — at 64 chats on
// one chorus serve --ssh, most of them waiting, ten redraws a second each
// took half a core (docs/deploy.md). The turn's events still redraw at
// once.
const tickWaiting = 500 * time.Millisecond

func tick(turn int) tea.Cmd { return tickAfter(turn, tickEvery) }

func tickAfter(turn int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{turn: turn} })
}

// onTick keeps the clock of the running turn going, slower while it waits
// for the controller; a tick of a turn that ended stops.
func (m *Model) onTick(msg tickMsg) tea.Cmd {
	if m.running() && m.cur.ID == msg.turn {
		return tickAfter(msg.turn, m.tickInterval())
	}
	return nil
}

// tickInterval is how long the running turn's clock waits before its next
// redraw: tickWaiting while a controller call waits in the queue, else
// tickEvery.
func (m *Model) tickInterval() time.Duration {
	if m.cur != nil && m.cur.Queue.Waiting {
		return tickWaiting
	}
	return tickEvery
}

// cancelTurn cancels the running turn; the app stays.
func (m *Model) cancelTurn() tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	if m.cur != nil {
		m.cur.Canceled = true
	}
	m.flashWhile("cancelling the turn…", turnActivity)
	return nil
}

// startTurn runs a request in the background.
func (m *Model) startTurn(request string, files []string) tea.Cmd {
	m.nextTurn++
	now := m.now()
	t := newShownTurn(m.nextTurn, request, files, m.conv.Model(), now)
	t.user = &chat.Message{Role: chat.RoleUser, Text: request, Attachments: files, Final: true}
	m.chat.Add(t.user)
	m.chat.Add(t.entry)
	m.chat.Follow()
	if n := len(m.turns); n > 0 {
		// A turn's debug events hold its whole prompts and replies; only
		// the newest turn's are kept (a long chat must not keep every
		// prompt it ever sent).
		m.turns[n-1].Debug = nil
	}
	m.turns = append(m.turns, t)
	m.cur = t
	m.panes.newTurn()
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	p := newPump(t.ID)
	m.curPump = p
	req := conversation.Request{Request: request, Attachments: files, Synced: p.synced}
	if m.review {
		req.Review = p.reviewFunc()
	}
	req.Approve = p.approveFunc()
	m.layout()
	return tea.Batch(runTurn(ctx, m.conv, req, p), p.listen(), tick(t.ID), m.requestThumbs())
}

// onPump applies a batch of the running turn's events.
func (m *Model) onPump(msg pumpMsg) tea.Cmd {
	t := m.cur
	if t == nil || t.ID != msg.turn {
		return nil // a turn we stopped following
	}
	now := m.now()
	var cmds []tea.Cmd
	done := false
	for _, it := range msg.items {
		switch it := it.(type) {
		case pipeline.Event:
			t.apply(it, now)
			m.afterEvent(t, it)
		case reviewRequest:
			// The engine reports the plan only once it may run; show the
			// one under review meanwhile, so the panes (and the session,
			// if it is turned down) have it.
			t.apply(pipeline.PlanEvent{Tasks: it.plan.Tasks, Constraints: it.plan.Constraints, Notes: it.plan.Notes}, now)
			m.openReview(it)
		case approvalRequest:
			m.onApprovalRequest(it)
		case conversation.Sync:
			m.takeSync(it)
		case turnDone:
			res := it.res
			t.Finish(res.Report, res.Err, now)
			m.dropApprovals()
			t.recID = res.Record.ID
			m.takeSync(res.Sync)
			if res.SaveErr != nil {
				m.flash("the session was not saved: "+res.SaveErr.Error(), true)
			}
			if res.TapeErr != nil {
				m.flash("the recording was not saved: "+res.TapeErr.Error(), true)
			}
			done = true
		}
	}
	if done {
		cmds = append(cmds, m.endTurn(t))
		if m.drained {
			// The server restarts and waited for this turn's end.
			cmds = append(cmds, tea.Quit)
		}
	} else if m.curPump != nil {
		cmds = append(cmds, m.curPump.listen())
	}
	return tea.Batch(cmds...)
}

// afterEvent updates what depends on an event besides the turn state:
// the pane tab follows the stage; debug entries join the chat.
func (m *Model) afterEvent(t *shownTurn, ev pipeline.Event) {
	switch ev := ev.(type) {
	case pipeline.StageEvent:
		m.panes.follow(ev.Stage)
	case pipeline.DebugEvent:
		if m.debug {
			m.insertBeforeAnswer(t, &chat.Message{Role: chat.RoleDebug, Title: fmt.Sprintf("debug · %s %s", ev.Stage, ev.Kind), Text: ev.Content, Final: true})
		}
	}
}

// insertBeforeAnswer puts an entry just above the turn's streaming answer.
func (m *Model) insertBeforeAnswer(t *shownTurn, msg *chat.Message) {
	m.chat.InsertBefore(t.entry, msg)
}

// endTurn finishes the turn's chat entries and saves the session.
func (m *Model) endTurn(t *shownTurn) tea.Cmd {
	if strings.TrimSpace(t.Answer) == "" && t.Err != nil {
		switch {
		case errors.Is(t.Err, turnview.ErrPlanRejected):
			t.Answer = "_Plan cancelled in review — nothing ran._"
		case t.Canceled:
			t.Answer = "_Cancelled — nothing more will run this turn._"
		default:
			t.Answer = "_No answer._"
		}
	} else if t.Canceled {
		// An answer cut off inside a code block would draw the note as
		// code: close the block first.
		t.Answer = chat.CloseOpenFence(t.Answer) + "\n\n_Cancelled._"
	}
	a := t.entry
	a.Text = t.Answer
	a.Final = true
	a.Files = t.Files()
	meta := []string{t.Model, turnview.HumanDuration(t.Elapsed(m.now()))}
	if t.TPS > 0 {
		meta = append(meta, turnview.HumanRate(t.TPS))
	}
	a.Meta = strings.Join(meta, " · ")
	a.Invalidate()
	following := m.chat.AtBottom()
	if t.Err != nil && !t.Canceled {
		m.systemError(t.FatalText())
	}
	if following {
		// A long answer would leave only its last lines on screen (at
		// 80×24, its end): show it from its top instead.
		m.chat.ShowTop(a, m.renderCtx(m.chatWidth()-1), m.chatHeight())
	}
	m.ended(turnActivity)
	m.cur = nil
	m.curPump = nil
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
	if _, ok := m.dialog.(*dialog.Review); ok {
		m.closeDialog()
	}
	var recheck tea.Cmd
	if t.Err != nil && !t.Canceled {
		recheck = m.recheckServer()
	}
	return tea.Batch(m.requestThumbs(), recheck)
}

// running reports whether a turn is in flight.
func (m *Model) running() bool { return m.cur != nil && !m.cur.Done }

// lastTurnView is the state of lastTurn, or nil, for the panes.
func (m *Model) lastTurnView() *turnview.TurnState {
	if t := m.lastTurn(); t != nil {
		return t.TurnState
	}
	return nil
}

// lastTurn returns the running turn or the newest one.
func (m *Model) lastTurn() *shownTurn {
	if m.cur != nil {
		return m.cur
	}
	if n := len(m.turns); n > 0 {
		return m.turns[n-1]
	}
	return nil
}
