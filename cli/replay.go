package cli

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/skills"
)

// replaySource is what --replay and --replay-speed ask for: a recorded
// chat to play back instead of talking to Ollama and the endpoints.
type replaySource struct {
	path  string
	speed float64
}

// flags adds --replay and --replay-speed to cmd.
func (r *replaySource) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.path, "replay", "", "replay a recorded chat (made with /record or chorus run --record): no model or network is used")
	cmd.Flags().Float64Var(&r.speed, "replay-speed", 1, "pace of --replay: 1 as recorded, 2 twice as fast, 0 without waiting")
}

// on reports whether a replay was asked for.
func (r replaySource) on() bool { return r.path != "" }

// setup is the engine a command runs turns on, with what the user should
// know about it.
type setup struct {
	eng *pipeline.Engine
	// cons are the standing constraints: the config's, or the recorded
	// chat's in a replay.
	cons pipeline.Constraints
	// replay is the opened recording, nil when the engine is live.
	replay *recording.Replay
	// note says what is replayed (Markdown), empty when live.
	note string
	// warnings are what the user should know before the first turn (the
	// MCP servers that did not start), one line each.
	warnings []string
	// mcp is how each configured MCP server started (nil when replaying
	// or when none is configured).
	mcp []mcp.Status
}

// newSetup builds the live engine from cfg, or the replaying one when rs
// names a recording.
func newSetup(cfg *config.Config, rs replaySource, log *slog.Logger) (*setup, error) {
	if !rs.on() {
		eng, status, err := buildEngineWarn(cfg, log)
		if err != nil {
			return nil, err
		}
		cons, err := standingConstraints(cfg)
		if err != nil {
			return nil, err
		}
		return &setup{eng: eng, cons: cons, warnings: mcpWarnings(status), mcp: status}, nil
	}
	return replaySetup(cfg, rs, log)
}

// replaySetup opens the recording and builds an engine that answers from
// it: the recorded controller model, inference mode, constraints and
// selection options, and the catalog it was recorded with when that is
// the embedded or the configured one.
func replaySetup(cfg *config.Config, rs replaySource, log *slog.Logger) (*setup, error) {
	if rs.speed < 0 {
		return nil, &exitError{code: 2, err: fmt.Errorf("--replay-speed %v: want 1 for the recorded pace, 2 for twice as fast, 0 for no waiting", rs.speed)}
	}
	rp, err := recording.Open(rs.path, recording.Pace{Speed: rs.speed})
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("--replay: %w", err)}
	}
	embedded, err := skills.Embedded()
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	configured, err := loadCatalog(cfg)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	cat, matched := rp.ChooseCatalog(embedded, configured)
	cfg.Controller.Model = rp.Model
	if err := cfg.SetMode(rp.Mode); err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("--replay: %s: inference_mode: %w", rs.path, err)}
	}
	eng, err := rp.Engine(cat, pipeline.Options{
		MaxParallel: cfg.MaxParallel,
		TaskTimeout: cfg.TaskTimeout,
		OutputDir:   cfg.OutputDir,
		Logger:      log,
	})
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("--replay: %w", err)}
	}
	log.Info("replay opened", "file", rs.path, "turns", len(rp.Turns), "speed", rs.speed, "catalog_matched", matched)
	var b strings.Builder
	fmt.Fprintf(&b, "Replaying `%s` — %d recorded turn(s) of `%s`; no model or network is used.", rs.path, len(rp.Turns), rp.Model)
	if len(rp.Turns) > 0 {
		fmt.Fprintf(&b, " Type the recorded request: “%s”", rp.Turns[0].Request)
	}
	if !matched {
		b.WriteString("\n\nThis Chorus's skill catalog differs from the one the recording was made with: selection may pick other models than recorded.")
	}
	return &setup{eng: eng, cons: rp.Constraints, replay: rp, note: b.String()}, nil
}

// startRecording wraps eng so a run's traffic is recorded to path.
func startRecording(eng *pipeline.Engine, path string, cons pipeline.Constraints) (*recording.Recorder, *pipeline.Engine) {
	rec := recording.NewRecorder(path, recording.Header{Chorus: version, Constraints: cons})
	return rec, rec.Engine(eng)
}
