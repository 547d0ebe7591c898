package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/ollamatest"
	"github.com/chorusai/chorus/skills"
)

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestRealOllamaController runs full turns with a real Ollama server whose
// controller model has random weights: its plans are schema-valid nonsense
// (invented arguments, missing files, cyclic or truncated plans). Chorus
// must end every turn with an answer or a clear one-line error — never hang,
// never panic.
func TestRealOllamaController(t *testing.T) {
	t.Parallel()
	host := ollamatest.Shared(t)

	// Experts: every Hugging Face model of the catalog, served by the fake.
	hf := fakehf.New(t)
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat.All() {
		for _, m := range s.Models {
			if m.ServedBy(skills.EndpointHuggingFace) {
				hf.Model(m.ID, s.Name)
			}
		}
	}

	work := t.TempDir()
	chorus := chorusBinary(t)
	img := filepath.Join(work, "photo.png")
	if err := os.WriteFile(img, fakehf.PNG(64, 48), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"), "XDG_CACHE_HOME="+filepath.Join(work, "cache"),
		"XDG_DATA_HOME="+filepath.Join(work, "data"), "HF_HOME="+filepath.Join(work, "hf"),
		"XDG_STATE_HOME="+filepath.Join(work, "state"),
		"OLLAMA_HOST="+host, "CHORUS_CONTROLLER_MODEL="+ollamatest.Model, "CHORUS_CONTROLLER_PLAN_TOKENS=160",
		"CHORUS_CONTROLLER_NUM_CTX=4096", "CHORUS_CONTROLLER_TIMEOUT=60s", "CHORUS_CONTROLLER_ANSWER_TOKENS=96",
		"CHORUS_HUGGINGFACE_BASE_URL="+hf.URL, "CHORUS_HUGGINGFACE_HUB_URL="+hf.Root, "HF_TOKEN=hf_test", "CHORUS_TASK_TIMEOUT=30s")

	turns := []struct {
		name string
		args []string
	}{
		{"greeting", []string{"run", "--json", "hi there!"}},
		{"composed", []string{"run", "--json", "generate an image of a red fox, describe it and read the description aloud"}},
		{"attached", []string{"run", "--json", "--attach", img, "what is in this picture? answer in one word"}},
		{"constraints", []string{"run", "--json", "transcribe /tmp/does-not-exist.wav using only apache-2.0 models, the smallest one"}},
		{"plain", []string{"run", "--out", filepath.Join(work, "out"), "summarize the plot of Hamlet and translate it to French"}},
		{"plan-only", []string{"run", "--json", "--plan-only", "detect the objects in " + img + " and draw boxes"}},
		{"image-chain", []string{"run", "--json", "--attach", img, "caption this photo, then make a picture from the caption"}},
		{"audio", []string{"run", "--json", "read 'good morning' aloud and then transcribe the recording"}},
		{"debug", []string{"run", "--json", "--debug", "classify the sentiment of: I love this"}},
		{"continued", []string{"run", "--continue", "and now in German, please"}},
	}
	// The same turns with the controller on Ollama's own API, and on its
	// OpenAI-compatible one at /v1 (controller.kind openai): a real server
	// with a real grammar sampler for the openai backend too.
	kinds := map[string][]string{"ollama": nil, "openai": {"CHORUS_CONTROLLER_KIND=openai", "CHORUS_CONTROLLER_HOST=" + host + "/v1"}}
	// One after another: the server reuses the prompt head a turn shares
	// with the one before (Chorus keeps it stable for that), and turns at
	// once each fill a slot of their own — three times slower in all.
	for _, kind := range []string{"ollama", "openai"} {
		env := append(slices.Clone(env), kinds[kind]...)
		for _, tt := range turns {
			// On /v1, the turns that exercise what differs: a schema'd
			// plan with tasks, an image for the controller, plan only.
			if kind == "openai" && !slices.Contains([]string{"composed", "attached", "plan-only"}, tt.name) {
				continue
			}
			runRealTurn(t, kind+"/"+tt.name, chorus, env, tt.args)
		}
	}
	// What the turns saved — sessions, the log — holds none of it either,
	// although the model writes it (said in the test's log).
	t.Logf("the tiny model's own raw reply holds %d special tokens", rawSpecialTokens(t, host))
	for _, dir := range []string{"data", "state"} {
		_ = filepath.WalkDir(filepath.Join(work, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
			}
			if ct := http.DetectContentType(b); strings.HasPrefix(ct, "image/") || strings.HasPrefix(ct, "audio/") || strings.HasPrefix(ct, "video/") {
				return nil // a picture or a sound a task made (by its signature): bytes, not text
			}
			if l := realLeaks(string(b)); len(l) > 0 {
				t.Errorf("%s carries %q", p, l)
			}
			return nil
		})
	}
}

// realSpecial are the special tokens of the tiny model's vocabulary, which
// it samples like any other token.
var realSpecial = []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}

// realLeaks returns what of out must never reach an output: the tiny
// model's special tokens and control characters (newline and tab aside),
// as they are or as JSON escapes them (a --json line, a saved session).
func realLeaks(out string) []string {
	var found []string
	texts := []string{out}
	for line := range strings.Lines(out) {
		var v any
		if json.Unmarshal([]byte(line), &v) == nil {
			texts = append(texts, jsonStrings(v)...)
		}
	}
	if v := any(nil); json.Unmarshal([]byte(out), &v) == nil {
		texts = append(texts, jsonStrings(v)...)
	}
	for _, s := range texts {
		for _, tok := range realSpecial {
			if strings.Contains(s, tok) {
				found = append(found, tok)
			}
		}
		for _, r := range s {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				found = append(found, fmt.Sprintf("%U", r))
			}
		}
	}
	return found
}

// jsonStrings returns every string a decoded JSON value holds, keys too.
func jsonStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(append(out, k), jsonStrings(e)...)
		}
		return out
	}
	return nil
}

// rawSpecialTokens asks the tiny model for a raw completion, as no Chorus
// code sees it, and counts the special tokens in it: that it writes them
// is what makes the checks above mean something.
func rawSpecialTokens(t *testing.T, host string) int {
	body := `{"model":"` + ollamatest.Model + `","prompt":"hi","raw":true,"stream":false,"options":{"num_predict":400,"temperature":1,"seed":7}}`
	resp, err := http.Post(host+"/api/generate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Logf("raw completion: %v", err)
		return 0
	}
	defer resp.Body.Close()
	var r struct{ Response string }
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Logf("raw completion: %v", err)
	}
	n := 0
	for _, tok := range realSpecial {
		n += strings.Count(r.Response, tok)
	}
	return n
}

// runRealTurn runs one turn of TestRealOllamaController: it must end with an
// answer or a one-line error.
func runRealTurn(t *testing.T, name, chorus string, env, args []string) {
	tt := struct{ args []string }{args}
	t.Run(name, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, chorus, tt.args...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start).Round(time.Millisecond)
		if ctx.Err() != nil {
			t.Fatalf("chorus hung: no result after %s\nstdout tail: %s", elapsed, tail(stdout.String(), 2000))
		}
		if strings.Contains(stderr.String(), "panic:") || strings.Contains(stderr.String(), "goroutine ") {
			t.Fatalf("chorus panicked:\n%s", stderr.String())
		}
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		for what, out := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
			if l := realLeaks(out); len(l) > 0 {
				t.Errorf("%s carries what the model must not get into an output: %q\n%s", what, l, tail(out, 2000))
			}
		}
		summary := summarize(t, tt.args, stdout.String())
		t.Logf("%s: exit %d in %s; %s; stderr %q", name, code, elapsed, summary, strings.TrimSpace(stderr.String()))
		if code != 0 {
			msg := strings.TrimSpace(stderr.String())
			if !slicesContain(tt.args, "--json") {
				// A plain run's progress log is on stderr too; the
				// cause is its last line.
				msg = msg[strings.LastIndex(msg, "\n")+1:]
			}
			if !strings.HasPrefix(msg, "chorus: ") || strings.Contains(msg, "\n") {
				t.Fatalf("exit %d must come with a one-line cause on stderr, got %q", code, msg)
			}
			return
		}
		if slicesContain(tt.args, "--plan-only") {
			if !strings.Contains(stdout.String(), `"type":"plan"`) {
				t.Fatalf("--plan-only printed no plan: %s", stdout.String())
			}
			return
		}
		if !slicesContain(tt.args, "--json") {
			if strings.TrimSpace(stdout.String()) == "" {
				t.Fatal("plain run printed nothing")
			}
			return
		}
		if !strings.Contains(stdout.String(), `"type":"answer"`) {
			t.Fatalf("exit 0 without an answer event:\n%s", tail(stdout.String(), 2000))
		}
	})
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// summarize describes a JSON run for the test log: planned tasks, repairs,
// task outcomes.
func summarize(t *testing.T, args []string, stdout string) string {
	if !slicesContain(args, "--json") {
		return fmt.Sprintf("%d bytes of plain output", len(stdout))
	}
	var tasks, notes, ok, failed int
	for _, line := range strings.Split(stdout, "\n") {
		if line == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Errorf("stdout line is not JSON: %q", tail(line, 200))
			continue
		}
		switch ev["type"] {
		case "plan":
			ts, _ := ev["tasks"].([]any)
			ns, _ := ev["notes"].([]any)
			tasks, notes = len(ts), len(ns)
		case "task_end":
			if ev["status"] == "ok" {
				ok++
			} else {
				failed++
			}
		}
	}
	return fmt.Sprintf("plan kept %d task(s) after %d repair note(s); %d ok, %d failed", tasks, notes, ok, failed)
}
