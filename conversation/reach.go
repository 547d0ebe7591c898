package conversation

import (
	"slices"
	"strings"
	"sync"

	"github.com/chorusai/chorus/pipeline"
)

// Unreachable is an endpoint whose host a turn of the chat found down
// (pipeline.HostDownEvent): a front end's status says so — "HF router ✗
// unreachable" rather than "HF token ✓" — until a later turn reaches it.
type Unreachable struct {
	// Endpoint is the endpoint kind ("huggingface").
	Endpoint string
	Host     string
	Reason   string
}

// reachability is what the chat's turns learned of the endpoints' hosts.
type reachability struct {
	mu   sync.Mutex
	down map[string]Unreachable
}

// turnReach is what one turn saw: the endpoints it found down, and those
// it called.
type turnReach struct {
	r         *reachability
	mu        sync.Mutex
	foundDown map[string]bool
	called    map[string]bool
}

func (r *reachability) turn() *turnReach {
	return &turnReach{r: r, foundDown: map[string]bool{}, called: map[string]bool{}}
}

// observe takes one event of the turn: a host found down shows at once.
func (t *turnReach) observe(ev pipeline.Event) {
	switch e := ev.(type) {
	case pipeline.HostDownEvent:
		t.mu.Lock()
		t.foundDown[e.Endpoint] = true
		t.mu.Unlock()
		t.r.mu.Lock()
		if t.r.down == nil {
			t.r.down = map[string]Unreachable{}
		}
		t.r.down[e.Endpoint] = Unreachable{Endpoint: e.Endpoint, Host: e.Host, Reason: e.Reason}
		t.r.mu.Unlock()
	case pipeline.TaskEndEvent:
		t.mu.Lock()
		for _, a := range e.Attempts {
			t.called[a.Endpoint] = true
		}
		t.mu.Unlock()
	}
}

// settle ends the turn: an endpoint it called without finding its host
// down answered, and is no longer shown unreachable.
func (t *turnReach) settle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	for ep := range t.called {
		if !t.foundDown[ep] {
			delete(t.r.down, ep)
		}
	}
}

// Unreachable lists the endpoints whose host the chat's turns found down
// and have not reached since, by endpoint kind.
func (c *Chat) Unreachable() []Unreachable {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	out := make([]Unreachable, 0, len(c.reach.down))
	for _, u := range c.reach.down {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b Unreachable) int { return strings.Compare(a.Endpoint, b.Endpoint) })
	return out
}
