package app

import (
	"fmt"
	"strings"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/skills"
)

// replayEngine opens the recording and builds an engine that answers from
// it: the recorded controller model, inference mode, constraints and
// selection options, and the catalog it was recorded with when that is
// the embedded or the configured one. a.note says so.
func (a *App) replayEngine(cfg *config.Config, opts Options) (*pipeline.Engine, error) {
	rs, log := opts.Replay, opts.Logger
	if rs.Speed < 0 {
		return nil, usage(fmt.Errorf("--replay-speed %v: want 1 for the recorded pace, 2 for twice as fast, 0 for no waiting", rs.Speed))
	}
	rp, err := recording.Open(rs.Path, recording.Pace{Speed: rs.Speed})
	if err != nil {
		return nil, usage(fmt.Errorf("--replay: %w", err))
	}
	embedded, err := skills.Embedded()
	if err != nil {
		return nil, usage(err)
	}
	configured, err := LoadCatalog(cfg)
	if err != nil {
		return nil, usage(err)
	}
	cat, matched := rp.ChooseCatalog(embedded, configured)
	cfg.Controller.Model = rp.Model
	if err := cfg.SetMode(rp.Mode); err != nil {
		return nil, usage(fmt.Errorf("--replay: %s: inference_mode: %w", rs.Path, err))
	}
	eng, err := rp.Engine(cat, pipeline.Options{
		MaxParallel: cfg.MaxParallel,
		TaskTimeout: cfg.TaskTimeout,
		OutputDir:   cfg.OutputDir,
		Logger:      log,
		Home:        opts.Home,
		WorkDir:     opts.WorkDir,
	})
	if err != nil {
		return nil, usage(fmt.Errorf("--replay: %w", err))
	}
	log.Info("replay opened", "file", rs.Path, "turns", len(rp.Turns), "speed", rs.Speed, "catalog_matched", matched)
	var b strings.Builder
	fmt.Fprintf(&b, "Replaying `%s` — %d recorded turn(s) of `%s`; no model or network is used.", rs.Path, len(rp.Turns), rp.Model)
	if len(rp.Turns) > 0 {
		fmt.Fprintf(&b, " Type the recorded request: “%s”", rp.Turns[0].Request)
	}
	if !matched {
		b.WriteString("\n\nThis Chorus's skill catalog differs from the one the recording was made with: selection may pick other models than recorded.")
	}
	a.cons, a.replay, a.note = rp.Constraints, rp, b.String()
	return eng, nil
}
