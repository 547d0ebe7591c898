package ui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
)

// frameInterval is how often queued pipeline events reach the model: the
// tokens of a fast stream are coalesced into one update per frame.
const frameInterval = time.Second / 30

// pump carries a turn's events from the pipeline's goroutines to the model
// (and a model pull's progress from its goroutine).
// Emit appends to a queue and never blocks; the listen command waits for
// the queue to fill and delivers everything queued as one message, at most
// once a frame. The pipeline and the model share nothing else.
type pump struct {
	turn int

	mu     sync.Mutex
	q      []any
	signal chan struct{}
	last   time.Time
}

func newPump(turn int) *pump {
	return &pump{turn: turn, signal: make(chan struct{}, 1)}
}

// push queues an item: a pipeline.Event, a conversation.Sync, a
// reviewRequest, an approvalRequest, a turnDone, or a model pull's
// pullProgressMsg and pullDoneMsg.
func (p *pump) push(v any) {
	p.mu.Lock()
	p.q = append(p.q, v)
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
}

// emit is the pipeline.Emit of the turn.
func (p *pump) emit(ev pipeline.Event) { p.push(ev) }

// pumpMsg delivers the items queued since the last delivery, in order.
type pumpMsg struct {
	turn  int
	items []any
}

// listen returns the command that delivers the next batch.
func (p *pump) listen() tea.Cmd {
	return func() tea.Msg {
		<-p.signal
		// Let a burst of tokens gather, but never hold events longer than
		// a frame.
		if wait := frameInterval - time.Since(p.last); wait > 0 {
			time.Sleep(wait)
		}
		p.mu.Lock()
		items := p.q
		p.q = nil
		p.last = time.Now()
		p.mu.Unlock()
		return pumpMsg{turn: p.turn, items: items}
	}
}

// turnDone ends a turn's stream: the turn ended and was saved.
type turnDone struct {
	res conversation.Result
}

// synced is the Request.Synced of the turn: the turns another writer
// added reach the model before the turn's events.
func (p *pump) synced(s conversation.Sync) { p.push(s) }

// reviewRequest asks the user to approve the plan before it runs. The
// pipeline goroutine waits on reply; the model answers exactly once.
type reviewRequest struct {
	plan  pipeline.Plan
	reply chan reviewReply
}

type reviewReply struct {
	plan pipeline.Plan
	err  error
}

// reviewFunc returns the Turn.Review hook that routes the plan through the
// pump to the model's review dialog.
func (p *pump) reviewFunc() func(ctx context.Context, plan pipeline.Plan) (pipeline.Plan, error) {
	return func(ctx context.Context, plan pipeline.Plan) (pipeline.Plan, error) {
		reply := make(chan reviewReply, 1)
		p.push(reviewRequest{plan: plan, reply: reply})
		select {
		case r := <-reply:
			return r.plan, r.err
		case <-ctx.Done():
			return pipeline.Plan{}, ctx.Err()
		}
	}
}

// runTurn returns the command that runs a turn of chat (which records and
// saves it; a bug in a stage costs the turn, not the app) and ends the
// stream with turnDone.
func runTurn(ctx context.Context, chat *conversation.Chat, req conversation.Request, p *pump) tea.Cmd {
	return func() (msg tea.Msg) {
		p.push(turnDone{res: chat.Run(ctx, req, p.emit)})
		return nil
	}
}

// onPumpMsg applies a batch to what the pump carries: the running turn,
// or a /pull (turn -1).
func (m *Model) onPumpMsg(msg pumpMsg) tea.Cmd {
	if msg.turn < 0 {
		return m.onPullItems(msg.items)
	}
	return m.onPump(msg)
}
