package cli

import (
	"context"
	"strings"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/ui"
)

// runTUI opens the chat on a. The TUI opens even when the controller
// server is down: it says so, explains how to start it, and keeps retrying
// in the background.
//
// With a replay, the chat answers from the recording and says so when it
// opens. model is the controller model -m named ("" for none): it wins over
// a resumed session's.
func runTUI(ctx context.Context, a *app.App, resume, model, system string) error {
	intro := a.Note()
	for _, w := range a.Warnings() {
		// Said in the chat when it opens: the tools are missing from
		// every plan, and the chat is where the user would miss them.
		intro = strings.TrimSpace(intro + "\n\n**Warning:** " + w)
	}
	cfg := a.Config()
	opts := ui.Options{Config: cfg, Service: a.Service(), Constraints: a.Constraints(), Resume: resume, Intro: intro, System: system, Getenv: cfg.Env.Getenv}
	if !a.Replaying() {
		opts.Model = model // a replay runs the recording's model
	}
	// The prompt head is prefilled while the user types (unless
	// controller.warm says not to); a replay answers from its recording
	// and has nothing to warm.
	warm := !a.Replaying() && cfg.WarmController()
	opts.Warm, opts.WarmOnOpen = warm, warm
	return ui.Run(ctx, opts)
}
