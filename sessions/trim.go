package sessions

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// A save must never write what a load refuses: a session over the
// store's bound (maxFileBytes) would be kept but could not be opened again. Turns bring
// their results, capped by the pipeline (a result over its cap is a file
// in the output folder), but a long session adds up, and files of earlier
// versions held results whole. So a save over the bound trims the turns
// oldest first — their task results and arguments first, then their
// answers and inputs — each cut keeping its start and saying what was
// trimmed, until the file fits. The session in memory is not changed: it
// is trimmed again as it is written, the same way each time.

// trimSteps are the passes of a trim: what is cut, and what each cut keeps.
var trimSteps = []struct {
	keep  int
	whole bool // the turn's own texts too, not only its results
}{{4 << 10, false}, {4 << 10, true}, {256, true}}

// fitFile returns the session as written (MarshalIndent), trimmed to limit
// bytes when it is over; c is trimmed in place. A session that does not fit
// even trimmed is an error naming the fix.
func fitFile(c *Session, limit int) ([]byte, error) {
	data, err := marshalSession(c)
	for _, step := range trimSteps {
		if err != nil || len(data) <= limit {
			break
		}
		trimOldest(c, len(data)-limit, step.keep, step.whole)
		data, err = marshalSession(c)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot save session %s: %w", c.ID, err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("cannot save session %s: even trimmed it would be %s, more than the %s a session may be — start a new session (/new, or chorus run without --continue)",
			c.ID, skills.HumanBytes(int64(len(data))), skills.HumanBytes(int64(limit)))
	}
	return data, nil
}

func marshalSession(c *Session) ([]byte, error) {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// trimOldest trims c's turns, oldest first, until about excess bytes are
// saved (the caller measures again).
func trimOldest(c *Session, excess, keep int, whole bool) {
	for i := range c.Turns {
		if excess <= 0 {
			return
		}
		before := turnSize(c.Turns[i])
		c.Turns[i] = trimTurn(c.Turns[i], keep, whole)
		excess -= before - turnSize(c.Turns[i])
	}
}

func turnSize(t Record) int {
	b, _ := json.Marshal(t)
	return len(b)
}

// trimTurn returns t with its results — and, when whole, its own texts —
// cut to keep bytes each. Slices and maps are copied before they change:
// the turn shares them with the session in memory.
func trimTurn(t Record, keep int, whole bool) Record {
	if t.Report != nil {
		rep := *t.Report
		rep.Tasks = slices.Clone(t.Report.Tasks)
		for i := range rep.Tasks {
			tr := &rep.Tasks[i]
			tr.Result = trimmed(tr.Result, keep)
			tr.Args = trimmedMap(tr.Args, keep)
			if len(tr.Data) > keep {
				tr.Data = nil
			}
			if whole {
				tr.Error = trimmed(tr.Error, keep)
			}
		}
		if whole {
			rep.Answer = trimmed(rep.Answer, keep)
			rep.Request = trimmed(rep.Request, keep)
		}
		t.Report = &rep
	}
	if whole {
		t.Request, t.Input, t.Answer, t.Error = trimmed(t.Request, keep), trimmed(t.Input, keep), trimmed(t.Answer, keep), trimmed(t.Error, keep)
		if len(t.Plan) > 0 {
			plan := slices.Clone(t.Plan)
			for i := range plan {
				plan[i].Args = trimmedMap(plan[i].Args, keep)
			}
			t.Plan = plan
		}
	}
	return t
}

// trimNoteRoom is about what the note of a trim takes.
const trimNoteRoom = 80

// trimmed is s cut to keep bytes, with the note of what the save left out.
func trimmed(s string, keep int) string {
	out, cut := text.ClipBytes(s, keep)
	if cut <= trimNoteRoom {
		return s // the note would take more room than it saves
	}
	return out + fmt.Sprintf(" [%s trimmed when the session was saved, to keep it loadable]", skills.HumanBytes(int64(cut)))
}

// trimmedMap is m with every value trimmed; m itself when none is cut.
func trimmedMap(m map[string]string, keep int) map[string]string {
	var out map[string]string
	for k, v := range m {
		if len(v) <= keep {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = trimmed(v, keep)
	}
	if out == nil {
		return m
	}
	return out
}
