package command_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/command"
)

// TestProbeFindsProgramsAndVersions: every program the endpoint drives is
// listed with the package that installs it; Probe finds one and reads its
// version, names the package for one that is missing, says nothing of a
// version a program does not give, and ends with its context when the
// program hangs.
func TestProbeFindsProgramsAndVersions(t *testing.T) {
	t.Parallel()
	var names []string
	for _, p := range command.New(command.Options{}).Declared() {
		if p.Package == "" || len(p.Tasks) == 0 {
			t.Errorf("program %+v lacks its package or tasks", p)
		}
		names = append(names, p.Name)
	}
	for _, want := range []string{"tesseract", "espeak-ng", "ffmpeg"} {
		if !slices.Contains(names, want) {
			t.Errorf("programs %v lack %s", names, want)
		}
	}
	bin := t.TempDir()
	script := func(name, body string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script("tesseract", `echo "tesseract 5.3.0"; echo " leptonica-1.82.0"`)
	script("ffmpeg", `[ "$1" = -version ] && echo "ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026" || exit 1`)
	script("espeak-ng", `echo "ERROR: Unknown option -" >&2; exit 1`)
	look := func(name string) (string, error) {
		p := filepath.Join(bin, name)
		if _, err := os.Stat(p); err != nil {
			return "", errors.New("not found")
		}
		return p, nil
	}
	ep := command.New(command.Options{LookPath: look})
	ctx := context.Background()
	for name, want := range map[string]string{"tesseract": "5.3.0", "ffmpeg": "5.1.9-0+deb12u1", "espeak-ng": ""} {
		path, version, err := ep.Probe(ctx, name)
		if err != nil || path != filepath.Join(bin, name) || version != want {
			t.Errorf("%s: %q %q %v, want version %q", name, path, version, err, want)
		}
	}
	os.Remove(filepath.Join(bin, "tesseract"))
	if _, _, err := ep.Probe(ctx, "tesseract"); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install tesseract-ocr") {
		t.Errorf("missing tesseract: %v", err)
	}
	script("ffmpeg", "exec sleep 60")
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, _, err := ep.Probe(short, "ffmpeg"); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a hanging program: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("a hanging program held the probe for %s", time.Since(start))
	}
	if _, _, err := ep.Probe(ctx, "no-such-program"); err == nil {
		t.Error("a program the endpoint does not drive was probed")
	}
}
