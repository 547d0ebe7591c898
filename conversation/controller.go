package conversation

import (
	"context"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// What a chat's front end asks about the controller and the catalog goes
// through the chat: the TUI never holds the engine or the controller, so
// what it may do to them is this list, and a chat's own controller model
// (SetModel) is the one asked. The types are the controller's, under the
// chat service's names.
type (
	// ControllerStatus is what a check of the controller's server found.
	ControllerStatus = controller.Status
	// ControllerHints are the controller backend's words for its server
	// and its fixes (how to start it, how to get a model).
	ControllerHints = controller.Hints
	// ModelInfo describes a model the controller's server has.
	ModelInfo = controller.ModelInfo
	// PullProgress is a step of a model download onto the server.
	PullProgress = controller.PullProgress
)

// ErrModelMissing is wrapped by a check's error when the server is up but
// lacks the chat's controller model.
var ErrModelMissing = controller.ErrModelMissing

// controller is the controller of the chat's next turn.
func (c *Chat) controller() *controller.Controller { return c.Engine().Controller() }

// ControllerHost is where the controller's server is, any password in it
// redacted.
func (c *Chat) ControllerHost() string { return c.controller().Host() }

// ControllerHints are the controller backend's words for its server and
// its fixes.
func (c *Chat) ControllerHints() ControllerHints { return c.controller().Hints() }

// CheckController asks the controller's server whether it is up and has
// the chat's model; it returns the model it asked about with the answer
// (the chat's model may change while the check runs).
func (c *Chat) CheckController(ctx context.Context) (model string, st ControllerStatus) {
	ctl := c.controller()
	return ctl.Model(), ctl.Check(ctx)
}

// Replaying reports whether the chat answers from a recording.
func (c *Chat) Replaying() bool { return c.controller().Replaying() }

// Models lists the models the controller's server has.
func (c *Chat) Models(ctx context.Context) ([]ModelInfo, error) { return c.controller().Models(ctx) }

// CanPull reports whether the controller's server can download a model
// (Ollama can; an OpenAI-compatible server cannot).
func (c *Chat) CanPull() bool { return c.controller().CanPull() }

// Pull downloads model onto the controller's server, reporting progress
// to fn (which may be nil). Where the server cannot pull, the error says
// how to get the model instead.
func (c *Chat) Pull(ctx context.Context, model string, fn func(PullProgress)) error {
	return c.controller().Pull(ctx, model, fn)
}

// Catalog is the skill catalog the chat's turns plan and select from.
func (c *Chat) Catalog() *skills.Catalog { return c.Engine().Catalog() }

// Preview is what selection sees for task under the chat's standing
// constraints, without running anything (it may ask the endpoints whether
// they can serve a model, which may mean the network).
func (c *Chat) Preview(ctx context.Context, task string) (pipeline.ModelEvent, error) {
	return c.Engine().Preview(ctx, task, c.Constraints())
}

// Unqualifiable says why the chat's standing constraints, with the
// inference mode, leave no model for any task; "" when some qualify.
func (c *Chat) Unqualifiable() string { return c.Engine().Unqualifiable(c.Constraints()) }
