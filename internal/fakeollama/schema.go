package fakeollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Validate checks doc against schema, a JSON Schema in the subset Ollama's
// structured outputs are written in: type (one or a list), properties,
// required, additionalProperties: false, items, enum, minItems, maxItems,
// minimum and maximum. Unknown keywords are ignored. Tests use it to assert
// that a client sent a real schema as "format" and that a scripted reply
// satisfies it. A format of "json" or none is not a schema and fails.
func Validate(schema json.RawMessage, doc []byte) error {
	switch formatKind(schema) {
	case "":
		return errors.New("format is empty: no JSON schema was sent")
	case "json":
		return errors.New(`format is "json", not a JSON schema`)
	}
	if err := checkSchemaShape(schema); err != nil {
		return err
	}
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("document is not JSON: %w", err)
	}
	return validate("$", s, v)
}

var schemaTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// checkSchemaShape reports whether f is a schema at all: an object whose
// type, properties, items, required and enum keywords are well formed.
func checkSchemaShape(f json.RawMessage) error {
	var s any
	if err := json.Unmarshal(f, &s); err != nil {
		return fmt.Errorf("schema is not JSON: %w", err)
	}
	return shape("$", s)
}

func shape(path string, v any) error {
	s, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: schema must be an object", path)
	}
	if t, ok := s["type"]; ok {
		types, err := typeList(t)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, t := range types {
			if !slices.Contains(schemaTypes, t) {
				return fmt.Errorf("%s: unknown type %q", path, t)
			}
		}
	}
	if p, ok := s["properties"]; ok {
		props, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("%s.properties: must be an object", path)
		}
		for k, sub := range props {
			if err := shape(path+"."+k, sub); err != nil {
				return err
			}
		}
	}
	if it, ok := s["items"]; ok {
		if err := shape(path+"[]", it); err != nil {
			return err
		}
	}
	if r, ok := s["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return fmt.Errorf("%s.required: must be an array of names", path)
		}
		for _, n := range list {
			if _, ok := n.(string); !ok {
				return fmt.Errorf("%s.required: must be an array of names", path)
			}
		}
	}
	if e, ok := s["enum"]; ok {
		if _, ok := e.([]any); !ok {
			return fmt.Errorf("%s.enum: must be an array", path)
		}
	}
	return nil
}

func typeList(t any) ([]string, error) {
	switch t := t.(type) {
	case string:
		return []string{t}, nil
	case []any:
		var out []string
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, errors.New("type list must hold strings")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, errors.New("type must be a string or a list of strings")
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && !strings.ContainsAny(v.String(), ".eE") {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func validate(path string, s map[string]any, v any) error {
	got := jsonType(v)
	if t, ok := s["type"]; ok {
		types, _ := typeList(t)
		match := slices.Contains(types, got) || (got == "integer" && slices.Contains(types, "number"))
		if !match {
			return fmt.Errorf("%s: want %s, got %s", path, strings.Join(types, " or "), got)
		}
	}
	if e, ok := s["enum"].([]any); ok {
		found := false
		for _, x := range e {
			if equalJSON(x, v) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: %v is not one of %v", path, v, e)
		}
	}
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		if min, ok := s["minimum"].(float64); ok && f < min {
			return fmt.Errorf("%s: %v is below the minimum %v", path, f, min)
		}
		if max, ok := s["maximum"].(float64); ok && f > max {
			return fmt.Errorf("%s: %v is above the maximum %v", path, f, max)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := v[r.(string)]; !ok {
					return fmt.Errorf("%s: missing required property %q", path, r)
				}
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, ok := props[k].(map[string]any)
			if !ok {
				if ap, ok := s["additionalProperties"].(bool); ok && !ap {
					return fmt.Errorf("%s: property %q is not allowed", path, k)
				}
				continue
			}
			if err := validate(path+"."+k, sub, v[k]); err != nil {
				return err
			}
		}
	case []any:
		if min, ok := s["minItems"].(float64); ok && float64(len(v)) < min {
			return fmt.Errorf("%s: %d items, want at least %v", path, len(v), min)
		}
		if max, ok := s["maxItems"].(float64); ok && float64(len(v)) > max {
			return fmt.Errorf("%s: %d items, want at most %v", path, len(v), max)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				if err := validate(fmt.Sprintf("%s[%d]", path, i), items, x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// equalJSON compares a schema enum value (decoded with float64 numbers) with
// a document value (decoded with json.Number).
func equalJSON(a, b any) bool {
	if n, ok := b.(json.Number); ok {
		f, err := n.Float64()
		af, ok := a.(float64)
		return err == nil && ok && af == f
	}
	return reflect.DeepEqual(a, b)
}
