package skills

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/text"
)

// Tool marks a skill that is one tool of an MCP server the user
// configured (endpoints/mcp builds it from the server's tools/list): the
// plan writes its arguments as strings, as for every skill, and Tool
// converts them to what the tool's inputSchema asks — numbers, booleans,
// arrays, enums — repairing near misses and refusing, with the argument
// named, what cannot be converted. The validator does it before anything
// runs; the endpoint again at call time, when <resource>-N has become a
// value.
type Tool struct {
	// Server is the configured server's name, Name the tool's own name
	// (the skill is "<Server>.<Name>").
	Server string `json:"server"`
	Name   string `json:"name"`
	// Title is the tool's human title, when it has one.
	Title string `json:"title,omitempty"`
	// ReadOnly and Destructive are the tool's annotations
	// (readOnlyHint, destructiveHint). A tool that is not read-only, or
	// is destructive, asks before it runs.
	ReadOnly    bool `json:"read_only,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
	// Trusted says the operator trusts the server's annotations
	// (mcp[].trust): only then does ReadOnly let the tool run unasked —
	// an annotation is the server's own claim, which a destructive tool
	// can make as easily as a harmless one. TrustKey names the setting
	// ("mcp[0].trust") for the reason an untrusted tool asks.
	Trusted  bool   `json:"trusted,omitempty"`
	TrustKey string `json:"-"`
	// Params are the tool's arguments by the skill's argument name (the
	// property's name in lower case: plans are read case-insensitively).
	Params map[string]Param `json:"params,omitempty"`
}

// Param is one property of a tool's inputSchema.
type Param struct {
	// Property is the name the tool knows it by (its case kept).
	Property string `json:"property"`
	// Schema is the property's JSON Schema.
	Schema *Schema `json:"schema,omitempty"`
}

// pathWords are the words of a property's name, or its description,
// that say it takes a path.
var pathWords = []string{"path", "paths", "file", "files", "filename", "filenames", "filepath", "dir", "dirs", "directory", "directories", "folder", "folders"}

// IsPath reports whether the tool's input schema names or describes the
// argument as a path, a file or a folder ("path", "filePath",
// "directory", "Path to the file to read"): its whole value is a path
// to the tool whatever its shape, judged as one (scope.Reader.Path).
func (p Param) IsPath() bool {
	switch p.Schema.Kind() {
	case "number", "integer", "boolean", "object":
		return false
	}
	for _, w := range text.Words(p.Property) {
		if slices.Contains(pathWords, w) {
			return true
		}
	}
	if p.Schema == nil {
		return false
	}
	// What the description is about comes first: "Path to the file",
	// "The directory to list", "Array of file paths" — not "Content to
	// write to the file".
	for _, d := range []string{p.Schema.Title, p.Schema.Description} {
		words := text.Words(d)
		for _, w := range words[:min(3, len(words))] {
			if slices.Contains(pathWords, w) {
				return true
			}
		}
	}
	return p.Schema.Items != nil && (Param{Schema: p.Schema.Items}).IsPath()
}

// IsStructured reports whether the tool takes the argument as a JSON
// array or object (read_multiple_files' paths): each string in it is a
// value of its own.
func (p Param) IsStructured() bool {
	k := p.Schema.Kind()
	return k == "array" || k == "object"
}

// NeedsApproval says why the tool must be approved before it runs — it
// may change things — or "" when it is annotated read-only, not
// destructive, and its server is trusted to say so.
func (t *Tool) NeedsApproval() string {
	switch {
	case t == nil:
		return ""
	case t.Destructive:
		return "it is annotated destructive"
	case !t.ReadOnly:
		return "it is not annotated read-only, so it may change things"
	case !t.Trusted:
		key := t.TrustKey
		if key == "" {
			key = "mcp[].trust"
		}
		return "it says it is read-only, but its server is not marked trusted (" + key + "), so that claim is not relied on"
	}
	return ""
}

// Qualified is the tool's skill name, "<server>.<tool>".
func (t *Tool) Qualified() string { return t.Server + "." + t.Name }

// Schema is the part of JSON Schema tool arguments use.
type Schema struct {
	Type             SchemaType         `json:"type,omitempty"`
	Enum             []any              `json:"enum,omitempty"`
	Const            any                `json:"const,omitempty"`
	Items            *Schema            `json:"items,omitempty"`
	Properties       map[string]*Schema `json:"properties,omitempty"`
	Required         []string           `json:"required,omitempty"`
	AnyOf            []*Schema          `json:"anyOf,omitempty"`
	OneOf            []*Schema          `json:"oneOf,omitempty"`
	Default          any                `json:"default,omitempty"`
	Description      string             `json:"description,omitempty"`
	Title            string             `json:"title,omitempty"`
	Format           string             `json:"format,omitempty"`
	ContentMediaType string             `json:"contentMediaType,omitempty"`
	ContentEncoding  string             `json:"contentEncoding,omitempty"`
	Minimum          *float64           `json:"minimum,omitempty"`
	Maximum          *float64           `json:"maximum,omitempty"`
	MinItems         *int               `json:"minItems,omitempty"`
	MaxItems         *int               `json:"maxItems,omitempty"`
}

// SchemaType is JSON Schema's "type": one name or a list of them.
type SchemaType []string

// UnmarshalJSON reads "type": "integer" and "type": ["integer", "null"].
func (t *SchemaType) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = SchemaType{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("type is neither a name nor a list of names")
	}
	*t = many
	return nil
}

// MarshalJSON writes one name as a string.
func (t SchemaType) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// Has reports whether the schema admits JSON type name.
func (t SchemaType) Has(name string) bool { return slices.Contains(t, name) }

// alternatives are the schemas a value may satisfy: the schema itself, or
// each of its anyOf / oneOf branches (Pydantic writes Optional[int] as
// anyOf [{type: integer}, {type: null}]), null branches left out.
func (s *Schema) alternatives() []*Schema {
	branches := append(slices.Clone(s.AnyOf), s.OneOf...)
	if len(branches) == 0 {
		return []*Schema{s}
	}
	var out []*Schema
	for _, b := range branches {
		if b == nil || (len(b.Type) == 1 && b.Type[0] == "null") {
			continue
		}
		if len(s.Enum) > 0 && len(b.Enum) == 0 {
			c := *b
			c.Enum = s.Enum
			b = &c
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return []*Schema{s}
	}
	return out
}

// Kind is the schema's main JSON type, for listings ("number",
// "boolean", "array"…); "" when it does not say.
func (s *Schema) Kind() string {
	if s == nil {
		return ""
	}
	alt := s.alternatives()[0]
	for _, t := range alt.Type {
		if t != "null" {
			return t
		}
	}
	if len(alt.Enum) > 0 {
		return "enum"
	}
	return ""
}

// ArgError is an argument a tool cannot take, named, with why.
type ArgError struct {
	Arg string
	Msg string
}

func (e *ArgError) Error() string { return fmt.Sprintf("argument %s: %s", e.Arg, e.Msg) }

// Convert turns value, as a plan wrote it, into the JSON value the
// schema asks for. note says what was repaired ("" when the value was
// already right); an error says why no repair was possible.
func (s *Schema) Convert(value string) (v any, note string, err error) {
	if s == nil {
		return value, "", nil
	}
	alts := s.alternatives()
	var firstErr error
	for _, a := range alts {
		v, note, err := a.convertOne(value)
		if err == nil {
			return v, note, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, "", firstErr
}

// convertOne converts value for a schema without alternatives.
func (s *Schema) convertOne(value string) (any, string, error) {
	types := slices.DeleteFunc(slices.Clone([]string(s.Type)), func(t string) bool { return t == "null" })
	if len(types) == 0 {
		switch {
		case len(s.Enum) > 0:
			return s.pickEnum(value)
		case s.Const != nil:
			return s.Const, "", nil
		case s.Items != nil:
			types = []string{"array"}
		case len(s.Properties) > 0:
			types = []string{"object"}
		default:
			// No type: the value as written.
			return value, "", nil
		}
	}
	var firstErr error
	for _, t := range types {
		v, note, err := s.convertType(t, value)
		if err == nil {
			return v, note, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, "", firstErr
}

func (s *Schema) convertType(t, value string) (any, string, error) {
	trimmed := strings.TrimSpace(value)
	switch t {
	case "string":
		if len(s.Enum) > 0 {
			return s.pickEnum(value)
		}
		return value, "", nil
	case "integer", "number":
		n, note, err := parseNumber(trimmed, t == "integer")
		if err != nil {
			return nil, "", err
		}
		if err := s.inRange(n); err != nil {
			return nil, "", err
		}
		var v any = n
		if t == "integer" {
			v = int64(n)
		}
		if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { f, ok := e.(float64); return ok && f == n }) {
			return nil, "", fmt.Errorf("%s is not one of %s", trimmed, enumList(s.Enum))
		}
		return v, note, nil
	case "boolean":
		switch l := strings.ToLower(strings.Trim(trimmed, `"'`)); l {
		case "true", "false":
			if l != trimmed {
				return l == "true", fmt.Sprintf("read %q as %s", value, l), nil
			}
			return l == "true", "", nil
		case "yes", "y", "on", "1":
			return true, fmt.Sprintf("read %q as true", value), nil
		case "no", "n", "off", "0":
			return false, fmt.Sprintf("read %q as false", value), nil
		}
		return nil, "", fmt.Errorf("%q is not true or false", clip(value))
	case "array":
		return s.convertArray(trimmed)
	case "object":
		var m map[string]any
		if err := json.Unmarshal([]byte(trimmed), &m); err != nil || m == nil {
			return nil, "", fmt.Errorf("%q is not a JSON object", clip(value))
		}
		for _, r := range s.Required {
			if _, ok := m[r]; !ok {
				return nil, "", fmt.Errorf("the object has no %q", r)
			}
		}
		return m, "", nil
	case "null":
		return nil, "", nil
	}
	return nil, "", fmt.Errorf("the tool asks for an unknown type %q", t)
}

// convertArray reads a JSON array, or the comma-separated list a plan
// writes (the plan parser joins a JSON list with commas), converting each
// item to the items' schema.
func (s *Schema) convertArray(value string) (any, string, error) {
	var raw []any
	note := ""
	if strings.HasPrefix(value, "[") && json.Unmarshal([]byte(value), &raw) == nil {
		// Items written as JSON keep their JSON types.
	} else {
		raw = nil
		if value != "" {
			for _, part := range strings.Split(value, ",") {
				raw = append(raw, strings.TrimSpace(part))
			}
		}
	}
	out := make([]any, 0, len(raw))
	for i, item := range raw {
		str, isStr := item.(string)
		if !isStr {
			b, _ := json.Marshal(item)
			str = string(b)
			if s.Items != nil && s.Items.Kind() == "string" {
				str = strings.Trim(str, `"`)
			}
		}
		v, n, err := s.Items.Convert(str)
		if err != nil {
			return nil, "", fmt.Errorf("item %d: %w", i+1, err)
		}
		if n != "" {
			note = joinNote(note, fmt.Sprintf("item %d: %s", i+1, n))
		}
		out = append(out, v)
	}
	if s.MinItems != nil && len(out) < *s.MinItems {
		return nil, "", fmt.Errorf("has %d items, the tool needs at least %d", len(out), *s.MinItems)
	}
	if s.MaxItems != nil && len(out) > *s.MaxItems {
		return nil, "", fmt.Errorf("has %d items, the tool takes at most %d", len(out), *s.MaxItems)
	}
	return out, note, nil
}

// pickEnum matches value to one of the allowed values: exactly, then
// ignoring case and separators, then the one nearest misspelling.
func (s *Schema) pickEnum(value string) (any, string, error) {
	v := strings.TrimSpace(value)
	for _, e := range s.Enum {
		if fmt.Sprint(e) == v {
			return e, "", nil
		}
	}
	norm := func(x string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(x))
	}
	for _, e := range s.Enum {
		if norm(fmt.Sprint(e)) == norm(v) {
			return e, fmt.Sprintf("read %q as %q", clip(value), fmt.Sprint(e)), nil
		}
	}
	var best any
	bestD, tie := 1<<30, false
	for _, e := range s.Enum {
		d := text.Distance(norm(v), norm(fmt.Sprint(e)))
		switch {
		case d < bestD:
			best, bestD, tie = e, d, false
		case d == bestD:
			tie = true
		}
	}
	if best != nil && !tie && bestD <= max(1, len(norm(v))/4) {
		return best, fmt.Sprintf("read %q as %q", clip(value), fmt.Sprint(best)), nil
	}
	return nil, "", fmt.Errorf("%q is not one of %s", clip(value), enumList(s.Enum))
}

func (s *Schema) inRange(n float64) error {
	if s.Minimum != nil && n < *s.Minimum {
		return fmt.Errorf("%v is below the minimum %v", n, *s.Minimum)
	}
	if s.Maximum != nil && n > *s.Maximum {
		return fmt.Errorf("%v is above the maximum %v", n, *s.Maximum)
	}
	return nil
}

// parseNumber reads a number as models write one: "3", " 3.0 ", "1,000",
// "\"7\"", "1e3". A whole value written with a fraction of zero is an
// integer; "2.5" is not.
func parseNumber(s string, integer bool) (float64, string, error) {
	orig := s
	s = strings.Trim(s, `"'`)
	note := ""
	if strings.Count(s, ",") > 0 && thousands(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		want := "a number"
		if integer {
			want = "an integer"
		}
		return 0, "", fmt.Errorf("%q is not %s", clip(orig), want)
	}
	if integer && n != math.Trunc(n) {
		return 0, "", fmt.Errorf("%q is not an integer", clip(orig))
	}
	if canon := strconv.FormatFloat(n, 'f', -1, 64); canon != orig {
		note = fmt.Sprintf("read %q as %s", clip(orig), canon)
	}
	return n, note, nil
}

// thousands reports whether s groups digits in threes with commas.
func thousands(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, _, _ := strings.Cut(s, ".")
	groups := strings.Split(intPart, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

func enumList(enum []any) string {
	parts := make([]string, 0, len(enum))
	for _, e := range enum {
		parts = append(parts, fmt.Sprint(e))
	}
	return strings.Join(parts, ", ")
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func clip(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// Canonical renders a converted value as the plan's string form: a value
// the converter reads back unchanged.
func Canonical(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// ConvertArgs converts a task's arguments (by skill argument name) into
// the tool's arguments (by property name), in the schema's types. notes
// list the repairs; an *ArgError names the first argument that cannot be
// converted. Arguments the tool does not know are left out: the validator
// has already said so.
func (t *Tool) ConvertArgs(args map[string]string) (map[string]any, []string, error) {
	out := map[string]any{}
	var notes []string
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		p, ok := t.Params[k]
		if !ok {
			continue
		}
		v, note, err := p.Schema.Convert(args[k])
		if err != nil {
			return nil, notes, &ArgError{Arg: k, Msg: err.Error()}
		}
		if note != "" {
			notes = append(notes, "argument "+k+": "+note)
		}
		out[p.Property] = v
	}
	return out, notes, nil
}
