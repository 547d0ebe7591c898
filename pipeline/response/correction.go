package response

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/text"
)

// Correction says how r, finished, went against what an early answer said
// of it — that it was producing its fixed file: failed (or timed out),
// cancelled, or wrote elsewhere; "" when the file is there, or when no
// answer named it.
func Correction(r *flow.TaskRun) string {
	switch {
	case !r.Promised:
		return ""
	case r.Cancelled:
		return fmt.Sprintf("task %d (%s) was cancelled, so %s was not produced", r.Task.ID, r.Task.Task, r.Fixed)
	case r.Status != flow.StatusOK:
		return fmt.Sprintf("task %d (%s) failed, so %s was not produced: %s", r.Task.ID, r.Task.Task, r.Fixed, text.OneLine(r.Err, 200))
	case !slices.Contains(r.Files, r.Fixed):
		return fmt.Sprintf("task %d (%s) wrote %s, not %s", r.Task.ID, r.Task.Task, strings.Join(r.Files, ", "), r.Fixed)
	}
	return ""
}
