// Package recording records a chat's controller and expert traffic to a
// file and replays it, so a demo looks the same every time and needs no
// model and no network: the same plan, the same models, the same results
// and answer, at the recorded pace scaled by a factor.
//
// A recording is one JSON file (Recording). The controller's side is
// recorded and replayed by package controller (Controller.Recording,
// controller.Replay); the experts' side here, by wrapping the endpoints of
// a Router (experts.go, replay.go). Recorder ties both to a running chat
// (/record in the TUI, `chorus run --record`); Replay rebuilds an engine
// from a file (`--replay`).
package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline"
)

// Format is the version of the file layout this package writes.
const Format = 1

// Recording is a recorded chat: what it was run with, the requests of its
// turns, and the traffic that answered them.
type Recording struct {
	Format  int       `json:"format"`
	Created time.Time `json:"created"`
	// Chorus is the version that recorded it.
	Chorus string `json:"chorus,omitempty"`
	// Model is the controller model.
	Model string `json:"controller"`
	// Mode is the inference mode the router ran in.
	Mode string `json:"inference_mode"`
	// Catalog is the digest of the skill catalog (CatalogDigest): a
	// replay chooses the catalog that matches it, since selection numbers
	// candidates in catalog order.
	Catalog string `json:"catalog"`
	// NumCandidates and ControllerTasks are the engine options that shape
	// selection.
	NumCandidates   int  `json:"num_candidate_models"`
	ControllerTasks bool `json:"controller_tasks"`
	// Selection is when the controller chose among candidates; empty in
	// recordings made before the setting existed, which always asked it.
	Selection pipeline.Selection `json:"selection,omitempty"`
	// Revise is how many revisions a turn could make (planner.revise):
	// a replay revises exactly when the recording did. Recordings from
	// before revisions have none.
	Revise int `json:"revise,omitempty"`
	// Constraints are the standing constraints of the recorded chat.
	Constraints pipeline.Constraints `json:"constraints,omitzero"`
	// Turns are the recorded requests, in order.
	Turns []Request `json:"turns"`
	// Traffic is the controller's side; Experts the endpoints' side.
	Traffic controller.Traffic `json:"controller_traffic"`
	Experts Experts            `json:"experts"`
}

// Request is one recorded request: what a replay expects typed, in order.
type Request struct {
	Request     string   `json:"request"`
	Attachments []string `json:"attachments,omitempty"`
}

// ErrFormat is wrapped when a file is not a recording this version reads.
var ErrFormat = errors.New("not a Chorus recording")

// Load reads a recording.
func Load(path string) (*Recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the recording: %w", err)
	}
	var r Recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w (%w)", path, ErrFormat, err)
	}
	switch {
	case r.Format == 0:
		return nil, fmt.Errorf("%s: %w (no format version)", path, ErrFormat)
	case r.Format > Format:
		return nil, fmt.Errorf("%s: %w: format %d is newer than this Chorus reads (%d) — update Chorus", path, ErrFormat, r.Format, Format)
	}
	return &r, nil
}

// Save writes the recording to path atomically: a temporary file beside
// it, synced, then renamed, so a reader never sees half a recording.
func (r *Recording) Save(path string) error {
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot save the recording: %w", err)
	}
	f, err := os.CreateTemp(dir, ".recording-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot save the recording: %w", err)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("cannot save the recording: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot save the recording: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot save the recording: %w", err)
	}
	return nil
}
