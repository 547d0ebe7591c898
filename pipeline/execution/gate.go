package execution

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

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
	for _, k := range slices.Sorted(maps.Keys(args)) {
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

// fileTexts puts the words of a text file in place of its path, for a text
// argument whose planned value (not another task's output) is the path of
// a text file the turn may read, once the gate has passed it. A tool's
// argument stays the path: the tool was asked for a path.
func fileTexts(sc *scope.Scope, t flow.Task, s *skills.Skill, args map[string]string) error {
	if s.Tool != nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if a, _ := s.Arg(k); a.Type != skills.Text || len(flow.Refs(t.Args[k])) > 0 {
			continue
		}
		content, isFile, err := flow.TextFile(sc, args[k])
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

// A tool acts on what its arguments name — an MCP tool opens the path it
// is given, from its own folders, or fetches the URL — so the gate judges
// each value where the tool would look (scope.GateFor): from every folder
// any route of the task reads a relative path from, and hands the tool
// the path it judged. What the user sees — the approval, the report,
// --json, --debug — is that value.

// route is one way a task may run: an endpoint and the model on it.
type route struct {
	ep    endpoints.Endpoint
	model string
}

// readerOf is how the routes read the paths of a task's arguments,
// merged: a tool when any route acts on paths, from every folder any of
// them reads from, and of unknown folders when any is (an HTTP server).
// The zero Reader when none acts on paths (Chorus's own experts).
func readerOf(routes []route, workspace string) scope.Reader {
	var r scope.Reader
	for _, rt := range routes {
		pr, ok := rt.ep.(endpoints.PathReader)
		if !ok {
			continue
		}
		rr := pr.Reads(rt.model, workspace)
		if !rr.Tool {
			continue
		}
		r.Tool = true
		r.Unknown = r.Unknown || rr.Unknown
		r.Dirs = append(r.Dirs, rr.Dirs...)
		r.Homes = append(r.Homes, rr.Homes...)
	}
	return r
}

// choiceRoutes are the routes a chosen task may run on.
func choiceRoutes(c *flow.Choice) []route {
	var out []route
	if c == nil {
		return nil
	}
	for _, cand := range c.Ranked {
		for _, ep := range cand.Routes {
			out = append(out, route{ep: ep, model: cand.Model.ID})
		}
	}
	return out
}

// skillRoutes are the routes the models a skill lists may run on, for the
// validator's look before models are chosen.
func skillRoutes(router *endpoints.Router, s *skills.Skill) []route {
	var out []route
	if s == nil || router == nil {
		return nil
	}
	for _, m := range s.Models {
		for _, ep := range router.Routes(m, false) {
			out = append(out, route{ep: ep, model: m.ID})
		}
	}
	return out
}

// SkillReader is how a skill's models read its arguments' paths on turn
// t, for the validator.
func SkillReader(router *endpoints.Router, workspace string) func(*skills.Skill) scope.Reader {
	return func(s *skills.Skill) scope.Reader { return readerOf(skillRoutes(router, s), workspace) }
}

// gatedNotes say which values the gate handed over as another spelling
// (the absolute path it judged), for --debug and the log.
func gatedNotes(before, after map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		if before[k] != after[k] {
			out = append(out, fmt.Sprintf("argument %s: %q goes to the tool as %q, the path the gate judged", k, text.Clip(before[k], 120), text.Clip(after[k], 200)))
		}
	}
	return out
}

// gateValues passes each value of args that is not a media file through
// the gate as route reads it, and returns args with the values the tool
// is to get; refused names the argument whose value was refused.
func gateValues(sc *scope.Scope, s *skills.Skill, args map[string]string, r scope.Reader) (out map[string]string, refused string, err error) {
	out = maps.Clone(args)
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if a, _ := s.Arg(k); a.Type.Media() {
			continue
		}
		v, err := sc.GateFor(args[k], flow.ArgReader(r, s, k))
		if err != nil {
			return nil, k, err
		}
		out[k] = v
	}
	return out, "", nil
}

// joinNotes is one debug line of the gate's notes.
func joinNotes(notes []string) string { return strings.Join(notes, "; ") }
