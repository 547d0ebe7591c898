package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/chorusai/chorus/endpoints"
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

// outDir returns the turn's output directory, absolute.
func (e *Engine) outDir(t Turn) string {
	dir := t.OutputDir
	if dir == "" {
		dir = e.opts.OutputDir
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// turnScope builds the scope of turn t.
func (e *Engine) turnScope(t Turn) *scope.Scope {
	sc := scope.New(scope.Options{Root: t.Workspace, Outputs: e.outDir(t)})
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
	dirs := []string{e.outDir(t)}
	if abs, err := filepath.Abs(e.opts.OutputDir); err == nil && abs != dirs[0] {
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

// access returns the turn's scope, building it when the turn did not come
// through Run (a validation on its own).
func (e *Engine) access(t Turn) *scope.Scope {
	if t.scope != nil {
		return t.scope
	}
	return e.turnScope(t)
}

// refusal is the note a refused path leaves: scope's DeniedError names the
// path, why it was refused and how to grant it; any other error as it is.
func refusal(err error) string {
	var de *scope.DeniedError
	if errors.As(err, &de) {
		return de.Error()
	}
	return err.Error()
}

// gateArgs is the one gate every argument value of a task passes after
// resolution, whatever kind of endpoint — or the controller — runs it: a
// media argument becomes a checked file (endpoints.Request.Files, the only
// files an endpoint reads), and every other value goes through
// scope.GateFor as the task's routes read it (readerOf), which refuses it
// when any path it could name — whole or in a sentence, through file://,
// ~, percent-encoding or a link, written by the plan or arriving as
// another task's output, from any folder a tool reads it from — is not
// one the turn may read, and for a tool gives the value it is to get: the
// absolute path judged in place of a relative or unclean one. A refusal
// names the path and the fix; nothing of the file is read.
func gateArgs(sc *scope.Scope, s *skills.Skill, args map[string]string, r scope.Reader) (map[string]scope.File, map[string]string, error) {
	files := map[string]scope.File{}
	gated, k, err := gateValues(sc, s, args, r)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: argument %s: %s", endpoints.ErrBadInput, k, refusal(err))
	}
	for _, k := range sortedKeys(args) {
		v := args[k]
		if a, _ := s.Arg(k); !a.Type.Media() || strings.TrimSpace(v) == "" {
			continue
		}
		f, err := sc.Check(v)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("%w: %s file %s does not exist", endpoints.ErrBadInput, k, v)
		case err != nil:
			return nil, nil, fmt.Errorf("%w: argument %s: %s", endpoints.ErrBadInput, k, refusal(err))
		}
		files[k] = f
	}
	return files, gated, nil
}

// gateArgs is the validator's early look through the same gate, at the
// values the plan wrote (its <resource>-N references are judged when they
// have their values, by the executor's gateArgs), as the skill's models
// would read them: a task naming a path the turn may not read is dropped
// before anything runs, with a note naming the path and the fix; a value
// without references goes on as the tool is to get it (the path judged),
// so the plan shown is what runs.
func (v *validator) gateArgs(t *Task, s *skills.Skill) {
	if _, gone := v.dropped[t.ID]; gone || s == nil {
		return
	}
	r := scope.Reader{}
	if v.reader != nil {
		r = v.reader(s)
	}
	for _, k := range sortedKeys(t.Args) {
		if a, _ := s.Arg(k); a.Type.Media() {
			continue // checked as a file (checkArgs)
		}
		val := resourceRef.ReplaceAllString(t.Args[k], " ")
		got, err := v.scope.GateFor(val, argReader(r, s, k))
		if err != nil {
			var de *scope.DeniedError
			what := val
			if errors.As(err, &de) {
				what = de.What
			}
			v.refuse(*t, what, err)
			return
		}
		if val == t.Args[k] && got != val {
			t.Args[k] = got
		}
	}
}

// maxTextFile bounds a text file read into a text argument.
const maxTextFile = 256 << 10

// textFileContent reads a text argument that is exactly the path of a text
// file the turn may read ("summarize notes.txt", planned as text:
// /…/notes.txt): the task wants the words, not the file name. isFile is
// false when val is not such a path (the gate has refused one the turn
// may not read); err says why an allowed text file cannot be used — a task
// given the file's name instead of its words would silently answer about
// the wrong thing.
func textFileContent(sc *scope.Scope, val string) (content string, isFile bool, err error) {
	p := strings.TrimSpace(val)
	if p == "" || strings.ContainsAny(p, "\n") || len(p) > 4096 || sc.Outside(p) != nil || ModalityOf(p) != skills.Text {
		return "", false, nil
	}
	f, err := sc.Check(p)
	if err != nil {
		return "", false, nil // not a file it may read: it is text
	}
	b, err := f.ReadAll(maxTextFile)
	switch {
	case errors.Is(err, scope.ErrTooLarge):
		size := int64(0)
		if st, serr := os.Stat(f.Path()); serr == nil {
			size = st.Size()
		}
		return "", true, fmt.Errorf("%s is %s; a text argument takes at most %d KB of a file — split it, or quote the part that matters",
			p, skills.HumanBytes(size), maxTextFile>>10)
	case err != nil:
		return "", true, fmt.Errorf("cannot read %s: %w", p, err)
	}
	// Text in another encoding keeps its ASCII; the rest shows as U+FFFD.
	return strings.ToValidUTF8(string(b), "\uFFFD"), true, nil
}

// fileTexts puts the words of a text file in place of its path, for a text
// argument whose planned value (not another task's output) is the path of
// a text file the turn may read, once the gate has passed it. A tool's
// argument stays the path: the tool was asked for a path.
func fileTexts(sc *scope.Scope, t Task, s *skills.Skill, args map[string]string) error {
	if s.Tool != nil {
		return nil
	}
	for _, k := range sortedKeys(args) {
		if a, _ := s.Arg(k); a.Type != skills.Text || len(Refs(t.Args[k])) > 0 {
			continue
		}
		content, isFile, err := textFileContent(sc, args[k])
		switch {
		case err != nil:
			return fmt.Errorf("argument %s: %w", k, err)
		case isFile:
			args[k] = content
		}
	}
	return nil
}

// maxDownload bounds a media argument fetched from a URL.
const maxDownload = 100 << 20

// download fetches a media argument's URL through the turn's scope into
// the output directory, streaming it to disk.
func download(ctx context.Context, sc *scope.Scope, url, dir string) (string, error) {
	if err := sc.CheckURL(url); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".download-*.part")
	if err != nil {
		return "", fmt.Errorf("cannot download %s: %w", url, err)
	}
	mt, err := sc.Fetch(ctx, url, tmp, scope.FetchOptions{MaxBytes: maxDownload})
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	p, err := writeBlob(dir, "download", 0, endpoints.Blob{MIME: mt, Path: tmp.Name()})
	if err == nil {
		sc.AllowFile(p, scope.Output) // Chorus wrote it: the task may read it
	}
	return p, err
}

// allowResultURLs lets later tasks of the turn fetch the URLs a task's
// result names — a search hit, a generated file served by URL — as public
// addresses only.
func allowResultURLs(sc *scope.Scope, text string) {
	for _, u := range scope.URLsIn(text) {
		sc.AllowURL(u, scope.Result)
	}
}

// namedMedia returns the media files (images, audio, video) whose paths
// the user typed in the request and the turn may read, resolved, leaving
// out those also attached. A turn treats them as attachments: a vision
// controller sees the images when it plans and answers, the validator
// resolves "this image" to them, and the session keeps them as the turn's
// resources for later turns (Report.Named).
func (e *Engine) namedMedia(t Turn) []string {
	sc := e.access(t)
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
		switch ModalityOf(p) {
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
