package cli

import (
	"context"
	"log/slog"
	"strings"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/ui"
)

// runTUI opens the chat. The TUI opens even when the controller server is down: it says
// so, explains how to start it, and keeps retrying in the background.
//
// With a replay, the chat answers from the recording (replay.go) and says
// so when it opens.
func runTUI(ctx context.Context, cfg *config.Config, resume string, rs replaySource, log *slog.Logger) error {
	st, err := newSetup(cfg, rs, log)
	if err != nil {
		return err
	}
	svc, err := conversation.New(conversation.Options{Engine: st.eng, Logger: log, Version: version})
	if err != nil {
		return err
	}
	intro := st.note
	for _, w := range st.warnings {
		// Said in the chat when it opens: the tools are missing from
		// every plan, and the chat is where the user would miss them.
		intro = strings.TrimSpace(intro + "\n\n**Warning:** " + w)
	}
	opts := ui.Options{Config: cfg, Service: svc, Constraints: st.cons, Resume: resume, Intro: intro}
	// The prompt head is prefilled while the user types (unless
	// controller.warm says not to); a replay answers from its recording
	// and has nothing to warm.
	warm := !rs.on() && cfg.WarmController()
	opts.Warm, opts.WarmOnOpen = warm, warm
	return ui.Run(ctx, opts)
}
