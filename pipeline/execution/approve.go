package execution

import (
	"context"
	"fmt"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/text"
)

type approverKey struct{}

// WithApprover carries the turn's Approve hook to the tasks.
func WithApprover(ctx context.Context, f func(context.Context, flow.Approval) error) context.Context {
	return context.WithValue(ctx, approverKey{}, f)
}

// approve asks the turn's hook whether route may run model for the task;
// nil when it may. Without a hook, a call that needs approval is refused.
func approve(ctx context.Context, route endpoints.Endpoint, r *flow.TaskRun, model string, args map[string]string) error {
	g, ok := route.(endpoints.Guarded)
	if !ok {
		return nil
	}
	why := g.NeedsApproval(r.Task.Task, model)
	if why == "" {
		return nil
	}
	a := flow.Approval{ID: r.Task.ID, Task: r.Task.Task, Tool: model, Reason: why, Args: args}
	f, _ := ctx.Value(approverKey{}).(func(context.Context, flow.Approval) error)
	if f == nil {
		return endpoints.Explain(fmt.Sprintf("%s was not run: %s, and nothing here can ask you", model, why), endpoints.ErrUnavailable, flow.ErrNotApproved)
	}
	if err := f(ctx, a); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return endpoints.Explain(fmt.Sprintf("%s was not run: %s", model, text.OneLine(err.Error(), 300)), endpoints.ErrUnavailable, flow.ErrNotApproved)
	}
	return nil
}

// AllowTools is the Approve hook of a front end that cannot ask (chorus
// run, chorus mcp serve): a tool runs when names lists it ("server.tool",
// or "server.*" for all of a server's), and is refused otherwise with the
// flag that allows it.
func AllowTools(names []string) func(context.Context, flow.Approval) error {
	return AllowListed(names, func(tool string) string { return "run again with --allow-tool " + tool + " to let it run" })
}

// AllowListed is the Approve hook that answers from a list alone: a tool
// runs when names lists it ("server.tool", or "server.*" for all of a
// server's), and is refused otherwise, saying why it asks and fix(tool) —
// who can allow it, and how. Nobody is asked: chorus serve --ssh uses it
// with the operator's serve.allow_tools, so a remote user never approves a
// tool that runs on the server.
func AllowListed(names []string, fix func(tool string) string) func(context.Context, flow.Approval) error {
	return func(_ context.Context, a flow.Approval) error {
		server, _, _ := strings.Cut(a.Tool, ".")
		for _, n := range names {
			if n == a.Tool || n == server+".*" {
				return nil
			}
		}
		return fmt.Errorf("%s — %s", a.Reason, fix(a.Tool))
	}
}
