package flow

import (
	"bytes"
	"encoding/json"
)

// Object is a JSON object whose keys are written in the order given.
// A grammar-constrained model writes an object's required properties in
// the order its schema lists them (Ollama builds the grammar with
// llama.cpp's json-schema-to-grammar, which keeps the schema's order), so
// a schema's order is the order the reply decodes in: the plan's
// constraints before its tasks, a selection's picks before its reasons.
// encoding/json would sort a map's keys instead.
type Object []Field

// Field is one key of an Object and its value.
type Field struct {
	Key   string
	Value any
}

// MarshalJSON writes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Keys returns the keys of o, in order: a schema's "required" list.
func (o Object) Keys() []string {
	out := make([]string, len(o))
	for i, f := range o {
		out[i] = f.Key
	}
	return out
}
