package command

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
)

// Program is a local program the endpoint drives, for a list of them that
// follows the endpoint's own (chorus doctor): a program added here is
// checked there with no change.
type Program struct {
	// Name is the program's name on PATH ("tesseract").
	Name string
	// Package is the Debian package that installs it ("tesseract-ocr").
	Package string
	// Tasks are the tasks it can do.
	Tasks []string
}

// Programs lists the programs the endpoint drives, in its order.
func Programs() []Program {
	out := make([]Program, len(programs))
	for i, p := range programs {
		out[i] = Program{Name: p.name, Package: p.pkg, Tasks: append([]string(nil), p.tasks...)}
	}
	return out
}

// versionArgs are the arguments that make a program say its version;
// --version when it is not listed.
var versionArgs = map[string][]string{"ffmpeg": {"-version"}}

// versionPattern finds a version in what a program says: "5.3.0",
// "1.51", "5.1.9-0+deb12u1".
var versionPattern = regexp.MustCompile(`\b\d+(\.\d+)+[0-9A-Za-z.+~-]*`)

// Probe finds the program name where the endpoint would run it and asks
// its version: its path, and the version it gives ("" when it gives none,
// or does not answer before ctx ends). A program that is not installed is
// endpoints.ErrUnavailable with the package to install; one the endpoint
// does not drive is endpoints.ErrUnsupported.
func (e *Endpoint) Probe(ctx context.Context, name string) (path, version string, err error) {
	p, ok := findProgram(name)
	if !ok {
		return "", "", fmt.Errorf("%w: the command endpoint does not run %q; it runs %s", endpoints.ErrUnsupported, name, knownPrograms())
	}
	path, err = e.opts.LookPath(p.name)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s is not installed — apt-get install %s", endpoints.ErrUnavailable, p.name, p.pkg)
	}
	args, ok := versionArgs[p.name]
	if !ok {
		args = []string{"--version"}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = time.Second // a child that keeps the output open
	var out bytes.Buffer
	cmd.Stdout = &limited{w: &out, n: 4096}
	if cmd.Run() != nil {
		return path, "", nil // found; it says no version this way
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	return path, versionPattern.FindString(first), nil
}

// limited keeps the first n bytes written to it and drops the rest.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		_, _ = l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}
