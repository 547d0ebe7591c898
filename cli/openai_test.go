package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
)

// openAIEnv is a CLI environment in inference_mode local whose config
// lists one OpenAI-compatible server, the fake, serving an image model, a
// speech recogniser and a vision chat model.
func openAIEnv(t *testing.T, planner func(*api.ChatRequest) fakeollama.Reply) (*cliEnv, *fakeopenai.Server) {
	t.Helper()
	e := newCLIEnv(t, planner)
	fake := fakeopenai.New(t, "sd-turbo", "whisper-1", "qwen2.5-vl")
	fake.RequireKey("sk-local")
	e.env["LOCALAI_KEY"] = "sk-local"
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `inference_mode: local
openai:
  - name: localai
    url: ` + fake.URL + `/v1
    key_env: LOCALAI_KEY
    models:
      text-to-image: [sd-turbo]
      automatic-speech-recognition: [whisper-1]
      visual-question-answering: [qwen2.5-vl]
`
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e, fake
}

// runEvents runs `chorus run --json` and returns the model event, the
// task end and the report of its single task.
func (e *cliEnv) runEvents(args ...string) (model, end, report map[string]any) {
	t := e.t
	t.Helper()
	stdout, stderr, code := e.run(append([]string{"run", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, ev := range jsonLines(t, stdout) {
		switch ev["type"] {
		case "model":
			model = ev
		case "task_end":
			end = ev
		case "report":
			report = ev["report"].(map[string]any)
		}
	}
	return model, end, report
}

func onePlan(task, args string) func(*api.ChatRequest) fakeollama.Reply {
	return func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[{"task":"` + task + `","id":1,"dep":[],"args":` + args + `}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"the configured server"}]}`}
		}
		return fakeollama.Reply{Content: "Done."}
	}
}

// TestRunTextToImageOnOpenAIServer: in inference_mode local, text-to-image
// runs on the configured OpenAI-compatible server with its key; the image
// is saved in the output directory; the model event, the task's end and
// the report name the openai kind and the server.
func TestRunTextToImageOnOpenAIServer(t *testing.T) {
	t.Parallel()
	const prompt = "a lighthouse at night"
	e, fake := openAIEnv(t, onePlan("text-to-image", `{"text":"`+prompt+`"}`))
	model, end, report := e.runEvents("--out", e.out, "paint "+prompt)
	if model["model"] != "sd-turbo" || model["endpoint"] != "openai" || model["provider"] != "localai" {
		t.Errorf("model event %v, want sd-turbo on openai (localai)", model)
	}
	if end["status"] != "ok" {
		t.Fatalf("task_end %v", end)
	}
	files, _ := end["files"].([]any)
	if len(files) != 1 || !strings.HasPrefix(files[0].(string), e.out) {
		t.Fatalf("files %v, want one in %s", files, e.out)
	}
	data, err := os.ReadFile(files[0].(string))
	if err != nil {
		t.Fatal(err)
	}
	if w, _, err := fakehf.ImageSize(data); err != nil || w != len(prompt) {
		t.Errorf("saved image %d px wide (%v), want the server's image for the prompt", w, err)
	}
	if answer, _ := report["answer"].(string); !strings.Contains(answer, "on openai (localai)") {
		t.Errorf("the workflow does not name the server: %q", answer)
	}
	reqs := fake.Requests("/v1/images/generations")
	if len(reqs) != 1 || reqs[0].Auth != "Bearer sk-local" || reqs[0].Fields["prompt"] != prompt {
		t.Errorf("requests %+v", reqs)
	}
}

// TestRunSpeechRecognitionOnOpenAIServer: an attached recording is
// uploaded as the multipart file field and the transcript comes back.
func TestRunSpeechRecognitionOnOpenAIServer(t *testing.T) {
	t.Parallel()
	wav := filepath.Join(t.TempDir(), "meeting.wav")
	if err := os.WriteFile(wav, fakehf.WAV(3200, 16000), 0o600); err != nil {
		t.Fatal(err)
	}
	e, fake := openAIEnv(t, onePlan("automatic-speech-recognition", `{"audio":"`+wav+`"}`))
	model, end, _ := e.runEvents("--out", e.out, "--attach", wav, "transcribe this")
	if model["model"] != "whisper-1" || model["endpoint"] != "openai" {
		t.Errorf("model event %v", model)
	}
	if txt, _ := end["result"].(string); end["status"] != "ok" || !strings.Contains(txt, "transcript of meeting.wav (3200 samples at 16000 Hz)") {
		t.Errorf("task_end %v", end)
	}
	if r := fake.Requests("/v1/audio/transcriptions"); len(r) != 1 || r[0].Files["file"] != "meeting.wav" || r[0].Fields["model"] != "whisper-1" {
		t.Errorf("requests %+v", r)
	}
}

// TestRunVisionChatOnOpenAIServer: a question about an attached image goes
// to the server's chat route with the image as a data URL part.
func TestRunVisionChatOnOpenAIServer(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "boats.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o600); err != nil {
		t.Fatal(err)
	}
	e, fake := openAIEnv(t, onePlan("visual-question-answering", `{"image":"`+img+`","text":"how many boats?"}`))
	model, end, _ := e.runEvents("--out", e.out, "--attach", img, "how many boats?")
	if model["model"] != "qwen2.5-vl" || model["endpoint"] != "openai" {
		t.Errorf("model event %v", model)
	}
	if end["status"] != "ok" || end["result"] != "an image of 40x30 px; asked: how many boats?" {
		t.Errorf("task_end %v", end)
	}
	if r := fake.Requests("/v1/chat/completions"); len(r) != 1 || r[0].Images != 1 {
		t.Errorf("requests %+v", r)
	}
}

// TestRunOpenAIServerModelMissing: a configured model the server does not
// list is excluded with a reason naming it, and the task says so.
func TestRunOpenAIServerModelMissing(t *testing.T) {
	t.Parallel()
	e, _ := openAIEnv(t, onePlan("text-to-image", `{"text":"a fox"}`))
	dir := e.env.ConfigDir()
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	cfg = []byte(strings.Replace(string(cfg), "[sd-turbo]", "[flux-dev]", 1))
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := e.run("run", "--json", "--out", e.out, "paint a fox")
	var model map[string]any
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == "model" {
			model = ev
		}
	}
	excluded, _ := model["excluded"].([]any)
	found := false
	for _, x := range excluded {
		xm := x.(map[string]any)
		if xm["id"] == "flux-dev" && strings.Contains(xm["reason"].(string), "does not serve model flux-dev") {
			found = true
		}
	}
	if !found {
		t.Errorf("model event %v, want flux-dev excluded with the reason", model)
	}
}

// TestModelsListOpenAIServers: `chorus models list` shows a configured
// server's model first for its task, on openai (server name); with
// local-only, a server on a public name is excluded with the reason
// (without being contacted), while one on loopback stays.
func TestModelsListOpenAIServers(t *testing.T) {
	t.Parallel()
	e, fake := openAIEnv(t, nil)
	stdout, stderr, code := e.run("models", "list", "visual-question-answering")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "qwen2.5-vl") || !strings.Contains(stdout, "openai (localai)") {
		t.Errorf("list %q, want qwen2.5-vl on openai (localai)", stdout)
	}
	stdout, _, _ = e.run("models", "list", "--constrain", "local-only", "visual-question-answering")
	if !strings.Contains(stdout, "openai (localai)") {
		t.Errorf("a loopback server is local: %q", stdout)
	}
	// In hybrid mode the catalog's cloud models are candidates too; the
	// model the configuration names for the task ranks first.
	e.env["CHORUS_INFERENCE_MODE"] = "hybrid"
	stdout, _, _ = e.run("models", "list", "visual-question-answering")
	if !regexp.MustCompile(`\* 1\.\s+qwen2\.5-vl\s`).MatchString(stdout) {
		t.Errorf("hybrid: the configured model is not ranked first:\n%s", stdout)
	}
	e.env["CHORUS_INFERENCE_MODE"] = "local"

	dir := e.env.ConfigDir()
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	cfg = []byte(strings.Replace(string(cfg), fake.URL, "https://vision.example.com", 1))
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, _ = e.run("models", "list", "--constrain", "local-only", "visual-question-answering")
	if !strings.Contains(stdout, "excluded qwen2.5-vl") || !strings.Contains(stdout, "local-only constraint rules out openai[0] (localai) at vision.example.com") {
		t.Errorf("a public server under local-only: %q", stdout)
	}
}

// TestConfigNeverShowsOpenAIKeys: `chorus config` prints the servers but
// masks their keys, whether written in the file or read from key_env.
func TestConfigNeverShowsOpenAIKeys(t *testing.T) {
	t.Parallel()
	e, _ := openAIEnv(t, nil)
	dir := e.env.ConfigDir()
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	cfg = append(cfg, []byte("  - {name: cloud, url: https://api.example.com, key: sk-secret-in-file, models: {ocr: [m]}}\n")...)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run("config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "sk-local") || strings.Contains(stdout, "sk-secret-in-file") {
		t.Fatalf("a key was printed:\n%s", stdout)
	}
	if !strings.Contains(stdout, "(set, from LOCALAI_KEY)") || !strings.Contains(stdout, "name: cloud") {
		t.Errorf("config output:\n%s", stdout)
	}
}

// TestConfigSaysKeyEnvIsEmpty: a server whose key_env names a variable
// that is not set shows that, rather than an empty key.
func TestConfigSaysKeyEnvIsEmpty(t *testing.T) {
	t.Parallel()
	e, _ := openAIEnv(t, nil)
	e.env["LOCALAI_KEY"] = ""
	stdout, stderr, code := e.run("config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "key: '(not set: LOCALAI_KEY is empty)'") {
		t.Errorf("config output:\n%s", stdout)
	}
}

// TestRunCatalogModelOnOpenAIServer: a vLLM-style server serving a model
// the catalog lists under its Hub id (openai/whisper-large-v3-turbo) runs
// it in hybrid mode before the cloud: the catalog's model gains the
// openai route, keeps its catalog facts (licence), and ranks first.
func TestRunCatalogModelOnOpenAIServer(t *testing.T) {
	t.Parallel()
	wav := filepath.Join(t.TempDir(), "note.wav")
	if err := os.WriteFile(wav, fakehf.WAV(800, 16000), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, onePlan("automatic-speech-recognition", `{"audio":"`+wav+`"}`))
	e.serveSkill("automatic-speech-recognition")
	const id = "openai/whisper-large-v3-turbo"
	fake := fakeopenai.New(t, id)
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "inference_mode: hybrid\nopenai:\n  - name: vllm\n    url: " + fake.URL + "\n    models:\n      automatic-speech-recognition: [" + id + "]\n"
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	model, end, _ := e.runEvents("--out", e.out, "--attach", wav, "transcribe this")
	if model["model"] != id || model["endpoint"] != "openai" || model["provider"] != "vllm" {
		t.Errorf("model event %v, want %s on openai (vllm)", model, id)
	}
	cands, _ := model["candidates"].([]any)
	if len(cands) == 0 || cands[0].(map[string]any)["license"] != "mit" {
		t.Errorf("candidates %v: the catalog's facts should stay", cands)
	}
	if end["status"] != "ok" || len(fake.Requests("/v1/audio/transcriptions")) != 1 || len(e.hf.RequestsFor(id)) != 0 {
		t.Errorf("task_end %v; the server got %d calls, Hugging Face %d", end, len(fake.Requests("/v1/audio/transcriptions")), len(e.hf.RequestsFor(id)))
	}
}

// TestRunBestWithoutBenchmarkSaysSo: `chorus run --constrain best=cider:coco`
// on speech recognition, which no candidate reports, still runs the task
// and says — in the printed model line, the model event and the report —
// that the constraint was not applied.
func TestRunBestWithoutBenchmarkSaysSo(t *testing.T) {
	t.Parallel()
	wav := filepath.Join(t.TempDir(), "note.wav")
	if err := os.WriteFile(wav, fakehf.WAV(800, 16000), 0o600); err != nil {
		t.Fatal(err)
	}
	e, _ := openAIEnv(t, onePlan("automatic-speech-recognition", `{"audio":"`+wav+`"}`))
	const want = "no candidate reports cider:coco — fell back to downloads"
	model, end, report := e.runEvents("--constrain", "best=cider:coco", "--attach", wav, "transcribe this")
	tasks, _ := report["tasks"].([]any)
	if model["unmet"] != want || end["status"] != "ok" || len(tasks) != 1 || tasks[0].(map[string]any)["unmet"] != want {
		t.Errorf("model %v, end %v, report tasks %v", model, end, tasks)
	}
	_, stderr, code := e.run("run", "--constrain", "best=cider:coco", "--attach", wav, "transcribe this")
	if code != 0 || !strings.Contains(stderr, "constraint not applied: "+want) {
		t.Errorf("exit %d, the printed log does not say it:\n%s", code, stderr)
	}
}

// TestRunOpenAIModelMissingIsTheExample: when no model can run a task, the
// one-line reason (shown in the log, the panes and the answer) gives as its
// example the configured server's model that was excluded — the one the
// user meant to run and can fix — not the first catalog model.
func TestRunOpenAIModelMissingIsTheExample(t *testing.T) {
	t.Parallel()
	e, _ := openAIEnv(t, onePlan("text-to-image", `{"text":"a fox"}`))
	dir := e.env.ConfigDir()
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	cfg = []byte(strings.Replace(string(cfg), "[sd-turbo]", "[flux-dev]", 1))
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := e.run("run", "--out", e.out, "paint a fox")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the only task could not run); stderr %q", code, stderr)
	}
	if !regexp.MustCompile(`model: task 1 text-to-image → none: .*e\.g\. flux-dev — .*does not serve model flux-dev`).MatchString(stderr) {
		t.Errorf("the reason does not name the configured model: %q", stderr)
	}
}

// TestOpenAITaskTheKindDoesNotServeStopsEveryCommand: a task an
// OpenAI-compatible server does not serve is refused when the
// configuration loads — by `chorus config` too, not only by the commands
// that build the engine — naming the key and the tasks the kind serves.
func TestOpenAITaskTheKindDoesNotServeStopsEveryCommand(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, chatOnly("unused"))
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "openai:\n  - url: http://127.0.0.1:1\n    models: {depth-estimation: [x]}\n"
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"config"}, {"skills"}, {"run", "hi"}} {
		_, stderr, code := e.run(args...)
		if code != 2 || !strings.Contains(stderr, "openai[0].models") || !strings.Contains(stderr, `unknown task "depth-estimation"`) ||
			!strings.Contains(stderr, "text-to-image") {
			t.Errorf("chorus %v: exit %d, stderr %q; want 2 naming openai[0].models and the tasks served", args, code, stderr)
		}
	}
}
