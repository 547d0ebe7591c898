package skills

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func schemaOf(t *testing.T, js string) *Schema {
	t.Helper()
	var s Schema
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestSchemaConvert: what a plan writes (always a string) becomes the
// JSON value the tool's schema asks for, with a note for each repair and
// an error that says why for what cannot be repaired.
func TestSchemaConvert(t *testing.T) {
	for _, tc := range []struct {
		schema, in string
		want       any
		note       bool
		err        string
	}{
		{`{"type":"number"}`, "2", 2.0, false, ""},
		{`{"type":"number"}`, " 2.50 ", 2.5, true, ""},
		{`{"type":"number"}`, "1,000", 1000.0, true, ""},
		{`{"type":"number"}`, "three", nil, false, `"three" is not a number`},
		{`{"type":"integer"}`, "7", int64(7), false, ""},
		{`{"type":"integer"}`, "7.0", int64(7), true, ""},
		{`{"type":"integer"}`, "7.5", nil, false, "not an integer"},
		{`{"type":"integer","minimum":1,"maximum":10}`, "11", nil, false, "above the maximum 10"},
		{`{"type":"boolean"}`, "true", true, false, ""},
		{`{"type":"boolean"}`, "Yes", true, true, ""},
		{`{"type":"boolean"}`, "maybe", nil, false, "not true or false"},
		{`{"type":"string","enum":["celsius","fahrenheit"]}`, "celsius", "celsius", false, ""},
		{`{"type":"string","enum":["celsius","fahrenheit"]}`, "Celsius", "celsius", true, ""},
		{`{"type":"string","enum":["celsius","fahrenheit"]}`, "farenheit", "fahrenheit", true, ""},
		{`{"type":"string","enum":["celsius","fahrenheit"]}`, "kelvin", nil, false, "not one of celsius, fahrenheit"},
		{`{"enum":["error","success","debug"]}`, "SUCCESS", "success", true, ""},
		{`{"type":"array","items":{"type":"number"}}`, "1, 2,3", []any{1.0, 2.0, 3.0}, false, ""},
		{`{"type":"array","items":{"type":"number"}}`, "[1,2]", []any{1.0, 2.0}, false, ""},
		{`{"type":"array","items":{"type":"string"}}`, `["a","b"]`, []any{"a", "b"}, false, ""},
		{`{"type":"array","items":{"type":"integer"}}`, "1,x", nil, false, `item 2: "x" is not an integer`},
		{`{"type":"array","items":{"type":"string"},"minItems":2}`, "a", nil, false, "at least 2"},
		{`{"type":"object","required":["q"]}`, `{"q":1}`, map[string]any{"q": 1.0}, false, ""},
		{`{"type":"object"}`, "not json", nil, false, "not a JSON object"},
		{`{"anyOf":[{"type":"integer"},{"type":"null"}]}`, "4", int64(4), false, ""},
		{`{"type":["integer","null"]}`, "4", int64(4), false, ""},
		{`{"type":"string"}`, "  kept as written ", "  kept as written ", false, ""},
		{`{}`, "anything", "anything", false, ""},
	} {
		v, note, err := schemaOf(t, tc.schema).Convert(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want one containing %q", tc.schema, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.schema, tc.in, err)
			continue
		}
		if !reflect.DeepEqual(v, tc.want) {
			t.Errorf("%s %q = %#v, want %#v", tc.schema, tc.in, v, tc.want)
		}
		if (note != "") != tc.note {
			t.Errorf("%s %q: note %q, want a note: %v", tc.schema, tc.in, note, tc.note)
		}
		// What Canonical writes back converts to the same value, silently.
		if v2, note2, err := schemaOf(t, tc.schema).Convert(Canonical(v)); err != nil || note2 != "" || !reflect.DeepEqual(v2, v) {
			t.Errorf("%s: Canonical(%#v) = %q reads back as %#v (%q, %v)", tc.schema, v, Canonical(v), v2, note2, err)
		}
	}
}

// TestToolConvertArgs: arguments are matched by the skill's (lower-case)
// names and sent under the tool's own property names; the first argument
// that cannot be converted is named.
func TestToolConvertArgs(t *testing.T) {
	tool := &Tool{Server: "everything", Name: "get-sum", Params: map[string]Param{
		"a":            {Property: "a", Schema: schemaOf(t, `{"type":"number"}`)},
		"includeimage": {Property: "includeImage", Schema: schemaOf(t, `{"type":"boolean"}`)},
	}}
	got, notes, err := tool.ConvertArgs(map[string]string{"a": "2", "includeimage": "yes", "stray": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[string]any{"a": 2.0, "includeImage": true}) {
		t.Fatalf("converted %#v", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "includeimage") {
		t.Fatalf("notes %q", notes)
	}
	_, _, err = tool.ConvertArgs(map[string]string{"a": "two"})
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Arg != "a" || !strings.Contains(err.Error(), `argument a: "two" is not a number`) {
		t.Fatalf("error %v", err)
	}
}

// TestToolNeedsApproval (issue 25, 2): a tool runs unasked only when it
// is annotated read-only, not destructive, and its server is trusted to
// say so (mcp[].trust) — an annotation is the server's own claim.
func TestToolNeedsApproval(t *testing.T) {
	for _, tc := range []struct {
		tool *Tool
		ask  string
	}{
		{&Tool{ReadOnly: true, Trusted: true}, ""},
		{&Tool{ReadOnly: true, TrustKey: "mcp[2].trust"}, "its server is not marked trusted (mcp[2].trust)"},
		{&Tool{}, "not annotated read-only"},
		{&Tool{Trusted: true}, "not annotated read-only"},
		{&Tool{ReadOnly: true, Destructive: true, Trusted: true}, "annotated destructive"},
		{nil, ""},
	} {
		got := tc.tool.NeedsApproval()
		if tc.ask == "" && got != "" || tc.ask != "" && !strings.Contains(got, tc.ask) {
			t.Errorf("%+v: asks %q, want %q", tc.tool, got, tc.ask)
		}
	}
}

// TestParamIsPath (issue 33): an argument is a path when the tool's schema
// names it so or its description is about one — server-filesystem's path
// and paths, a filePath, a directory — and not when it only mentions a
// file, or is a number.
func TestParamIsPath(t *testing.T) {
	t.Parallel()
	str := func(desc string) *Schema { return &Schema{Type: SchemaType{"string"}, Description: desc} }
	for _, tc := range []struct {
		p    Param
		want bool
	}{
		{Param{Property: "path", Schema: str("")}, true},
		{Param{Property: "paths", Schema: &Schema{Type: SchemaType{"array"}, Items: str(""), Description: "Array of file paths to read."}}, true},
		{Param{Property: "filePath", Schema: str("")}, true},
		{Param{Property: "output_dir", Schema: str("")}, true},
		{Param{Property: "target", Schema: str("The directory to list")}, true},
		{Param{Property: "source", Schema: str("Path of the file to move")}, true},
		{Param{Property: "content", Schema: str("Content to write to the file")}, false},
		{Param{Property: "message", Schema: str("Message to echo")}, false},
		{Param{Property: "head", Schema: &Schema{Type: SchemaType{"number"}, Description: "the first N lines of the file"}}, false},
		{Param{Property: "destination", Schema: str("")}, false},
	} {
		if got := tc.p.IsPath(); got != tc.want {
			t.Errorf("%s (%q): IsPath = %v, want %v", tc.p.Property, tc.p.Schema.Description, got, tc.want)
		}
	}
}

// TestParamIsStructured: an argument the tool's schema types as an array
// or object is given as JSON, each string in it a value of its own; a
// string, a number, or an argument with no schema is one value.
func TestParamIsStructured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema *Schema
		want   bool
	}{
		{&Schema{Type: SchemaType{"array"}, Items: &Schema{Type: SchemaType{"string"}}}, true},
		{&Schema{Type: SchemaType{"object"}}, true},
		{&Schema{Type: SchemaType{"null", "array"}}, true}, // a nullable list
		{&Schema{Type: SchemaType{"string"}}, false},
		{&Schema{Type: SchemaType{"integer"}}, false},
		{nil, false},
	} {
		if got := (Param{Property: "paths", Schema: tc.schema}).IsStructured(); got != tc.want {
			t.Errorf("schema %+v: IsStructured = %v, want %v", tc.schema, got, tc.want)
		}
	}
}
