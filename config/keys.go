package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// checkFile decodes the user's file alone, exactly, into a Config: a key
// the Config does not have — a typo, at any depth, inside the openai
// list's items too — or a value of the wrong kind is refused naming the
// key. Alone, because merged over the defaults a scalar where a section
// belongs ("retrieval: 5") would be dropped without a word.
func checkFile(data []byte, file string) error {
	u := viper.New()
	u.SetConfigType("yaml")
	if err := u.ReadConfig(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("config: %s: %w", file, err)
	}
	if err := checkOpenAIShape(u.Get("openai"), file); err != nil {
		return err
	}
	var c Config
	if err := u.UnmarshalExact(&c); err != nil {
		if err := unknownKey(err, file); err != nil {
			return err
		}
		if err := checkDurations(u.Get, file, false); err != nil {
			return err
		}
		return decodeError(err, file, false)
	}
	return nil
}

// unknownKey words the keys exact decoding found no place for — typos, at
// any depth, the openai list's items included — naming the first by its
// full name (controller.modle, openai[1].voise); nil when there are none.
func unknownKey(err error, file string) error {
	var keys []string
	walkErrors(err, func(e error) {
		var de *mapstructure.DecodeError
		if !errors.As(e, &de) || errors.Unwrap(de) == nil {
			return
		}
		// mapstructure reports them as one error per map, in these words.
		rest, ok := strings.CutPrefix(errors.Unwrap(de).Error(), "has invalid keys: ")
		if !ok {
			return
		}
		for _, k := range strings.Split(rest, ", ") {
			if de.Name() != "" {
				k = de.Name() + "." + k
			}
			keys = append(keys, k)
		}
	})
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	hint := ""
	if near := nearKey(keys[0]); near != "" {
		hint = " — did you mean " + near + "?"
	}
	if strings.HasPrefix(keys[0], "openai[") {
		return &Error{Key: keys[0], Source: file,
			Msg: "unknown key" + hint + "; a server takes " + strings.Join(openAIServerKeys(), ", ") + " (see config.yaml)"}
	}
	return &Error{Key: keys[0], Source: file, Msg: "unknown key (see the documented keys in config.yaml)" + hint}
}

// nearKey is the key of Config a typo most likely meant — one at the same
// depth, a few letters away (controler → controller, controller.modle →
// controller.model, openai[0].modle → openai[0].models) — or "" when none
// is close.
func nearKey(key string) string {
	parts := strings.Split(key, ".")
	t := reflect.TypeFor[Config]()
	for _, p := range parts[:len(parts)-1] {
		name, _, indexed := strings.Cut(p, "[")
		f, ok := fieldByKey(t, name)
		if !ok {
			return ""
		}
		t = f.Type
		if indexed && t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return ""
		}
	}
	var keys []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	best := nearest(parts[len(parts)-1], keys)
	if best == "" {
		return ""
	}
	return strings.Join(append(parts[:len(parts)-1:len(parts)-1], best), ".")
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

// fieldByKey is the field of struct type t whose mapstructure key is key.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ","); k == key {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
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

// openAIServerKeys are the keys of one openai list item: OpenAIServer's
// mapstructure tags, in order.
func openAIServerKeys() []string {
	t := reflect.TypeFor[OpenAIServer]()
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// listOfServers is what the openai section must be.
const listOfServers = `is a list of servers: write each one as an item, "- name: …" with url and models under it (see config.yaml)`

// checkOpenAIShape refuses an openai section that is not a list of servers
// with their models by task. Exact decoding would say it less well: it
// lifts a single server written as a map into a one-item list, and calls a
// list of models "a section" without saying what goes in it.
func checkOpenAIShape(list any, file string) error {
	items, ok := list.([]any)
	if !ok {
		if list == nil {
			return nil
		}
		return &Error{Key: "openai", Source: file, Msg: listOfServers}
	}
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return &Error{Key: fmt.Sprintf("openai[%d]", i), Source: file,
				Msg: `is not a server; write each one as an item, "- name: …" with url and models under it (see config.yaml)`}
		}
		for k, v := range m {
			if strings.EqualFold(k, "models") && v != nil {
				if _, ok := v.(map[string]any); !ok {
					return &Error{Key: fmt.Sprintf("openai[%d].models", i), Source: file,
						Msg: "lists model ids by task, e.g. models: {text-to-image: [stablediffusion]}"}
				}
			}
		}
	}
	return nil
}

// checkDurations refuses a duration written without a unit. Decoded as is,
// a bare number is nanoseconds — task_timeout: 300 would time every task
// out at once — and "5 minutes" is refused in Go's words ("time: unknown
// unit"). get reads a key's raw value; env says CHORUS_<KEY> may be where
// it came from.
func checkDurations(get func(string) any, file string, env bool) error {
	var walk func(t reflect.Type, prefix string) error
	walk = func(t reflect.Type, prefix string) error {
		for i := range t.NumField() {
			f := t.Field(i)
			k, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if k == "" || k == "-" {
				continue
			}
			key := prefix + k
			switch {
			case f.Type == reflect.TypeFor[time.Duration]():
				if err := checkDuration(get(key)); err != nil {
					src := file
					if v := "CHORUS_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_")); env && os.Getenv(v) != "" {
						src = v
					}
					return &Error{Key: key, Source: src, Msg: err.Error()}
				}
			case f.Type.Kind() == reflect.Struct:
				if err := walk(f.Type, key+"."); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(reflect.TypeFor[Config](), "")
}

// checkDuration says what is wrong with a raw duration value, if anything.
func checkDuration(raw any) error {
	bad := func() error {
		return fmt.Errorf("%q is not a duration; write one such as 30s, 3m or 1h", fmt.Sprint(raw))
	}
	switch v := raw.(type) {
	case nil, time.Duration:
		return nil
	case string:
		if _, err := time.ParseDuration(strings.TrimSpace(v)); err != nil {
			return bad()
		}
	case int, int64, int32, uint, uint64, uint32, float64, float32:
		if fmt.Sprint(v) != "0" {
			return bad()
		}
	}
	return nil
}
