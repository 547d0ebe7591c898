package pipeline_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// benchPlanUnder writes a plan of tasks (each {"task","id","dep","args"})
// without constraints as a grammar-constrained model writes it under the
// JSON schema the planning call sent: llama.cpp's json-schema-to-grammar
// (Ollama's) has an object's required properties in the schema's order,
// then its optional ones in that order, each of which a model may leave
// out — and a model that follows the examples leaves out what is empty.
// A property the schema does not list cannot be written; there is no
// whitespace. BenchmarkTurn measures each version of the schema with it:
// the one that required "constraints":{} and every task field, and the
// one that asks for nothing that carries nothing.
func benchPlanUnder(schema json.RawMessage, tasks []map[string]any) string {
	sch, err := decodeOrdered(json.NewDecoder(bytes.NewReader(schema)))
	if err != nil {
		return `{"tasks":[]}`
	}
	var v any
	b, _ := json.Marshal(map[string]any{"constraints": map[string]any{}, "tasks": tasks})
	_ = json.Unmarshal(b, &v)
	var out strings.Builder
	writeUnder(&out, sch, v)
	return out.String()
}

// omap is a JSON object with its keys in the order written.
type omap struct {
	keys []string
	vals map[string]any
}

func (m *omap) get(k string) any {
	if m == nil {
		return nil
	}
	return m.vals[k]
}

// decodeOrdered reads one JSON value, objects as *omap.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := &omap{vals: map[string]any{}}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				m.keys = append(m.keys, k.(string))
				m.vals[k.(string)] = v
			}
			_, err := dec.Token()
			return m, err
		case '[':
			var l []any
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
	}
	return tok, nil
}

// writeUnder writes v as schema sch has it written (benchPlanUnder).
func writeUnder(b *strings.Builder, sch any, v any) {
	s, _ := sch.(*omap)
	switch x := v.(type) {
	case map[string]any:
		props, _ := s.get("properties").(*omap)
		var required []string
		if r, ok := s.get("required").([]any); ok {
			for _, k := range r {
				required = append(required, k.(string))
			}
		}
		var order []string
		if props != nil {
			for _, k := range props.keys {
				if slices.Contains(required, k) {
					order = append(order, k)
				}
			}
			for _, k := range props.keys {
				if !slices.Contains(required, k) {
					order = append(order, k)
				}
			}
		}
		b.WriteByte('{')
		n := 0
		for _, k := range order {
			val, ok := x[k]
			if !slices.Contains(required, k) && (!ok || empty(val)) {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeUnder(b, props.get(k), val)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeUnder(b, s.get("items"), e)
		}
		b.WriteByte(']')
	case nil:
		b.WriteString("null")
	default:
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
	}
}

// empty is a value that carries nothing: {}, [] or "".
func empty(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case string:
		return x == ""
	case nil:
		return true
	}
	return false
}
