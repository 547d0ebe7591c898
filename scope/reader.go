package scope

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Base is a folder a tool may resolve a relative path from, and how a
// refusal names it ("the MCP server fs's allowed folder"): the user is
// told which reading put the path outside what they gave.
type Base struct {
	Dir  string
	Name string
}

// Reader is what the gate knows of how the tool a value goes to reads
// it. Chorus's own experts (a model, a built-in) open nothing a value
// names, so the zero Reader judges a value as Gate always has; a tool
// that opens, writes or fetches what its arguments name (an MCP tool)
// is judged by where it would look, and gets what was judged.
type Reader struct {
	// Tool: the value goes to a tool that acts on what it names. Its
	// whole value, when it names a file or is a path the tool could
	// create, is handed over as the absolute path judged; a path naming
	// nothing yet must lie in a folder the user gave or the outputs
	// folder; and every URL in it passes the tool-URL rule (CheckToolURL).
	Tool bool
	// Path: the tool's input schema names or describes the argument as a
	// path, file or folder, so its whole value is a path whatever its
	// shape ("notes", not only "./notes").
	Path bool
	// Structured: the argument is a JSON array or object to the tool
	// (read_multiple_files' paths): each string in it is a whole value of
	// its own, judged and handed over as the whole value is.
	Structured bool
	// Dirs are the folders the tool resolves a relative path from besides
	// Chorus's own (the folder a program runs in, the folders its command
	// line allows).
	Dirs []Base
	// Homes are what the tool expands "~" to besides HOME.
	Homes []Base
	// Unknown: the tool resolves a relative path from a folder Chorus
	// cannot know (an HTTP MCP server), so a relative path is refused,
	// asking for the full one.
	Unknown bool
}

// GateFor judges value on its way to a tool that reads it as r — by
// Gate's rule, from every folder r says the tool may resolve a relative
// path from — and returns what the tool is to get: the value itself, or,
// for a tool whose folders Chorus knows, the absolute path the gate
// judged in place of a whole value (or a string of a Structured one) that
// names a file or a path the tool could create. A refusal is a
// *DeniedError naming the path, the folder that put it outside the grant,
// and the fix.
func (s *Scope) GateFor(value string, r Reader) (string, error) {
	g := newGate(s, r)
	out := value
	if r.Structured && isJSONContainer(value) {
		rw, err := g.structured(value)
		if err != nil {
			return "", err
		}
		out = rw
	} else {
		rw, err := g.argument(value)
		if err != nil {
			return "", err
		}
		if rw != "" {
			out = rw
		}
	}
	if err := g.value(value, true, 0); err != nil {
		return "", err
	}
	if err := g.urls(value); err != nil {
		return "", err
	}
	return out, nil
}

// isJSONContainer reports whether v is a JSON array or object.
func isJSONContainer(v string) bool {
	t := strings.TrimSpace(v)
	return t != "" && (t[0] == '[' || t[0] == '{') && json.Valid([]byte(t))
}

// structured judges every string of the JSON value v as a whole value of
// its own (an object's keys as text the tool may read), and returns v
// with each string that is a path replaced by the path judged; v itself
// when none is.
func (g *gate) structured(v string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return v, nil
	}
	changed := false
	var walk func(any) (any, error)
	walk = func(x any) (any, error) {
		switch x := x.(type) {
		case string:
			rw, err := g.argument(x)
			if err != nil || rw == "" {
				return x, err
			}
			changed = changed || rw != x
			return rw, nil
		case []any:
			for i, e := range x {
				w, err := walk(e)
				if err != nil {
					return nil, err
				}
				x[i] = w
			}
		case map[string]any:
			for k, e := range x {
				if err := g.check(k, kindWhole); err != nil {
					return nil, err
				}
				w, err := walk(e)
				if err != nil {
					return nil, err
				}
				x[k] = w
			}
		}
		return x, nil
	}
	x, err := walk(x)
	if err != nil || !changed {
		return v, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return v, nil
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
