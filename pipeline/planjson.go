package pipeline

import (
	"encoding/json"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/planning"
)

// PlanJSON writes p as the planning schema asks the controller to write
// it for turn t: the shortest reply that reads back — parsePlan, then
// validation in t — as the same plan. Tasks are numbered by their place
// (no ids); a dependency that a <resource>-N argument already states is
// not repeated, nor an empty one; an image, audio or video argument that
// is the turn's only file of its kind is left out (validation fills it
// in); constraints only when there are any, before the tasks; {} for a
// plan with no task. Keys follow the schema's order, the order a
// grammar-constrained model writes them in, with no whitespace.
//
// The head's examples are written in this form, and it is what the
// decoded-token counts of docs/speed.md measure: every byte of it is a
// token or a part of one the controller decodes before a task can start.
func (e *Engine) PlanJSON(p flow.Plan, t Turn) string {
	return (&planning.Planner{Catalog: e.cat, Attachments: t.Attachments, History: t.History}).JSON(p)
}

// PlanSchema returns the JSON schema of the planning reply, as the
// planning call sends it: for tools and tests that write or check replies
// as a grammar-constrained controller would (eval, the benchmarks' fake).
func (e *Engine) PlanSchema() json.RawMessage { return planning.Schema(e.cat) }
