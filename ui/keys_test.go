package ui

import (
	"slices"
	"testing"

	"github.com/chorusai/chorus/ui/theme"
)

// The documented defaults in config.yaml and the built-in ones must agree,
// or users would read one thing and get another.
func TestConfigKeysMatchDefaults(t *testing.T) {
	cfg := testConfig(t)
	if len(cfg.UI.Keys) != len(theme.Actions()) {
		t.Fatalf("config.yaml lists %d actions, the TUI has %d", len(cfg.UI.Keys), len(theme.Actions()))
	}
	for _, a := range theme.Actions() {
		got := cfg.UI.Keys[string(a.Action)]
		if !slices.Equal(got, a.Keys) {
			t.Errorf("ui.keys.%s = %v in config.yaml, %v built in", a.Action, got, a.Keys)
		}
	}
	if _, err := theme.NewKeyMap(cfg.UI.Keys); err != nil {
		t.Fatalf("the shipped bindings do not load: %v", err)
	}
}
