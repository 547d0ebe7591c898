package command

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	"github.com/chorusai/chorus/endpoints"
)

// Program is a program the endpoint drives, for a list of them that
// follows the endpoint's own (chorus doctor): a program added to the
// presets, or declared under command.programs, is checked there with no
// change.
type Program struct {
	// Name is the expert's id ("pocketsphinx"); Executable the program it
	// runs ("pocketsphinx_continuous").
	Name       string
	Executable string
	// Package is what installs it ("tesseract-ocr"); Fix says how
	// ("apt-get install tesseract-ocr").
	Package string
	Fix     string
	// Tasks are the tasks it can do.
	Tasks []string
	// Preset is true for a program the endpoint declares itself.
	Preset bool
}

// Declared lists the programs the endpoint runs — the presets, then the
// declarations of command.programs (one named like a preset in its
// place) — in its order.
func (e *Endpoint) Declared() []Program {
	out := make([]Program, 0, len(e.programs))
	for _, p := range e.programs {
		out = append(out, Program{Name: p.Name, Executable: p.Executable(), Package: p.Package, Fix: p.Fix(), Tasks: slices.Clone(p.Tasks), Preset: p.preset()})
	}
	return out
}

// versionPattern finds a version in what a program says: "5.3.0",
// "1.51", "5.1.9-0+deb12u1".
var versionPattern = regexp.MustCompile(`\b\d+(\.\d+)+[0-9A-Za-z.+~-]*`)

// Probe finds the program name where the endpoint would run it and asks
// its version with the argv its declaration gives (version:): its path,
// and the version it gives ("" when it has no version argv, gives none,
// or does not answer before ctx ends). It runs the program as a call
// does (the environment allow-list, its own process group, bounded
// output). A program that is not installed is endpoints.ErrUnavailable
// with the fix; one the endpoint does not drive is
// endpoints.ErrUnsupported.
func (e *Endpoint) Probe(ctx context.Context, name string) (path, version string, err error) {
	p, ok := e.find(name)
	if !ok {
		return "", "", fmt.Errorf("%w: the command endpoint does not run %q; it runs %s", endpoints.ErrUnsupported, name, e.known())
	}
	path, err = e.opts.LookPath(p.Executable())
	if err != nil {
		return "", "", e.missing(p, p.Executable()+" is not installed (not on PATH)")
	}
	if len(p.Version) == 0 {
		return path, "", nil
	}
	out, err := e.probe(ctx, p, path, p.Version)
	if err != nil {
		return path, "", nil // found; it says no version this way
	}
	return path, versionPattern.FindString(firstLine(out)), nil
}
