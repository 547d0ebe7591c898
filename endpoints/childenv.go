package endpoints

import (
	"slices"
	"strings"
)

// childBaseEnv are the variables of Chorus's environment a program it
// starts inherits (a stdio MCP server, a declared program); everything
// else — tokens, keys, HF_TOKEN — the program gets only when its
// configuration names it.
var childBaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR"}

// ChildEnv returns the environment of a program Chorus starts: PATH, HOME,
// the user and the locale (LANG, LC_*) from own (Chorus's), then extra,
// sorted, which overrides them. It is the one allow-list for every program
// Chorus runs.
func ChildEnv(own []string, extra map[string]string) []string {
	var out []string
	for _, kv := range own {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || (!slices.Contains(childBaseEnv, k) && !strings.HasPrefix(k, "LC_")) {
			continue
		}
		if _, override := extra[k]; override {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}
