package conversation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/sessions"
)

// ChatOptions configure a Chat.
type ChatOptions struct {
	// Constraints are the standing constraints the chat starts with; a
	// session opened with its own replaces them.
	Constraints pipeline.Constraints
	// OutputDir overrides the engine's output directory for this chat's
	// turns; empty keeps the engine's.
	OutputDir string
	// Workspace, when set, confines the chat's turns to this directory
	// (pipeline.Turn.Workspace): a remote user's own.
	Workspace string
	// SpillQuota, when set, bounds the results kept in files that
	// OutputDir may hold, all the chats' turns together
	// (pipeline.Turn.SpillDirQuota): an ssh user's (serve.spill_quota).
	SpillQuota int64
	// NoSave keeps the turns in memory only (chorus run --no-save).
	NoSave bool
	// Approve, when set, answers every approval of the chat's turns
	// itself, in place of the front end's question (Request.Approve): the
	// operator's rule for a chat whose user is not this machine's (chorus
	// serve --ssh, pipeline.AllowListed with serve.allow_tools), so a
	// remote user never approves a tool that runs here.
	Approve func(ctx context.Context, a pipeline.Approval) error
	// System is the user's instruction for every answer of the chat
	// (chorus run --system or --role; pipeline.Turn.System): how answers
	// are written, not what runs.
	System string
}

// Chat is one front end's conversation: the controller model and
// standing constraints it runs with, its traffic recording if one is on,
// and the session its turns go into. Its methods are safe for concurrent
// use.
type Chat struct {
	svc  *Service
	opts ChatOptions
	// id names the chat to the controller's queue (pipeline.Turn.Chat),
	// which serves chats in turn.
	id string

	mu   sync.Mutex
	eng  *pipeline.Engine
	cons pipeline.Constraints
	sess *Session
	tape *recording.Recorder
	// turns are the turns running, so Close can stop them and keep what
	// they had.
	turns map[*running]struct{}
	wg    sync.WaitGroup
	// closed: Close ran, and told the observer once.
	closed bool
	// reach is what the turns learned of the endpoints' hosts.
	reach reachability
}

// running is a turn in flight.
type running struct {
	cancel func()
	rec    *recordBuilder
	sess   *Session
	model  string
	cons   pipeline.Constraints
}

// chatIDs numbers the chats of the process.
var chatIDs atomic.Int64

// Chat starts a chat on a new, unsaved session.
func (s *Service) Chat(opts ChatOptions) *Chat {
	if s.opts.Observer != nil {
		s.opts.Observer.ChatOpened()
	}
	return &Chat{svc: s, opts: opts, id: fmt.Sprintf("chat-%d", chatIDs.Add(1)), eng: s.opts.Engine, cons: opts.Constraints, sess: s.NewSession(), turns: map[*running]struct{}{}}
}

// Service is the service the chat belongs to.
func (c *Chat) Service() *Service { return c.svc }

// Engine is the engine the chat's next turn runs on: the service's, with
// this chat's controller model, recording included.
func (c *Chat) Engine() *pipeline.Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eng
}

// Model is the controller model of the next turn.
func (c *Chat) Model() string { return c.Engine().Controller().Model() }

// SetModel makes model the controller of the chat's next turns.
func (c *Chat) SetModel(model string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.eng.Controller().Model() == model {
		return
	}
	c.eng = c.eng.WithController(c.eng.Controller().WithModel(model))
	c.sess.setMeta(model, c.cons)
}

// Warm sends the chat's next turn's stable prompt head — the engine's
// head, then the session's history — to the controller in the background
// (Warmer), so that turn prefills only its own request. A front end calls
// it when the chat opens and after SetModel, Open or NewSession; Run
// cancels a warm-up still in flight, and a turn never waits for one.
func (c *Chat) Warm() {
	c.mu.Lock()
	eng, sess := c.eng, c.sess
	c.mu.Unlock()
	c.svc.opts.Warmer.Start(eng, sess.History())
}

// Constraints are the standing constraints of the next turn.
func (c *Chat) Constraints() pipeline.Constraints {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cons
}

// SetConstraints replaces the standing constraints; the session keeps
// them.
func (c *Chat) SetConstraints(cons pipeline.Constraints) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cons = cons
	c.sess.setMeta(c.eng.Controller().Model(), cons)
}

// Session is the session the chat's next turn goes into.
func (c *Chat) Session() *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// NewSession starts a new, unsaved session and returns the previous one,
// for the caller to save (Session.Save).
func (c *Chat) NewSession() (previous *Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	previous = c.sess
	c.sess = c.svc.NewSession()
	return previous
}

// Adopt makes s the chat's session and returns the previous one, for the
// caller to save. The session's controller model and standing
// constraints, when it has them, become the chat's.
func (c *Chat) Adopt(s *Session) (previous *Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	previous = c.sess
	c.sess = s
	if m := s.Model(); m != "" && m != c.eng.Controller().Model() {
		c.eng = c.eng.WithController(c.eng.Controller().WithModel(m))
	}
	if cons := s.Constraints(); !cons.IsZero() {
		c.cons = cons
	}
	return previous
}

// Open loads the session id ("latest" for the newest) and adopts it
// (Adopt), returning the previous session.
func (c *Chat) Open(id string) (previous *Session, err error) {
	s, err := c.svc.Open(id)
	if err != nil {
		return nil, err
	}
	return c.Adopt(s), nil
}

// Continue adopts the newest saved session; with none, the chat keeps its
// new one and resumed is false.
func (c *Chat) Continue() (resumed bool, err error) {
	_, err = c.Open("latest")
	switch {
	case errorsIsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// StartRecording records the chat's next turns — their controller and
// expert traffic — to path, saved after every turn, for `chorus
// --replay`.
func (c *Chat) StartRecording(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tape != nil {
		return errors.New("already recording to " + c.tape.Path())
	}
	c.tape = recording.NewRecorder(path, recording.Header{Chorus: c.svc.opts.Version, Constraints: c.cons, Now: c.svc.opts.Now})
	c.eng = c.tape.Engine(c.eng)
	return nil
}

// Recording says where the chat records to and how many turns so far; ""
// when it does not.
func (c *Chat) Recording() (path string, turns int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tape == nil {
		return "", 0
	}
	return c.tape.Path(), c.tape.Turns()
}

// StopRecording ends the recording and saves it one last time (when it
// holds a turn); it returns where it went and how many turns it holds.
func (c *Chat) StopRecording() (path string, turns int, err error) {
	c.mu.Lock()
	tape := c.tape
	if tape == nil {
		c.mu.Unlock()
		return "", 0, errors.New("not recording")
	}
	c.eng = tape.Release(c.eng)
	c.tape = nil
	c.mu.Unlock()
	if n := tape.Turns(); n > 0 {
		return tape.Path(), n, tape.Save()
	}
	return tape.Path(), 0, nil
}

// Close ends the chat, however its front end ended: running turns are
// cancelled and given wait to wind down — one still running then is kept
// as cancelled, with what it had — the recording is saved, and the session
// is saved. It returns the first error.
func (c *Chat) Close(wait time.Duration) error {
	c.mu.Lock()
	if !c.closed && c.svc.opts.Observer != nil {
		defer c.svc.opts.Observer.ChatClosed()
	}
	c.closed = true
	for r := range c.turns {
		r.cancel()
	}
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
		c.mu.Lock()
		for r := range c.turns {
			if rec, ok := r.rec.abandon(c.svc.opts.Now()); ok {
				r.sess.add(rec, r.model, r.cons)
			}
		}
		c.mu.Unlock()
	}
	// A server started for this chat alone (a user over ssh) ends with it.
	c.Engine().CloseChat(c.id)
	var first error
	c.mu.Lock()
	tape, sess := c.tape, c.sess
	c.mu.Unlock()
	if tape != nil && tape.Turns() > 0 {
		first = tape.Save()
	}
	if !c.opts.NoSave {
		if _, err := sess.Save(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func errorsIsNotFound(err error) bool { return errors.Is(err, sessions.ErrNotFound) }
