package command

import (
	"strings"

	"github.com/chorusai/chorus/endpoints"
)

// Status is one declared program as `chorus skills` shows it: installed
// where, or missing and the fix, and a translator's pairs.
type Status struct {
	// Name is the expert's id; Executable the program it runs.
	Name       string
	Executable string
	Tasks      []string
	// Preset is true for a program the command kind declares itself;
	// Index is a user declaration's place in command.programs (-1 for a
	// preset).
	Preset bool
	Index  int
	// Path is where the program is installed; empty when it is not on
	// PATH. A program may be installed and still not run (its model
	// files missing): Missing says so.
	Path string
	// Missing says why it cannot run ("missing: pocketsphinx_continuous
	// is not installed (not on PATH) — apt-get install pocketsphinx");
	// empty when it can.
	Missing string
	// Package is what provides it; Fix how to install it.
	Package string
	Fix     string
	License string
	Size    string
	// Pairs are the language pairs it has installed ("en→es"), for a
	// program that translates.
	Pairs []string
}

// Found reports whether the program can run.
func (s Status) Found() bool { return s.Missing == "" }

// Statuses lists every declared program — presets first, then the
// user's — with whether it can run on this machine: on PATH, with the
// files it requires, ffmpeg for its conversions, a language pair. It
// runs nothing but a translator's pair listing (cached).
func (e *Endpoint) Statuses() []Status {
	out := make([]Status, 0, len(e.programs))
	for _, p := range e.programs {
		st := Status{Name: p.Name, Executable: p.Executable(), Tasks: p.Tasks, Preset: p.preset(), Index: p.index,
			Package: p.Package, Fix: p.Fix(), License: p.License, Size: p.Size}
		st.Path, _ = e.opts.LookPath(p.Executable())
		_, path, err := e.resolve(p.Tasks[0], p.Name)
		if err != nil {
			st.Missing = strings.TrimPrefix(err.Error(), endpoints.ErrUnavailable.Error()+": ")
		} else {
			if len(p.Pairs) > 0 {
				pairs, _ := e.listPairs(p, path)
				st.Pairs = plainPairs(pairs)
			}
		}
		out = append(out, st)
	}
	return out
}

// firstLine is the first non-empty line of s, cleaned.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = lastLine(l); l != "" {
			return l
		}
	}
	return ""
}
