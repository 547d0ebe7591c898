package config

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"

	"github.com/chorusai/chorus/text"
)

// The one decoding path: YAML is parsed once per document (parseYAML),
// viper layers the defaults, the file and the variables, every key is
// checked against the Config's (unknownKey: a typo at any depth), and
// one decoding by the yaml tags makes the Config, refusing a value of the
// wrong kind, naming the key, where the value came from and what to write.
// viper lowers the case of every map key it holds; the lists of sections
// (whose items hold names of variables and headers: env:, headers:,
// bad_input:) reach the decoder as the file wrote them instead (caseKept).

// caseKept is a list of the file that keeps its own case through viper,
// decoded from its YAML (raw) by keptHook; what a message calls one item,
// what goes under it and where its keys are documented.
type caseKept struct {
	key, noun, with, doc, file string
	raw                        any
}

// lists are the configuration's lists of sections.
var lists = []caseKept{
	{key: "openai", noun: "server", with: "url and models", doc: "config.yaml"},
	{key: "mcp", noun: "server", with: "command or url", doc: "config.yaml"},
	{key: "command.programs", noun: "program", with: "tasks and args", doc: "docs/endpoints.md"},
}

// parseYAML reads a YAML document into the map viper takes, with the lists
// as caseKept.
func parseYAML(data []byte, file string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	for _, k := range lists {
		keep(m, strings.Split(k.key, "."), k, file)
	}
	return m, nil
}

// keep replaces the value at path in m (its names in any case) by k
// holding it, read from file.
func keep(m map[string]any, path []string, k caseKept, file string) {
	for name, v := range m {
		switch sub, ok := v.(map[string]any); {
		case !strings.EqualFold(name, path[0]):
		case len(path) == 1:
			k.raw, k.file = v, file
			m[name] = k
		case ok:
			keep(sub, path[1:], k, file)
		}
	}
}

// decoding is the decoder's configuration: the yaml tags (the Config's
// one name for each key), values converted as viper's own are (a variable
// is text), and the two hooks.
func decoding(dc *mapstructure.DecoderConfig) {
	dc.TagName = "yaml"
	dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(keptHook, durationHook, mapstructure.StringToSliceHookFunc(","))
}

// durationHook reads a duration with its unit. A bare number is refused
// (but 0): read as nanoseconds, task_timeout: 300 would time every task
// out at once; and "5 minutes" would be refused in Go's words.
func durationHook(_, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeFor[time.Duration]() {
		return data, nil
	}
	if d, err := time.ParseDuration(strings.TrimSpace(fmt.Sprint(data))); err == nil {
		return d, nil
	}
	if _, ok := data.(map[string]any); ok {
		return data, nil // keys under it: decodeError says so
	}
	return nil, &Error{Msg: fmt.Sprintf("%q is not a duration; write one such as 30s, 3m or 1h", fmt.Sprint(data))}
}

// keptHook decodes a caseKept list into its Go type, each item as yaml
// decodes it (a number or true in args is the text written), refusing a
// list that is not one (decoding would lift a single section into a
// one-item list), an item that is no section, and an item's key of no
// field (in any case) by name.
func keptHook(_, to reflect.Type, data any) (any, error) {
	k, ok := data.(caseKept)
	if !ok {
		return data, nil
	}
	shape := fmt.Sprintf(`write each one as an item, "- name: …" with %s under it (see %s)`, k.with, k.doc)
	items, ok := k.raw.([]any)
	if !ok && k.raw != nil {
		return nil, &Error{Key: k.key, Source: k.file, Msg: "is a list of " + k.noun + "s: " + shape}
	}
	fields, out := yamlKeys(to.Elem(), 0), reflect.MakeSlice(to, len(items), len(items))
	for i, raw := range items {
		key, item := fmt.Sprintf("%s[%d]", k.key, i), map[string]any{}
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, &Error{Key: key, Source: k.file, Msg: "is not a " + k.noun + "; " + shape}
		}
		for _, name := range slices.Sorted(maps.Keys(m)) {
			low := strings.ToLower(name)
			if item[low] = m[name]; !slices.Contains(fields, low) {
				return nil, unknown(key+"."+low, fields, k.file, "; a "+k.noun+" takes "+strings.Join(fields, ", ")+" (see "+k.doc+")")
			}
		}
		if _, isMap := item["models"].(map[string]any); item["models"] != nil && !isMap {
			// yaml would call a list of models "a map" without saying of what.
			return nil, &Error{Key: key + ".models", Source: k.file, Msg: "lists model ids by task, e.g. models: {text-to-image: [stablediffusion]}"}
		}
		if items[i] = item; k.key == "openai" {
			continue // decoded as the rest of the file is: one task is a list of one
		}
		b, _ := yaml.Marshal(item) // what yaml unmarshaled, it marshals
		if err := yaml.Unmarshal(b, out.Index(i).Addr().Interface()); err != nil {
			return nil, &Error{Key: key, Source: k.file, Msg: shapeOf(err, to.Elem())}
		}
	}
	if k.key == "openai" {
		return items, nil
	}
	return out.Interface(), nil
}

// shapeOf says what to write for a yaml type error in an item of type t:
// which of its keys take lists, which maps.
func shapeOf(err error, t reflect.Type) string {
	msg := err.Error()
	if te := (*yaml.TypeError)(nil); errors.As(err, &te) {
		_, msg, _ = strings.Cut(te.Errors[0], ": ") // "line 1: " of the item alone
	}
	switch {
	case strings.Contains(msg, "into []"):
		return strings.Join(yamlKeys(t, reflect.Slice), ", ") + " are lists: write [a, b] — " + msg
	case strings.Contains(msg, "into map"):
		return strings.Join(yamlKeys(t, reflect.Map), ", ") + " are maps: write {KEY: value} — " + msg
	}
	return msg
}

// source is where key's value came from: the variable that set it, else
// the file.
func (c *Config) source(key string) string { return cmp.Or(c.from[key], c.File) }

// decodeError words the first value the decoding refused, of the wrong
// kind ("max_parallel: lots", "experts: maybe"), naming the key and what
// to write rather than the decoder's multi-line report of Go types.
func (c *Config) decodeError(err error) error {
	var de *mapstructure.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("config: %w", err)
	}
	key := de.Name()
	if ce := (*Error)(nil); errors.As(de, &ce) { // a hook's
		if ce.Key == "" {
			ce.Key, ce.Source = key, c.source(key)
		}
		return ce
	}
	return &Error{Key: key, Source: c.source(key), Msg: wrongKind(de)}
}

// wrongKind says what is wrong with the value de refused and what to
// write instead.
func wrongKind(de *mapstructure.DecodeError) string {
	var want reflect.Type
	var got any
	if pe := (*mapstructure.ParseError)(nil); errors.As(de, &pe) {
		want, got = pe.Expected.Type(), pe.Value
	} else if ue := (*mapstructure.UnconvertibleTypeError)(nil); errors.As(de, &ue) {
		want, got = ue.Expected.Type(), ue.Value
	}
	section := "is a section; write its keys indented under it (see config.yaml)"
	switch {
	case want == nil && strings.Contains(de.Error(), "expected a map or struct"):
		return section // a value where a section belongs: "retrieval: 5"
	case want == nil:
		return fmt.Sprintf("has a value of the wrong kind (%v)", errors.Unwrap(de))
	case reflect.TypeOf(got) != nil && reflect.TypeOf(got).Kind() == reflect.Map:
		// Keys under a key that takes one value ("model:" with "name:"
		// indented under it): the map's Go rendering would say nothing.
		return "takes one value, not keys indented under it (see config.yaml)"
	}
	msg := fmt.Sprintf("has a value of the wrong kind (want %s)", want.Kind()) // string, not endpoints.Mode
	switch k := want.Kind(); {
	case k == reflect.Bool:
		msg = "is not true or false"
	case k >= reflect.Int && k <= reflect.Uint64:
		msg = "is not a whole number"
	case k == reflect.Float32 || k == reflect.Float64:
		msg = "is not a number"
	case k == reflect.Slice:
		msg = "is a list; write [a, b] or one item a line, each after \"- \""
	case k == reflect.Map || k == reflect.Struct:
		msg = section
	}
	return fmt.Sprintf("%q %s", fmt.Sprint(got), msg)
}

// unknownKey is the error for the first of keys (viper's, of the layered
// values) that Config has no place for — its first part that has none:
// serve.extra of serve.extra.deep — or nil when every key has one. Under a
// key that takes a value or a map, anything goes: decoding judges the
// value.
func unknownKey(keys []string, file string) error {
	slices.Sort(keys)
	for _, k := range keys {
		parts, t := strings.Split(k, "."), reflect.TypeFor[Config]()
		for i := 0; i < len(parts) && t.Kind() == reflect.Struct; i++ {
			next := fieldType(t, parts[i])
			if next == nil {
				return unknown(strings.Join(parts[:i+1], "."), yamlKeys(t, 0), file, "")
			}
			t = next
		}
	}
	return nil
}

// unknown is the error for a key its section has no place for, naming the
// key it most likely meant, one of siblings at the same depth, a few
// letters away (controler → controller, controller.modle →
// controller.model, openai[0].modle → openai[0].models); in a list's item,
// takes says which keys an item takes.
func unknown(key string, siblings []string, source, takes string) error {
	hint, i := "", strings.LastIndex(key, ".")+1
	if near := nearest(key[i:], "", siblings); near != "" {
		hint = " — did you mean " + key[:i] + near + "?"
	}
	if takes == "" {
		return &Error{Key: key, Source: source, Msg: "unknown key (see the documented keys in config.yaml)" + hint}
	}
	return &Error{Key: key, Source: source, Msg: "unknown key" + hint + takes}
}

// fieldType is the type of struct t's field of key name, nil without one.
func fieldType(t reflect.Type, name string) reflect.Type {
	for i := range t.NumField() {
		if yamlKey(t.Field(i)) == name {
			return t.Field(i).Type
		}
	}
	return nil
}

// yamlKeys are the keys of struct type t (of kind, unless it is 0), in
// order.
func yamlKeys(t reflect.Type, kind reflect.Kind) []string {
	var keys []string
	for i := range t.NumField() {
		if k := yamlKey(t.Field(i)); k != "" && (kind == 0 || t.Field(i).Type.Kind() == kind) {
			keys = append(keys, k)
		}
	}
	return keys
}

// yamlKey is f's key in the file, "" for a field that is none.
func yamlKey(f reflect.StructField) string {
	if k, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); k != "-" {
		return k
	}
	return ""
}

// nearest is the candidate a typo most likely meant — a few letters away
// (text.Distance) after the prefix they share, in either case, and a
// plural written singular (model for models) as none — or "" when none is
// close. The file's keys and the CHORUS_ variables share it.
func nearest(typo, prefix string, candidates []string) string {
	typo = strings.ToLower(strings.TrimPrefix(typo, prefix))
	best, bestD := "", max(1, len(typo)/5)+1
	for _, k := range candidates {
		low := strings.ToLower(strings.TrimPrefix(k, prefix))
		d := text.Distance(typo, low)
		if one, plural := strings.CutSuffix(low, "s"); plural {
			d = min(d, text.Distance(typo, one))
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}
