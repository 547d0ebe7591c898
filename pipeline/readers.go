package pipeline

import (
	"fmt"
	"maps"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

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

// argReader is r for the argument k of skill s: a path, or a JSON list
// or object, as the tool's schema says.
func argReader(r scope.Reader, s *skills.Skill, k string) scope.Reader {
	if !r.Tool || s == nil || s.Tool == nil {
		return r
	}
	p := s.Tool.Params[k]
	r.Path, r.Structured = p.IsPath(), p.IsStructured()
	return r
}

// choiceRoutes are the routes a chosen task may run on.
func choiceRoutes(c *choice) []route {
	var out []route
	if c == nil {
		return nil
	}
	for _, cand := range c.ranked {
		for _, ep := range cand.routes {
			out = append(out, route{ep: ep, model: cand.model.ID})
		}
	}
	return out
}

// skillRoutes are the routes the models a skill lists may run on, for the
// validator's look before models are chosen.
func (e *Engine) skillRoutes(s *skills.Skill) []route {
	var out []route
	if s == nil || e.router == nil {
		return nil
	}
	for _, m := range s.Models {
		for _, ep := range e.router.Routes(m, false) {
			out = append(out, route{ep: ep, model: m.ID})
		}
	}
	return out
}

// skillReader is how a skill's models read its arguments' paths on turn
// t, for the validator.
func (e *Engine) skillReader(t Turn) func(*skills.Skill) scope.Reader {
	return func(s *skills.Skill) scope.Reader { return readerOf(e.skillRoutes(s), t.Workspace) }
}

// gatedNotes say which values the gate handed over as another spelling
// (the absolute path it judged), for --debug and the log.
func gatedNotes(before, after map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(after) {
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
	for _, k := range sortedKeys(args) {
		if a, _ := s.Arg(k); a.Type.Media() {
			continue
		}
		v, err := sc.GateFor(args[k], argReader(r, s, k))
		if err != nil {
			return nil, k, err
		}
		out[k] = v
	}
	return out, "", nil
}

// joinNotes is one debug line of the gate's notes.
func joinNotes(notes []string) string { return strings.Join(notes, "; ") }
