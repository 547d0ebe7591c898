package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestModelsListExplainsExclusions(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	e.env["HF_TOKEN"] = ""
	out, stderr, code := e.run("models", "list", "canny-text-to-image", "automatic-speech-recognition")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// ControlNet runs only on a configured local (JARVIS) server.
	canny := out[:strings.Index(out, "automatic-speech-recognition")]
	if !strings.Contains(canny, "no candidate can run now") || !strings.Contains(canny, "needs a local inference server (set local.url)") {
		t.Fatalf("canny-text-to-image listing:\n%s", canny)
	}
	if !strings.Contains(out, "no Hugging Face token") {
		t.Fatalf("a missing token is not named as the reason:\n%s", out)
	}
}

func TestModelsListConstraints(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	out, _, code := e.run("models", "list", "--constrain", "license=apache-2.0 max-size=100M", "automatic-speech-recognition")
	if code != 0 {
		t.Fatal(out)
	}
	if !strings.Contains(out, "is not in the allow-list (apache-2.0)") || !strings.Contains(out, "exceeds max-size 100M") {
		t.Fatalf("constraint exclusions missing:\n%s", out)
	}
	// Constraints that, with the mode, leave nothing are said once.
	_, stderr, code := e.run("--mode", "huggingface", "models", "list", "--constrain", "local-only", "image-to-text")
	if code != 0 || strings.Count(stderr, "warning: local-only with inference_mode huggingface") != 1 {
		t.Fatalf("local-only in huggingface mode: exit %d stderr %q", code, stderr)
	}
	_, stderr, code = e.run("models", "list", "--constrain", "licence", "x")
	if code != 2 || !strings.Contains(stderr, "license needs a value") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestModelsListSaysUnmetConstraint: a best= benchmark no candidate of a
// task reports does not decide the ranking; the listing says so, as the
// turn's log and answer do, instead of passing the download ranking off
// as the best.
func TestModelsListSaysUnmetConstraint(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	out, stderr, code := e.run("models", "list", "--constrain", "best=cider:coco", "text-to-image")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "constraint not applied: no candidate reports cider:coco — fell back to downloads") {
		t.Fatalf("the unmet constraint is not said:\n%s", out)
	}
}

// TestModelsListFitsEightyColumns: on a pipe the candidates fit 80
// columns — the table when it fits, otherwise two lines per candidate —
// and a model on the user's own server is not said to have 0 downloads.
func TestModelsListFitsEightyColumns(t *testing.T) {
	t.Parallel()
	e, _ := openAIEnv(t, nil)
	e.env["CHORUS_INFERENCE_MODE"] = "hybrid" // the catalog's cloud models too
	out, stderr, code := e.run("models", "list", "text-to-image", "image-to-text", "translation")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		// An exclusion is a sentence the terminal may wrap; rows are not.
		if n := utf8.RuneCountInString(line); n > 80 && !strings.HasPrefix(line, "  excluded ") {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	if !regexp.MustCompile(`\* 1\. sd-turbo\n\s+openai \(localai\) · downloads unknown · licence unknown`).MatchString(out) {
		t.Errorf("the server's model is not listed first with its facts:\n%s", out)
	}
	if strings.Contains(out, " 0 downloads") {
		t.Errorf("a self-hosted model is said to have 0 downloads:\n%s", out)
	}
	if !strings.Contains(out, "black-forest-labs/FLUX.1-schnell") || !strings.Contains(out, "600K downloads") {
		t.Errorf("the catalog's candidates lost their facts:\n%s", out)
	}
}

// TestModelsSync syncs one task from a fake Hub API and checks that the
// listing is cached and that selection then sees the synced models.
func TestModelsSync(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	page, err := os.ReadFile(filepath.Join("..", "skills", "testdata", "hub", "automatic-speech-recognition.json"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got []string
	)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Path != "/api/models" || r.URL.Query().Get("pipeline_tag") != "automatic-speech-recognition" {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(page)
	}))
	defer hub.Close()
	e.env["CHORUS_HUGGINGFACE_HUB_URL"] = hub.URL
	out, stderr, code := e.run("models", "sync", "asr")
	if code != 0 || !strings.Contains(out, "✓ automatic-speech-recognition") {
		t.Fatalf("exit %d out %q stderr %q", code, out, stderr)
	}
	mu.Lock()
	first := slices.Clone(got)
	mu.Unlock()
	if len(first) == 0 || !strings.Contains(first[0], "sort=downloads") {
		t.Fatalf("hub requests = %v", first)
	}
	e.hf.Model("openai/whisper-small", "automatic-speech-recognition")
	out, _, code = e.run("models", "list", "automatic-speech-recognition")
	if code != 0 || !strings.Contains(out, "synced from the Hub") || !strings.Contains(out, "openai/whisper-small") {
		t.Fatalf("listing after sync:\n%s", out)
	}
	// An unreachable Hub is a clear failure that keeps the cache.
	hub.Close()
	out, stderr, code = e.run("models", "sync", "automatic-speech-recognition")
	if code != 1 || !strings.Contains(out+stderr, "not synced") {
		t.Fatalf("exit %d out %q stderr %q", code, out, stderr)
	}
	out, _, _ = e.run("models", "list", "automatic-speech-recognition")
	if !strings.Contains(out, "synced from the Hub") {
		t.Fatal("a failed sync lost the previous listing")
	}
}

// TestSkillsFitEightyColumns: `chorus skills` on a pipe fits 80 columns —
// each skill with its inputs, outputs, model count and the start of its
// description — rather than rows the terminal wraps mid-word.
func TestSkillsFitEightyColumns(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	out, stderr, code := e.run("skills")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	if !regexp.MustCompile(`(?m)^retrieval\s+text → text\s+2\b.*\n\s+\S`).MatchString(out) {
		t.Errorf("the retrieval skill is not listed with its facts and description:\n%s", out)
	}
}

// TestConstraintSpelledAsInTheConfig: --constrain takes the config file's
// spelling (prefer=smallest, prefer=best benchmark=…), and the config file
// the command line's (prefer: best=wer:common_voice), with the same result.
func TestConstraintSpelledAsInTheConfig(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	want, _, code := e.run("models", "list", "--constrain", "smallest", "automatic-speech-recognition")
	if code != 0 {
		t.Fatal(want)
	}
	got, stderr, code := e.run("models", "list", "--constrain", "prefer=smallest", "automatic-speech-recognition")
	if code != 0 || got != want {
		t.Fatalf("prefer=smallest: exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	want, _, _ = e.run("models", "list", "--constrain", "best=wer:common_voice", "automatic-speech-recognition")
	got, stderr, code = e.run("models", "list", "--constrain", "prefer=best benchmark=wer:common_voice", "automatic-speech-recognition")
	if code != 0 || got != want || !strings.Contains(got, `no recorded "wer common_voice" result`) {
		t.Fatalf("prefer=best benchmark=…: exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
	e.env["CHORUS_CONSTRAINTS_PREFER"] = "best=wer:common_voice"
	got, stderr, code = e.run("models", "list", "automatic-speech-recognition")
	if code != 0 || got != want {
		t.Fatalf("prefer: best=wer:common_voice in the config: exit %d %s\n%s\nwant\n%s", code, stderr, got, want)
	}
}

// TestModelsSyncLocalOnlyTask: a task no Hub listing has (ocr runs on local
// programs and servers) is said so, once, and is not a failure.
func TestModelsSyncLocalOnlyTask(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the Hub was asked %s for a task it has no listing for", r.URL)
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	}))
	defer hub.Close()
	e.env["CHORUS_HUGGINGFACE_HUB_URL"] = hub.URL
	out, stderr, code := e.run("models", "sync", "ocr")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d stderr %q: a task with nothing to sync is not a failure\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "ocr runs on local programs and local inference servers only — nothing to sync") || strings.Contains(out, "ocr: ocr") || strings.Contains(out, "✗") {
		t.Fatalf("out:\n%s", out)
	}
}

// TestModelsSyncShowsNoPasswordOrEscape: `chorus models sync` names the
// Hub it could not use without the password inside huggingface.hub_url,
// and the Hub's own error text reaches the terminal cleaned, so a server
// cannot write to the user's clipboard (OSC 52) or retitle the window.
func TestModelsSyncShowsNoPasswordOrEscape(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"bad tag \u001b]52;c;ZXZpbA==\u0007 \u001b]0;owned\u0007"}`))
	}))
	defer hub.Close()
	e.env["CHORUS_HUGGINGFACE_HUB_URL"] = strings.Replace(hub.URL, "http://", "http://admin:HubPass99@", 1)
	out, stderr, code := e.run("models", "sync", "automatic-speech-recognition")
	if code != 1 || !strings.Contains(out, "admin:REDACTED@") {
		t.Fatalf("exit %d: the Hub is not named, redacted:\n%s\n%s", code, out, stderr)
	}
	if strings.Contains(out+stderr, "HubPass99") {
		t.Errorf("the password inside huggingface.hub_url was shown:\n%s\n%s", out, stderr)
	}
	if strings.ContainsRune(out+stderr, 0x1b) || strings.ContainsRune(out+stderr, 0x07) {
		t.Errorf("the Hub's escape sequences reached the terminal: %q", out+stderr)
	}
}

// TestModelsSyncUnreachableHubSaidOnce: offline, `chorus models sync` tries
// the first task, and the Hub's silence stops it. The others were not tried:
// they are said to be so in one line, not each given the first task's error
// ("✗ translation: listing audio-classification models…", 28 times).
func TestModelsSyncUnreachableHubSaidOnce(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	hub := httptest.NewServer(http.NotFoundHandler())
	hub.Close()
	e.env["CHORUS_HUGGINGFACE_HUB_URL"] = hub.URL
	out, stderr, code := e.run("models", "sync", "image-classification", "translation", "text-to-image")
	if code != 1 || !strings.Contains(stderr, "3 of 3 tasks were not synced") {
		t.Fatalf("exit %d stderr %q\n%s", code, stderr, out)
	}
	if n := strings.Count(out, "cannot reach the Hub"); n != 1 {
		t.Errorf("the Hub's failure is told %d times:\n%s", n, out)
	}
	if strings.Count(out, "listing image-classification models") != 1 || strings.Contains(out, "✗ translation: listing") {
		t.Errorf("a task is given another's error:\n%s", out)
	}
	if !strings.Contains(out, "translation, text-to-image") || !strings.Contains(out, "not tried") {
		t.Errorf("the tasks not tried are not named:\n%s", out)
	}
}

// TestSkillsListsPrograms: `chorus skills` lists the programs — presets
// and the user's — and one that is not installed as missing, with what
// to install; a declaration that cannot run stops Chorus naming its key.
func TestSkillsListsPrograms(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	e.writeUserConfig(`
command:
  programs:
    - name: mytool
      program: /no/such/mytool
      package: mytool-data
      tasks: [summarization]
      stdin: "{text}"
`)
	out, stderr, code := e.run("skills")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`mytool \(yours\)\s+\(?summarization\)?\s+missing — apt-get install mytool-data`).MatchString(out) ||
		!strings.Contains(out, "pocketsphinx") || !strings.Contains(out, "apertium") {
		t.Errorf("the programs are not listed:\n%s", out)
	}
	e.writeUserConfig(`
command:
  programs:
    - name: mytool
      tasks: [summarization]
      args: ["{image}"]
`)
	_, stderr, code = e.run("skills")
	if code != 2 || !strings.Contains(stderr, "command.programs[0].args") || !strings.Contains(stderr, "{image} is not an argument of summarization") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestModelsListProgramsUnderConstraints: a declared program is a
// candidate like any model — ranked first since the user declared it,
// and filtered by its licence and size under the constraints.
func TestModelsListProgramsUnderConstraints(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	e.env["CHORUS_COMMAND_ENABLED"] = "true"
	e.writeUserConfig(`
command:
  programs:
    - name: myasr
      program: cat
      tasks: [automatic-speech-recognition]
      args: ["{audio}"]
      license: mit
      size: 50MB
`)
	out, stderr, code := e.run("--mode", "local", "models", "list", "automatic-speech-recognition")
	if code != 0 || !regexp.MustCompile(`\* 1\.\s+myasr\s+command\s+downloads unknown\s+mit\s+50 MB`).MatchString(out) {
		t.Fatalf("exit %d %s\n%s", code, stderr, out)
	}
	out, _, _ = e.run("--mode", "local", "models", "list", "--constrain", "license=apache-2.0", "automatic-speech-recognition")
	if !strings.Contains(out, "excluded myasr — licence mit is not in the allow-list (apache-2.0)") {
		t.Errorf("licence constraint:\n%s", out)
	}
	out, _, _ = e.run("--mode", "local", "models", "list", "--constrain", "max-size=10MB", "automatic-speech-recognition")
	if !strings.Contains(out, "excluded myasr — 50 MB exceeds max-size 10MB") {
		t.Errorf("size constraint:\n%s", out)
	}
}
