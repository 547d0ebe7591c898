package pipeline

import (
	"path/filepath"
	"regexp"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// What a turn may touch is decided once, here, by package scope: the files
// the user attached, the paths and URLs they typed in this request or an
// earlier one of the session, the files of earlier turns (the chat log),
// and the files Chorus writes in its output directory this turn. Every reader of the pipeline — the validator,
// the executor's arguments, the controller's images, the quoted text files
// — and every endpoint (through endpoints.Request.Files) goes through it;
// nothing a model or an expert wrote can widen it, except that a URL a task
// returned may be fetched (never a private address).

// outDir returns a turn's output directory, absolute: dir
// (Turn.OutputDir), else the engine's.
func (e *Engine) outDir(dir string) string {
	if dir == "" {
		dir = e.opts.OutputDir
	}
	return e.abs(dir)
}

// abs is dir made absolute from the engine's working folder
// (Options.WorkDir; the process's when none was given).
func (e *Engine) abs(dir string) string {
	if !filepath.IsAbs(dir) && e.opts.WorkDir != "" {
		return filepath.Join(e.opts.WorkDir, dir)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// grants builds the turn's scope: what it may read and fetch. Called once,
// by newTurnRun.
func (tr *turnRun) grants() *scope.Scope {
	t := tr.t
	o := scope.Options{Root: t.Workspace, Outputs: tr.outDir, ProcessHome: tr.e.opts.Home, ProcessDir: tr.e.opts.WorkDir}
	if t.Workspace == "" {
		o.Home, o.WorkDir = tr.e.opts.Home, tr.e.opts.WorkDir
	}
	sc := scope.New(o)
	for _, a := range t.Attachments {
		_ = sc.Allow(a, scope.Attached) // a file, or a folder and what is in it
	}
	sc.AllowTyped(t.Request)
	for _, g := range t.Earlier {
		for _, a := range g.Attachments {
			_ = sc.Allow(a, scope.ChatLog)
		}
		sc.AllowTyped(g.Request)
	}
	// The chat log comes from the session file, which anything that can
	// write there may have edited: loading it grants nothing by itself. Its
	// files are granted only when Chorus wrote them — in an output
	// directory, under a name it gives (really there, not a link out) —
	// or when they pass the rule now (attached or typed this turn, or in
	// an earlier turn of this chat: Earlier, above).
	dirs := []string{tr.outDir}
	if abs := tr.e.abs(tr.e.opts.OutputDir); abs != dirs[0] {
		dirs = append(dirs, abs)
	}
	for _, m := range t.History {
		for _, r := range m.Resources {
			if !OutputName(filepath.Base(r)) {
				continue
			}
			for _, d := range dirs {
				if sc.AllowFileUnder(r, d, scope.ChatLog) {
					break
				}
			}
		}
	}
	// The output directory grants nothing by itself either — with --out .
	// it is the working directory, and anyone may have put files there:
	// the files Chorus writes are granted one by one as they are written
	// (keepResult, download).
	return sc
}

// outputNames is the form of the names writeBlob gives the files Chorus
// writes: when, the task, its id, six random hex digits, the extension.
var outputNames = regexp.MustCompile(`^\d{8}-\d{6}-[A-Za-z0-9_-]+-\d+-[0-9a-f]{6}(\.[A-Za-z0-9]+)?$`)

// OutputName reports whether name (a file name, no folder) has the form
// of the names Chorus gives the files it writes in its output directory —
// results, downloads, annotated images: a session's file of another form
// was not written by Chorus, and grants nothing.
func OutputName(name string) bool { return outputNames.MatchString(name) }

// namedMedia returns the media files (images, audio, video) whose paths
// the user typed in the request and the turn may read, resolved, leaving
// out those also attached. A turn treats them as attachments: a vision
// controller sees the images when it plans and answers, the validator
// resolves "this image" to them, and the session keeps them as the turn's
// resources for later turns (Report.Named).
func (tr *turnRun) namedMedia() []string {
	t, sc := tr.t, tr.sc
	attached := map[string]bool{}
	for _, a := range t.Attachments {
		if f, err := sc.Check(a); err == nil {
			attached[f.Path()] = true
		}
	}
	var out []string
	for _, p := range sc.Named(t.Request) {
		if attached[p] {
			continue
		}
		switch flow.ModalityOf(p) {
		case skills.Image, skills.Audio, skills.Video:
		default:
			continue
		}
		if _, err := sc.Check(p); err != nil {
			continue
		}
		out = append(out, p)
	}
	return out
}
