package config

import (
	"cmp"
	"reflect"
	"regexp"
	"strings"

	"github.com/chorusai/chorus/text"
)

// `chorus config` prints the effective configuration, and its help
// promises that tokens and keys are never shown. Secrets sit under many
// keys — controller.key, huggingface.token, openai[].key, mcp[].key, every
// value of mcp[].headers and mcp[].env, serve.http_token, a password or a
// token in any URL — and new ones arrive with new features, so they are
// found by a rule rather than listed: a key named key, token, secret or
// password (or ending in _key, _token, …: text.SecretName, the rule of the
// command lines and URLs too; a name ending in _env names a variable,
// which is not one), every value of a headers or env
// map, the secret-looking arguments of a command line, and the userinfo and
// secret-looking query values of every URL — the last two by package
// text's one redaction, which every print and log uses.

// Shown returns the configuration as `chorus config` prints it: every
// secret replaced by where it came from — "(set, from VAR)", "(set, from
// <file>)" — or why it is missing ("(not set: VAR is empty)"), and no URL
// with a password or a token in it. c is not changed.
func (c *Config) Shown() *Config {
	out := *c
	out.Env = nil // the whole environment: never printed
	c.mask(reflect.ValueOf(&out).Elem(), "")
	return &out
}

// mask walks v, a struct value the caller owns, replacing secrets in
// place; slices and maps are copied before they change (they are shared
// with the configuration in use).
func (c *Config) mask(v reflect.Value, path string) {
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		name := yamlKey(f)
		if name == "" || !f.IsExported() {
			continue
		}
		key := strings.TrimPrefix(path+"."+name, ".")
		switch {
		case fv.Kind() == reflect.String && text.SecretName(name):
			fv.SetString(c.secretShown(fv.String(), v, f.Name, key))
		case fv.Kind() == reflect.String:
			fv.SetString(text.RedactURL(fv.String()))
		case fv.Kind() == reflect.Map && (name == "headers" || name == "env") && fv.Type().Elem().Kind() == reflect.String:
			fv.Set(c.maskedMap(fv, v.FieldByName(f.Name+"From")))
		case fv.Kind() == reflect.Struct:
			c.mask(fv, key)
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct:
			cp := reflect.AppendSlice(reflect.MakeSlice(fv.Type(), 0, fv.Len()), fv)
			for j := range cp.Len() {
				c.mask(cp.Index(j), key)
			}
			fv.Set(cp)
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			// A command line's secrets (--token X, --password=X,
			// NAME_KEY=X), and any list's URLs'.
			fv.Set(reflect.ValueOf(text.RedactArgs(fv.Interface().([]string))))
		}
	}
}

// secretShown is what is printed for the secret value of key, a field of
// parent: where it came from, said by a sibling naming its variable
// (KeyEnv, HTTPTokenEnv) or its source (KeyFrom), else the variable that
// set it (Load's record, the Hugging Face token's cache too), or the file.
func (c *Config) secretShown(value string, parent reflect.Value, field, key string) string {
	env := siblingString(parent, field+"Env")
	switch {
	case value == "" && env != "":
		// The usual cause of a refused key: say so here.
		return "(not set: " + env + " is empty)"
	case value == "":
		return ""
	}
	if from := cmp.Or(env, siblingString(parent, field+"From"), c.from[key], c.File); from != "" {
		return "(set, from " + from + ")"
	}
	return "(set)"
}

// siblingString is parent's string field name, "" without one.
func siblingString(parent reflect.Value, name string) string {
	if f := parent.FieldByName(name); f.Kind() == reflect.String {
		return f.String()
	}
	return ""
}

// envRef matches a value that only names a variable: ${GITHUB_TOKEN}.
var envRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// maskedMap is m (a headers or env map) with every value replaced: a
// value written as a reference to a variable (as written is in written,
// a sibling map like EnvFrom, when the values were expanded) says whether
// it is set, anything else that it is set in the file.
func (c *Config) maskedMap(m, written reflect.Value) reflect.Value {
	out := reflect.MakeMapWithSize(m.Type(), m.Len())
	for iter := m.MapRange(); iter.Next(); {
		val := iter.Value().String()
		if written.Kind() == reflect.Map && written.MapIndex(iter.Key()).IsValid() {
			val = written.MapIndex(iter.Key()).String()
		}
		shown := "(set, from " + cmp.Or(c.File, "the configuration") + ")"
		if ref := envRef.FindStringSubmatch(strings.TrimSpace(val)); ref != nil && c.Env[ref[1]] == "" {
			shown = "(not set: " + ref[1] + " is empty)"
		} else if ref != nil {
			shown = "(set, from " + ref[1] + ")"
		}
		out.SetMapIndex(iter.Key(), reflect.ValueOf(shown).Convert(m.Type().Elem()))
	}
	return out
}
