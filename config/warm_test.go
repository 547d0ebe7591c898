package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarmControllerFollowsTheBill: the prompt head is warmed on Ollama
// and on a keyless OpenAI-compatible server, not on one with a key (a
// hosted API bills the warm-up's input tokens) unless the user says on;
// off turns it off everywhere, and a misspelt value names the key.
func TestWarmControllerFollowsTheBill(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		kind, key, warm string
		want            bool
	}{
		{"ollama by default", "", "", "", true},
		{"ollama off", "", "", "off", false},
		{"own vLLM without a key", "openai", "", "", true},
		{"hosted API with a key", "openai", "sk-hosted", "", false},
		{"hosted API asked to warm", "openai", "sk-hosted", "on", true},
		{"yaml false", "openai", "", "false", false},
		{"yaml true", "openai", "sk-hosted", "true", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, env := testEnv(t)
			if tc.kind != "" {
				env["CHORUS_CONTROLLER_KIND"] = tc.kind
			}
			env["CHORUS_CONTROLLER_KEY"] = tc.key
			if tc.warm != "" {
				env["CHORUS_CONTROLLER_WARM"] = tc.warm
			}
			c, err := Load(defaults(t), "", env)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.WarmController(); got != tc.want {
				t.Fatalf("WarmController() = %v, want %v (controller.warm %q)", got, tc.want, c.Controller.Warm)
			}
		})
	}
	_, env := testEnv(t)
	env["CHORUS_CONTROLLER_WARM"] = "sometimes"
	if _, err := Load(defaults(t), "", env); err == nil || !strings.Contains(err.Error(), "controller.warm") || !strings.Contains(err.Error(), "auto, on or off") {
		t.Fatalf("a bad controller.warm: %v", err)
	}
}

// TestWarmFromTheFile: the file's spellings, YAML booleans included,
// decode into controller.warm.
func TestWarmFromTheFile(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{"on": true, "off": false, "true": true, "false": false, "yes": true, "no": false, "auto": true} {
		dir, env := testEnv(t)
		file := filepath.Join(dir, "config.yaml")
		if err := os.WriteFile(file, []byte("controller:\n  warm: "+in+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(defaults(t), file, env)
		if err != nil {
			t.Fatalf("warm: %s: %v", in, err)
		}
		if got := c.WarmController(); got != want {
			t.Errorf("warm: %s → %v (%q), want %v", in, got, c.Controller.Warm, want)
		}
	}
}
