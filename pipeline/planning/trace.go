package planning

import (
	"bytes"
	"encoding/json"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
)

// Trace records, for PlanOnly, what the planning stage saw. Run passes
// none; Plan then keeps a throwaway one.
type Trace struct {
	// Replies are the controller's replies, in order.
	Replies []string
	// FirstOK: the first reply was strict JSON, not cut off, parsed
	// without notes.
	FirstOK  bool
	attempts int
	// Raw are the tasks of the reply accepted, as written; OK says one
	// was, AcceptAt which.
	Raw      []flow.Task
	OK       bool
	AcceptAt int
}

func (tr *Trace) reply(r controller.Reply, raw rawPlan, perr error) {
	tr.Replies = append(tr.Replies, r.Content)
	if tr.attempts == 0 {
		tr.FirstOK = perr == nil && !r.Truncated() && len(raw.Notes) == 0 && json.Valid(bytes.TrimSpace([]byte(r.Content)))
	}
	tr.attempts++
}

func (tr *Trace) accepted(raw rawPlan) {
	tr.Raw, tr.OK, tr.AcceptAt = raw.Tasks, true, tr.attempts-1
}
