package config

import (
	"errors"
	"strings"
	"testing"
)

// TestUserFileDecodedExactly: the user's file is decoded alone and
// exactly, so every mistake names its key and what is wrong with it — a
// typo at any depth (the unknown key itself, not the leaves under it),
// keys under a key that takes one value, a value where a section belongs
// (the list of known keys called both of these an unknown key).
func TestUserFileDecodedExactly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, key, msg string }{
		{"Controller:\n  Modle: x\n", "controller.modle", "unknown key (see the documented keys in config.yaml)"},
		{"serve:\n  max_sessions: 3\n  extra:\n    deep:\n      deeper: 1\n", "serve.extra", "unknown key"},
		{"unknown_top: 1\nzz: 2\n", "unknown_top", "unknown key"},
		// A key with nothing under it is no less a typo.
		{"controler:\n", "controler", "unknown key"},
		{"controller:\n  modle: x\n  timeout: lots\n", "controller.modle", "unknown key"},
		{"controller:\n  model:\n    name: x\n", "controller.model", "takes one value, not keys indented under it"},
		{"retrieval: 5\n", "retrieval", "is a section; write its keys indented under it"},
		{"openai:\n  - url: http://a\n    models: {ocr: [m]}\n    Voise: x\n", "openai[0].voise", "a server takes name, url, key, key_env, voice, tasks, models"},
	} {
		_, err := loadFile(t, tc.yaml)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) || !strings.HasSuffix(ce.Source, "c.yaml") {
			t.Errorf("%q: err %v, want key %s with %q from the file", tc.yaml, err, tc.key, tc.msg)
		}
	}
	// A typo names the key it almost is, at its own depth; a key like no
	// other names none.
	for _, tc := range []struct{ yaml, key, hint string }{
		{"controler:\n  model: x\n", "controler", "did you mean controller?"},
		{"controller:\n  modle: x\n", "controller.modle", "did you mean controller.model?"},
		{"Controller:\n  Modle: x\n", "controller.modle", "did you mean controller.model?"},
		{"serve:\n  max_session: 3\n", "serve.max_session", "did you mean serve.max_sessions?"},
		{"mcp:\n  - name: a\n    comand: x\n", "mcp[0].comand", "did you mean mcp[0].command?"},
		// The openai list's items too, and a plural key written singular
		// (or misspelt so) names the plural.
		{"openai:\n  - url: http://a\n    modle: x\n", "openai[0].modle", "did you mean openai[0].models?"},
		{"openai:\n  - url: http://a\n    models: {ocr: [m]}\n    Voise: x\n", "openai[0].voise", "did you mean openai[0].voice?"},
		{"openai:\n  - url: http://a\n    task: [ocr]\n", "openai[0].task", "did you mean openai[0].tasks?"},
		{"openai:\n  - url: http://a\n    zzz: 1\n", "openai[0].zzz", ""},
		{"mcp:\n  - name: a\n    command: x\n    tool: [t]\n", "mcp[0].tool", "did you mean mcp[0].tools?"},
		{"zz: 2\n", "zz", ""},
		{"controller:\n  temperaturexyz: 1\n", "controller.temperaturexyz", ""},
	} {
		_, err := loadFile(t, tc.yaml)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%q: err %v, want key %s", tc.yaml, err, tc.key)
			continue
		}
		if tc.hint == "" && strings.Contains(ce.Msg, "did you mean") || !strings.Contains(ce.Msg, tc.hint) {
			t.Errorf("%q: %q, want the hint %q", tc.yaml, ce.Msg, tc.hint)
		}
	}
	// ui.keys is a map of actions: any action decodes (the key map
	// checks the names when it is built).
	if _, err := loadFile(t, "ui:\n  keys:\n    quit: [q]\n"); err != nil {
		t.Errorf("ui.keys: %v", err)
	}
}
