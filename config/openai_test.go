package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints/openai"
)

// loadFile loads the file yaml, with the variables vars (name, value,
// name, value…) set.
func loadFile(t *testing.T, yaml string, vars ...string) (*Config, error) {
	t.Helper()
	dir, env := testEnv(t)
	for i := 0; i+1 < len(vars); i += 2 {
		env[vars[i]] = vars[i+1]
	}
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(defaults(t), p, env)
	if err == nil {
		err = c.CheckOpenAITasks(openai.Supports, openai.Tasks())
	}
	return c, err
}

// TestOpenAIServers: the openai list is read, URLs normalised, tasks
// defaulted from the models, the key read from key_env.
func TestOpenAIServers(t *testing.T) {
	t.Parallel()
	c, err := loadFile(t, `
openai:
  - name: laptop
    url: http://localhost:8080/v1/
    tasks: [text-to-image, automatic-speech-recognition]
    models:
      text-to-image: [stablediffusion]
      automatic-speech-recognition: [whisper-1, whisper-1]
  - url: https://vllm.example
    key_env: MY_VLLM_KEY
    models:
      image-to-text: [Qwen/Qwen2.5-VL-7B-Instruct]
`, "MY_VLLM_KEY", "sk-cluster")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.OpenAI) != 2 {
		t.Fatalf("servers %+v", c.OpenAI)
	}
	a, b := c.OpenAI[0], c.OpenAI[1]
	if a.URL != "http://localhost:8080" || a.Name != "laptop" || len(a.Models["automatic-speech-recognition"]) != 1 {
		t.Errorf("first %+v", a)
	}
	if b.Name != "openai[1]" || b.Key != "sk-cluster" || strings.Join(b.Tasks, ",") != "image-to-text" || b.Models["image-to-text"][0] != "Qwen/Qwen2.5-VL-7B-Instruct" {
		t.Errorf("second %+v", b)
	}
}

// TestOpenAIServerProblemsNameTheKey: each mistake is refused at start
// with the key to fix.
func TestOpenAIServerProblemsNameTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, key, msg string }{
		{"openai:\n  - models: {text-to-image: [sd]}\n", "openai[0].url", "is empty"},
		{"openai:\n  - url: localhost:8080\n    models: {text-to-image: [sd]}\n", "openai[0].url", "not an http(s) URL"},
		{"openai:\n  - url: localhost:8080\n    models: {text-to-image: [sd]}\n", "openai[0].url", "write http://localhost:8080"},
		{"openai:\n  - url: http://a\n    modles: {text-to-image: [sd]}\n", "openai[0].modles", "unknown key"},
		{"openai:\n  - url: http://a\n    kye: sk-1\n    models: {text-to-image: [sd]}\n", "openai[0].kye", "unknown key"},
		{"openai:\n  - {url: http://a, models: {ocr: [m]}}\n  - {url: http://b, Models: {ocr: [m]}, voise: x}\n", "openai[1].voise", "unknown key"},
		{"openai:\n  - http://a\n", "openai[0]", "is not a server"},
		{"openai: laptop\n", "openai", "is a list of servers"},
		{"openai:\n  - url: http://a\n    models: [text-to-image]\n", "openai[0].models", "lists model ids by task"},
		{"openai:\n  - url: http://a\n    models: {text-to-picture: [sd]}\n", "openai[0].models", `unknown task "text-to-picture"`},
		{"openai:\n  - url: http://a\n    tasks: [depth-estimation]\n    models: {depth-estimation: [x]}\n", "openai[0].models", "unknown task"},
		{"openai:\n  - url: http://a\n    tasks: [text-to-image, image-editing]\n    models: {text-to-image: [sd]}\n", "openai[0].models.image-editing", "names no model"},
		{"openai:\n  - url: http://a\n    tasks: [text-to-image]\n    models: {text-to-image: [sd], text-to-speech: [k]}\n", "openai[0].models.text-to-speech", "not in openai[0].tasks"},
		{"openai:\n  - url: http://a\n", "openai[0].models", "is empty"},
		{"openai:\n  - {name: x, url: http://a, models: {ocr: [m]}}\n  - {name: X, url: http://b, models: {ocr: [m]}}\n", "openai[1].name", "also openai[0]"},
		{"openai:\n  - {url: http://a, key: k, key_env: K, models: {ocr: [m]}}\n", "openai[0].key_env", "not both"},
		{"openai:\n  url: http://a\n  models: {ocr: [m]}\n", "openai", "is a list of servers"},
	} {
		_, err := loadFile(t, tc.yaml)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("%q: err %v, want key %s with %q", tc.yaml, err, tc.key, tc.msg)
		}
	}
}

// TestOpenAIKeyFromChorusVariable: with neither key nor key_env, the key
// is read from CHORUS_OPENAI_<NAME>_KEY.
func TestOpenAIKeyFromChorusVariable(t *testing.T) {
	t.Parallel()
	c, err := loadFile(t, "openai:\n  - {name: my laptop, url: http://localhost:8080, models: {ocr: [m]}}\n  - {url: http://b, models: {ocr: [m]}}\n",
		"CHORUS_OPENAI_MY_LAPTOP_KEY", "sk-env")
	if err != nil {
		t.Fatal(err)
	}
	if c.OpenAI[0].Key != "sk-env" || c.OpenAI[0].KeyEnv != "CHORUS_OPENAI_MY_LAPTOP_KEY" || c.OpenAI[1].Key != "" {
		t.Errorf("servers %+v", c.OpenAI)
	}
}

// TestWrongKindOfValueNamesTheKey: a value of the wrong kind stops the
// start with the key, the value and what to write — not the decoder's
// report of Go types — and names CHORUS_<KEY> when that is where it came
// from.
func TestWrongKindOfValueNamesTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, key, msg string }{
		{"max_parallel: lots\n", "max_parallel", `"lots" is not a whole number`},
		{"retrieval:\n  results: many\n", "retrieval.results", `"many" is not a whole number`},
		{"ollama:\n  experts: maybe\n", "ollama.experts", `"maybe" is not true or false`},
		{"controller:\n  temperature: hot\n", "controller.temperature", `"hot" is not a number`},
		{"task_timeout: forever\n", "task_timeout", "is not a duration; write one such as 30s"},
		// A bare number has no unit: read as nanoseconds it would time
		// every task out at once.
		{"task_timeout: 300\n", "task_timeout", `"300" is not a duration; write one such as 30s`},
		{"controller:\n  timeout: 120\n", "controller.timeout", `"120" is not a duration`},
		{"controller:\n  timeout: 5 minutes\n", "controller.timeout", `"5 minutes" is not a duration`},
		// The kind of value wanted, not a Go type's name.
		{"inference_mode: [a]\n", "inference_mode", `"[a]" has a value of the wrong kind (want string)`},
		{"spill_quota: [a]\n", "spill_quota", `"[a]" has a value of the wrong kind (want string)`},
	} {
		_, err := loadFile(t, tc.yaml)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) || !strings.HasSuffix(ce.Source, "c.yaml") {
			t.Errorf("%q: err %v, want key %s with %q", tc.yaml, err, tc.key, tc.msg)
		}
	}
	if _, err := loadFile(t, "", "CHORUS_TASK_TIMEOUT", "300"); err == nil || !strings.Contains(err.Error(), `"300" is not a duration`) {
		t.Errorf("CHORUS_TASK_TIMEOUT=300: %v", err)
	}
	_, err := loadFile(t, "", "CHORUS_MAX_PARALLEL", "x")
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "max_parallel" || ce.Source != "CHORUS_MAX_PARALLEL" {
		t.Errorf("from the environment: err %v, want max_parallel from CHORUS_MAX_PARALLEL", err)
	}
}
