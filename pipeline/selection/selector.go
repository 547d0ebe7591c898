package selection

import (
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// Selector chooses the model each task of a plan runs on: HuggingGPT's
// second stage. What can run a task now — the catalog's models and those
// the endpoints discover, each with a ready route — is filtered by the
// plan's constraints and ranked; what ranking cannot decide the
// controller chooses, for all of a plan's tasks in one call (Ask). A
// choice (flow.Choice) says which model, why, what was excluded and why:
// the execution stage runs it, the report keeps it.
type Selector struct {
	Catalog    *skills.Catalog
	Router     *endpoints.Router
	Controller *controller.Controller
	// NumCandidates is the top-K the controller chooses among
	// (num_candidate_models).
	NumCandidates int
	// ControllerTasks lets the controller do text tasks itself.
	ControllerTasks bool
	// Mode says when the controller chooses among candidates.
	Mode Mode
	// Hub looks up a model the request names that the catalog does not
	// list; nil looks none up.
	Hub HubLookup
}
