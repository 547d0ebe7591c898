package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/planning"
	"github.com/chorusai/chorus/skills"
)

// Every controller call of a turn is one conversation that grows: the same
// system message (the head: what Chorus is, every stage's rules, the
// skills that can run, worked examples), then the chat log, then one user
// message per stage ending with its STAGE marker, each followed by the
// controller's reply. Ollama keeps the KV cache of the last prompt and
// reuses the longest common prefix, so the head is prefilled once per
// session and each later call prefills only its own tail — on a laptop
// CPU, prefill is most of what a local user waits for.
//
// Nothing that changes within a session may go into the head: the request,
// the attachments, results and the stage all go at the end.

// availabilityTTL is how long the list of runnable skills is reused. The
// head must stay byte-identical between calls for the server's prompt
// cache to hold, so it changes only when what can run changes, and that
// is looked at again at most this often.
const availabilityTTL = time.Minute

// availCache holds the engine's last look at which skills can run.
type availCache struct {
	mu          sync.Mutex
	at          time.Time
	runnable    []*skills.Skill
	unavailable []string
}

// availability splits the catalog into the skills some candidate can run
// now (a ready route in this mode, or the controller itself) and the
// names of the rest. The planner is told only the first in full: a skill
// that cannot run is dead weight in every prompt.
func (e *Engine) availability(ctx context.Context) ([]*skills.Skill, []string) {
	c := e.avail
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < availabilityTTL {
		return c.runnable, c.unavailable
	}
	all, sel := e.cat.All(), e.selector()
	ok := make([]bool, len(all))
	var wg sync.WaitGroup
	for i, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// An endpoint's bug must not end the program: a skill whose
			// check panics is listed, and selection says what failed.
			defer func() {
				if recover() != nil {
					ok[i] = true
				}
			}()
			ok[i] = sel.Runnable(ctx, s)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		// A cancelled look proves nothing: list everything this once.
		return all, nil
	}
	c.runnable, c.unavailable = nil, nil
	for i, s := range all {
		if ok[i] {
			c.runnable = append(c.runnable, s)
		} else {
			c.unavailable = append(c.unavailable, s.Name)
		}
	}
	c.at = time.Now()
	return c.runnable, c.unavailable
}

// newTranscript starts a turn's transcript: the head, then the chat
// log as messages.
func (e *Engine) newTranscript(ctx context.Context, history []flow.Message) *flow.Transcript {
	return flow.NewTranscript(planning.Head(e.availability(ctx)), history)
}
