package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"
)

// The one decoding path: YAML is parsed once per document (parseYAML),
// viper layers the defaults, the file and the variables, and one exact
// decoding by the yaml tags makes the Config, refusing a key it has no
// place for (a typo, at any depth) or a value of the wrong kind, naming
// the key, where the value came from and what to write. viper lowers the
// case of every map key it holds; the lists whose items hold names of
// variables and headers (env:, headers:, bad_input:) reach the decoder as
// the file wrote them instead (caseKept).

// caseKept is a list of the file that keeps its own case through viper,
// decoded from its YAML by keptHook.
type caseKept struct {
	list
	file string
	raw  any
}

// lists are the configuration's lists of sections: what a message calls
// one item, what goes under it and where its keys are documented. The
// items of all but openai keep their case.
var lists = []list{
	{"openai", "server", "url and models", "config.yaml"},
	{"mcp", "server", "command or url", "config.yaml"},
	{"command.programs", "program", "tasks and args", "docs/endpoints.md"},
}

type list struct{ key, noun, with, doc string }

// listOf is the list key is or is in (openai[0].url is in openai).
func listOf(key string) (list, bool) {
	for _, l := range lists {
		if key == l.key || strings.HasPrefix(key, l.key+"[") {
			return l, true
		}
	}
	return list{}, false
}

// parseYAML reads a YAML document into the map viper takes, with the lists
// that keep their case as caseKept.
func parseYAML(data []byte, file string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	for _, l := range lists[1:] {
		keep(m, strings.Split(l.key, "."), caseKept{list: l, file: file})
	}
	return m, nil
}

// keep replaces the value at path in m (its names in any case) by k
// holding it.
func keep(m map[string]any, path []string, k caseKept) {
	for name, v := range m {
		switch sub, ok := v.(map[string]any); {
		case !strings.EqualFold(name, path[0]):
		case len(path) == 1:
			k.raw = v
			m[name] = k
		case ok:
			keep(sub, path[1:], k)
		}
	}
}

// decoding is the decoder's configuration: the yaml tags (the Config's
// one name for each key), values converted as viper's own are (a variable
// is text), and the two hooks.
func (l loader) decoding(dc *mapstructure.DecoderConfig) {
	dc.TagName = "yaml"
	dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(l.keptHook, durationHook, mapstructure.StringToSliceHookFunc(","))
}

// durationHook reads a duration with its unit. A bare number is refused
// (but 0): read as nanoseconds, task_timeout: 300 would time every task
// out at once; and "5 minutes" would be refused in Go's words.
func durationHook(_, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeFor[time.Duration]() {
		return data, nil
	}
	switch v := data.(type) {
	case string:
		if d, err := time.ParseDuration(strings.TrimSpace(v)); err == nil {
			return d, nil
		}
	case int, int64, uint64, float64:
		if fmt.Sprint(v) == "0" {
			return time.Duration(0), nil
		}
	case map[string]any:
		return data, nil // keys under it: decodeError says so
	}
	return nil, &Error{Msg: fmt.Sprintf("%q is not a duration; write one such as 30s, 3m or 1h", fmt.Sprint(data))}
}

// keptHook decodes a caseKept list into its Go type, each item as yaml
// decodes it (a number or true in args is the text written), refusing an
// item's key of no field (in any case) by name.
func (l loader) keptHook(_, to reflect.Type, data any) (any, error) {
	k, ok := data.(caseKept)
	if !ok {
		return data, nil
	}
	items, err := listShape(k.list, k.raw, k.file)
	out := reflect.MakeSlice(to, 0, len(items))
	for i := 0; err == nil && i < len(items); i++ {
		key, item := fmt.Sprintf("%s[%d]", k.key, i), map[string]any{}
		for name, v := range items[i].(map[string]any) {
			item[strings.ToLower(name)] = v
		}
		for _, name := range slices.Sorted(maps.Keys(item)) {
			if !slices.Contains(yamlKeys(to.Elem(), 0), name) {
				return nil, l.unknownKey(key + "." + name)
			}
		}
		v := reflect.New(to.Elem())
		b, _ := yaml.Marshal(item) // what yaml unmarshaled, it marshals
		if e := yaml.Unmarshal(b, v.Interface()); e != nil {
			err = &Error{Key: key, Source: k.file, Msg: shapeOf(e, to.Elem())}
		}
		out = reflect.Append(out, v.Elem())
	}
	return out.Interface(), err
}

// listShape refuses a list of sections that is not one: a value other
// than a list, an item other than a section. Decoding would lift a single
// section into a one-item list.
func listShape(l list, raw any, source string) ([]any, error) {
	shape := fmt.Sprintf(`write each one as an item, "- name: …" with %s under it (see %s)`, l.with, l.doc)
	items, ok := raw.([]any)
	if !ok && raw != nil {
		return nil, &Error{Key: l.key, Source: source, Msg: "is a list of " + l.noun + "s: " + shape}
	}
	for i, item := range items {
		if _, ok := item.(map[string]any); !ok {
			return nil, &Error{Key: fmt.Sprintf("%s[%d]", l.key, i), Source: source, Msg: "is not a " + l.noun + "; " + shape}
		}
	}
	return items, nil
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

// checkOpenAIShape refuses an openai section that is not a list of servers
// with their models by task: decoding would call a list of models "a
// section" without saying what goes in it.
func checkOpenAIShape(raw any, source string) error {
	items, err := listShape(lists[0], raw, source)
	for i := 0; err == nil && i < len(items); i++ {
		if m := items[i].(map[string]any)["models"]; m != nil {
			if _, ok := m.(map[string]any); !ok {
				err = &Error{Key: fmt.Sprintf("openai[%d].models", i), Source: source, Msg: "lists model ids by task, e.g. models: {text-to-image: [stablediffusion]}"}
			}
		}
	}
	return err
}

// source is where key's value came from: its CHORUS_<KEY> variable when
// that is set, else the file.
func (l loader) source(key string) string {
	if v := "CHORUS_" + strings.ToUpper(strings.NewReplacer(".", "_", "[", "_", "]", "").Replace(key)); l.env[v] != "" {
		return v
	}
	return l.file
}

// decodeError words what the decoding refused: the first key it found no
// place for (a typo), else the first value of the wrong kind ("max_parallel:
// lots", "experts: maybe"), naming the key and what to write rather than
// the decoder's multi-line report of Go types.
func (l loader) decodeError(err error) error {
	var unknown []string
	var first *mapstructure.DecodeError
	walkErrors(err, func(e error) {
		var de *mapstructure.DecodeError
		if !errors.As(e, &de) {
			return
		}
		// mapstructure reports them as one error per map, in these words.
		if rest, ok := strings.CutPrefix(errors.Unwrap(de).Error(), "has invalid keys: "); ok {
			for _, k := range strings.Split(rest, ", ") {
				unknown = append(unknown, strings.ToLower(strings.TrimPrefix(de.Name()+"."+k, ".")))
			}
		} else if first == nil {
			first = de
		}
	})
	if len(unknown) > 0 {
		return l.unknownKey(slices.Min(unknown))
	}
	if first == nil {
		return fmt.Errorf("config: %w", err)
	}
	key := first.Name()
	if ce := (*Error)(nil); errors.As(first, &ce) { // a hook's
		if ce.Key == "" {
			ce.Key, ce.Source = key, l.source(key)
		}
		return ce
	}
	return &Error{Key: key, Source: l.source(key), Msg: wrongKind(first)}
}

// wrongKind says what is wrong with the value de refused and what to
// write instead.
func wrongKind(de *mapstructure.DecodeError) string {
	var (
		pe   *mapstructure.ParseError
		ue   *mapstructure.UnconvertibleTypeError
		want reflect.Type
		got  any
		msg  string
	)
	switch {
	case errors.As(de, &pe):
		want, got = pe.Expected.Type(), pe.Value
	case errors.As(de, &ue):
		want, got = ue.Expected.Type(), ue.Value
	}
	switch {
	case want == nil && strings.Contains(de.Error(), "expected a map or struct"):
		// A value where a section belongs ("retrieval: 5").
		return "is a section; write its keys indented under it (see config.yaml)"
	case want == nil:
		return fmt.Sprintf("has a value of the wrong kind (%v)", errors.Unwrap(de))
	case reflect.TypeOf(got) != nil && reflect.TypeOf(got).Kind() == reflect.Map:
		// Keys under a key that takes one value ("model:" with "name:"
		// indented under it): the map's Go rendering would say nothing.
		return "takes one value, not keys indented under it (see config.yaml)"
	case want.Kind() == reflect.Bool:
		msg = "is not true or false"
	case want.Kind() >= reflect.Int && want.Kind() <= reflect.Uint64:
		msg = "is not a whole number"
	case want.Kind() == reflect.Float32 || want.Kind() == reflect.Float64:
		msg = "is not a number"
	case want.Kind() == reflect.Slice:
		msg = "is a list; write [a, b] or one item a line, each after \"- \""
	case want.Kind() == reflect.Map || want.Kind() == reflect.Struct:
		msg = "is a section; write its keys indented under it (see config.yaml)"
	default:
		msg = fmt.Sprintf("has a value of the wrong kind (want %s)", want)
	}
	if got == nil {
		return msg
	}
	return fmt.Sprintf("%q %s", fmt.Sprint(got), msg)
}

// unknownKey is the error for a key Config has no place for, naming the key
// it most likely meant — and, in a list's item, the keys an item takes.
func (l loader) unknownKey(key string) error {
	hint := ""
	if near := nearKey(key); near != "" {
		hint = " — did you mean " + near + "?"
	}
	if list, ok := listOf(key); ok && key != list.key {
		item := typeAt(strings.Split(key, ".")[:strings.Count(list.key, ".")+1])
		return &Error{Key: key, Source: l.file, Msg: "unknown key" + hint + "; a " + list.noun + " takes " +
			strings.Join(yamlKeys(item, 0), ", ") + " (see " + list.doc + ")"}
	}
	return &Error{Key: key, Source: l.file, Msg: "unknown key (see the documented keys in config.yaml)" + hint}
}

// nearKey is the key of Config a typo most likely meant — one at the same
// depth, a few letters away (controler → controller, controller.modle →
// controller.model, openai[0].modle → openai[0].models) — or "" when none
// is close.
func nearKey(key string) string {
	parts := strings.Split(key, ".")
	t := typeAt(parts[:len(parts)-1])
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	best := nearest(parts[len(parts)-1], yamlKeys(t, 0))
	if best == "" {
		return ""
	}
	return strings.Join(append(parts[:len(parts)-1:len(parts)-1], best), ".")
}

// typeAt is the Go type of the key whose parts are path (an item of a list
// for openai[0]), nil when Config has no such key.
func typeAt(path []string) reflect.Type {
	t := reflect.TypeFor[Config]()
	for _, p := range path {
		name, _, item := strings.Cut(p, "[")
		var next reflect.Type
		for i := 0; t.Kind() == reflect.Struct && i < t.NumField(); i++ {
			if yamlKey(t.Field(i)) == name {
				next = t.Field(i).Type
			}
		}
		if next == nil {
			return nil
		}
		if t = next; item && t.Kind() == reflect.Slice {
			t = t.Elem()
		}
	}
	return t
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

// nearest is the candidate a typo most likely meant — a few letters away,
// in either case, a swap of two neighbouring letters counting as one edit
// and a plural written singular (model for models) as none — or "" when
// none is close. The file's keys and the CHORUS_ variables share it.
func nearest(typo string, candidates []string) string {
	typo = strings.ToLower(typo)
	best, bestD := "", max(1, len(typo)/5)+1
	for _, k := range candidates {
		low := strings.ToLower(k)
		d := editDistance(typo, low)
		if one, plural := strings.CutSuffix(low, "s"); plural {
			d = min(d, editDistance(typo, one))
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the edit distance of two keys, a swap of two neighbouring
// letters (modle) counting as one edit.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// walkErrors calls f on err and every error it wraps, joined ones too.
func walkErrors(err error, f func(error)) {
	if err == nil {
		return
	}
	f(err)
	switch u := err.(type) { //nolint:errorlint // the walk unwraps the tree itself, one level at a time
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walkErrors(e, f)
		}
	case interface{ Unwrap() error }:
		walkErrors(u.Unwrap(), f)
	}
}
