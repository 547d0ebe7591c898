package execution

import (
	"errors"
	"fmt"
	"sync"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
)

// downHosts are the hosts a turn found down (endpoints.HostDownError: the
// connection refused, the name not resolved, the TLS handshake failed).
// The first failure says so once, in a HostDownEvent; every other
// candidate on the host is skipped without a call until the turn ends —
// the next turn tries again. Shared by the turn's tasks; a nil *downHosts
// marks nothing and skips nothing.
type downHosts struct {
	mu sync.Mutex
	m  map[string]*endpoints.HostDownError
}

// mark records the host err says is down. first is true when the turn did
// not know it yet: its event is to be sent.
func (h *downHosts) mark(err error) (down *endpoints.HostDownError, first bool) {
	if h == nil || !errors.As(err, &down) || down.Host == "" {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]*endpoints.HostDownError{}
	}
	if _, known := h.m[down.Host]; known {
		return down, false
	}
	h.m[down.Host] = down
	return down, true
}

// down returns the failure that marked the host route reaches for model
// down this turn; nil when it is not, or the endpoint cannot say which
// host it reaches (endpoints.Hoster).
func (h *downHosts) down(route endpoints.Endpoint, task, model string) *endpoints.HostDownError {
	ho, ok := route.(endpoints.Hoster)
	if h == nil || !ok {
		return nil
	}
	host := ho.Host(task, model)
	if host == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[host]
}

// hostDownEvent is the one line a host found down gets.
func hostDownEvent(id int, route endpoints.Endpoint, down *endpoints.HostDownError) flow.HostDownEvent {
	return flow.HostDownEvent{ID: id, Host: down.Host, Endpoint: string(route.Kind()), Reason: down.Reason}
}

// skipDown tells whether r's next candidate is on a host the turn found
// down; it counts the skip, so the task's failure can say so.
func (r *job) skipDown(hosts *downHosts, route endpoints.Endpoint, model string) bool {
	down := hosts.down(route, r.Task.Task, model)
	if down == nil {
		return false
	}
	r.skippedDown++
	if r.downErr == nil {
		r.downErr = down
	}
	return true
}

// downNote says what a task skipped for a host that is down ("" when it
// skipped nothing).
func (r *job) downNote() string {
	if r.skippedDown == 0 {
		return ""
	}
	n := "candidate"
	if r.skippedDown > 1 {
		n = "candidates"
	}
	return fmt.Sprintf("%d %s on %s skipped: unreachable this turn (%s)", r.skippedDown, n, r.downErr.Host, r.downErr.Reason)
}
