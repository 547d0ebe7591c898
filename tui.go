package main

import (
	"context"
	"log/slog"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/ui"
)

// runTUI opens the chat. The TUI opens even when Ollama is down: it says
// so, explains how to start it, and keeps retrying in the background.
func runTUI(ctx context.Context, cfg *config.Config, resume string, log *slog.Logger) error {
	eng, err := buildEngine(cfg, log)
	if err != nil {
		return err
	}
	cons, err := standingConstraints(cfg)
	if err != nil {
		return err
	}
	return ui.Run(ctx, ui.Options{Config: cfg, Engine: eng, Constraints: cons, Resume: resume, Logger: log})
}
