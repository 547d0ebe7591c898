package doctor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/doctor"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/skills"
)

func TestMain(m *testing.M) {
	// This test binary doubles as a misbehaving MCP server.
	mcptest.FakeMain()
	os.Exit(m.Run())
}

// world is a machine where everything doctor checks is fine: the fakes
// stand in for Ollama and Hugging Face, scripts for the programs.
type world struct {
	ollama *fakeollama.Server
	hf     *fakehf.Server
	bin    string
	env    doctor.Env
}

func healthy(t *testing.T) *world {
	t.Helper()
	defaults, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(defaults, os.DevNull, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{ollama: fakeollama.New(t), hf: fakehf.New(t), bin: t.TempDir()}
	w.ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{fakeollama.CapCompletion, fakeollama.CapThinking}})
	w.hf.RequireToken("hf_good")
	w.hf.Provide("novita", "deepseek-ai/DeepSeek-R1", "deepseek/deepseek-r1", "conversational")
	cfg.Controller.Kind, cfg.Controller.Host, cfg.Controller.Model = "ollama", w.ollama.URL, "qwen3:8b"
	cfg.HuggingFace.BaseURL, cfg.HuggingFace.HubURL, cfg.HuggingFace.Token = w.hf.Root, w.hf.Root, "hf_good"
	cfg.InferenceMode, cfg.Command.Enabled, cfg.Ollama.Experts, cfg.MCP = "hybrid", true, false, nil
	cfg.OutputDir = filepath.Join(t.TempDir(), "outputs")
	w.program("tesseract", `echo "tesseract 5.3.0"`)
	w.program("espeak-ng", `echo "eSpeak NG text-to-speech: 1.51  Data at: /usr/lib"`)
	w.program("ffmpeg", `echo "ffmpeg version 5.1.9-0+deb12u1 Copyright (c) 2000-2026"`)
	w.program("pocketsphinx_continuous", `echo "INFO: cmd_ln.c(697): Parsing command line:" >&2; exit 1`)
	w.program("apertium", `echo "Apertium 3.8.3"`)
	w.env = doctor.Env{Config: cfg, SessionsDir: filepath.Join(t.TempDir(), "sessions"), LookPath: w.lookPath}
	return w
}

// program installs a program: a script that prints what body prints.
func (w *world) program(name, body string) {
	_ = os.WriteFile(filepath.Join(w.bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755)
}

func (w *world) lookPath(name string) (string, error) {
	p := filepath.Join(w.bin, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
	}
	return p, nil
}

// run runs the checks and returns them by id.
func (w *world) run(t *testing.T, o doctor.Options) (doctor.Report, map[string]doctor.Result) {
	t.Helper()
	rep := doctor.Run(context.Background(), doctor.Checks(w.env), o)
	for _, r := range rep.Checks {
		t.Logf("%s %s [%s] %s // %s (%dms)", r.Status, r.ID, r.Name, r.Detail, r.Fix, r.ElapsedMS)
	}
	by := map[string]doctor.Result{}
	for _, r := range rep.Checks {
		by[r.ID] = r
	}
	return rep, by
}

// want fails unless r has status s and its detail and fix say each of
// says.
func want(t *testing.T, r doctor.Result, s doctor.Status, says ...string) {
	t.Helper()
	if r.Status != s {
		t.Errorf("%s: %s (%s; fix %q), want %s", r.ID, r.Status, r.Detail, r.Fix, s)
	}
	for _, w := range says {
		if !strings.Contains(r.Detail+" | "+r.Fix, w) {
			t.Errorf("%s: %q / fix %q lacks %q", r.ID, r.Detail, r.Fix, w)
		}
	}
}

// TestDoctorAllWell: with everything in place every check passes and says
// what it found.
func TestDoctorAllWell(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	rep, by := w.run(t, doctor.Options{})
	if !rep.OK {
		t.Errorf("a healthy machine fails: %+v", rep.Checks)
	}
	want(t, by["config"], doctor.OK, "the defaults")
	want(t, by["controller.server"], doctor.OK, fakeollama.Version+" at "+w.ollama.URL)
	want(t, by["controller.model"], doctor.OK, "pulled, context 40960 tokens", "thinking")
	want(t, by["huggingface.token"], doctor.OK, "valid: chorus-tester", `token "chorus" (read)`)
	want(t, by["huggingface.router"], doctor.OK, "1 chat models from novita")
	want(t, by["program.tesseract"], doctor.OK, "5.3.0 at "+w.bin)
	want(t, by["program.espeak-ng"], doctor.OK, "1.51")
	want(t, by["program.ffmpeg"], doctor.OK, "5.1.9-0+deb12u1")
	want(t, by["folder.sessions"], doctor.OK, "writable")
	want(t, by["folder.outputs"], doctor.OK, "writable")
	if r := rep.Checks[0]; r.ID != "config" || r.Name == "" {
		t.Errorf("the checks' order or names: %+v", rep.Checks)
	}
}

// TestDoctorDeadOllama: Ollama not running fails with how to start it;
// the model cannot be checked then, and says so without failing twice.
func TestDoctorDeadOllama(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	w.ollama.Stop()
	rep, by := w.run(t, doctor.Options{})
	if rep.OK {
		t.Error("a dead Ollama passes")
	}
	want(t, by["controller.server"], doctor.Fail, "Ollama is not reachable at "+w.ollama.URL, "start it with `ollama serve`")
	want(t, by["controller.model"], doctor.Skip, "the server does not answer")
}

// TestDoctorMissingModel: a controller model the server lacks fails with
// the pull to run.
func TestDoctorMissingModel(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	w.env.Config.Controller.Model = "llava:7b"
	rep, by := w.run(t, doctor.Options{})
	if rep.OK {
		t.Error("a missing model passes")
	}
	want(t, by["controller.server"], doctor.OK)
	want(t, by["controller.model"], doctor.Fail, "llava:7b is not pulled", "ollama pull llava:7b")
}

// TestDoctorOpenAIController: an OpenAI-compatible controller (vLLM) is
// asked whether it answers and serves the model; Ollama, whose models
// are experts, is checked on its own.
func TestDoctorOpenAIController(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	vllm := fakeopenai.NewController(t, fakeopenai.VLLM, "Qwen/Qwen3-8B")
	cfg := w.env.Config
	cfg.Controller.Kind, cfg.Controller.Host, cfg.Controller.Model, cfg.Ollama.Experts = "openai", vllm.URL+"/v1", "Qwen/Qwen3-8B", true
	cfg.Env["OLLAMA_HOST"] = w.ollama.URL // Ollama for the experts
	_, by := w.run(t, doctor.Options{})
	want(t, by["controller.server"], doctor.OK, "answering at "+vllm.URL)
	want(t, by["controller.model"], doctor.OK, "on the server")
	want(t, by["ollama.experts"], doctor.OK, fakeollama.Version)
	cfg.Controller.Model = "no/such-model"
	_, by = w.run(t, doctor.Options{})
	want(t, by["controller.model"], doctor.Fail, "no/such-model")
}

// TestDoctorBadToken: a token the Hub refuses fails with where to make a
// new one; no token at all says how to set one, or to run locally.
func TestDoctorBadToken(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	w.env.Config.HuggingFace.Token = "hf_expired"
	_, by := w.run(t, doctor.Options{})
	want(t, by["huggingface.token"], doctor.Fail, "refused the token", "https://huggingface.co/settings/tokens")
	want(t, by["huggingface.router"], doctor.OK) // the router's list is public
	w.env.Config.HuggingFace.Token = ""
	_, by = w.run(t, doctor.Options{})
	want(t, by["huggingface.token"], doctor.Fail, "no token", "HF_TOKEN", "--mode local")
	w.env.Config.InferenceMode = "local"
	rep, by := w.run(t, doctor.Options{})
	want(t, by["huggingface.token"], doctor.Skip, "inference_mode is local")
	want(t, by["huggingface.router"], doctor.Skip)
	if !rep.OK {
		t.Errorf("locally, no token is fine: %+v", rep.Checks)
	}
	w.env.Config.InferenceMode = "hybrid"
	w.hf.Close()
	_, by = w.run(t, doctor.Options{})
	want(t, by["huggingface.router"], doctor.Fail, "cannot reach", "huggingface.base_url")
}

// TestDoctorMissingProgram: a program the command endpoint drives that is
// not installed fails with the package that installs it; the others pass.
func TestDoctorMissingProgram(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	_ = os.Remove(filepath.Join(w.bin, "tesseract"))
	// A preset is optional: missing, it is a skip naming how to install
	// it, and the machine still passes.
	rep, by := w.run(t, doctor.Options{})
	if !rep.OK {
		t.Error("a missing preset fails the machine; it is optional")
	}
	want(t, by["program.tesseract"], doctor.Skip, "optional, tesseract is not installed", "apt-get install tesseract-ocr")
	want(t, by["program.ffmpeg"], doctor.OK)
	// A program the user declared is expected to run: missing, it fails.
	w.env.Config.Command.Programs = []skills.Program{{Name: "whisper", Program: "whisper-cli", Package: "whisper-cpp",
		Tasks: []string{"automatic-speech-recognition"}, Args: []string{"-f", "{audio}"}}}
	rep, by = w.run(t, doctor.Options{})
	if rep.OK {
		t.Error("a missing declared program passes")
	}
	want(t, by["program.whisper"], doctor.Fail, "whisper-cli is not installed", "apt-get install whisper-cpp")
	w.env.Config.Command.Programs = nil
	w.env.Config.Command.Enabled = false
	_, by = w.run(t, doctor.Options{})
	want(t, by["programs"], doctor.Skip, "command.enabled is false")
}

// TestDoctorMCPServers: a server that starts is counted with its tools; one
// that never answers the handshake fails within the check's bound, and
// doctor does not wait for it longer.
func TestDoctorMCPServers(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	w.env.Config.MCP = []config.MCPServer{
		{Name: "fake", Command: os.Args[0], Env: mcptest.Env("serve"), Trust: true},
		{Name: "mute", Command: os.Args[0], Env: map[string]string{mcptest.FakeEnv: "mute"}},
	}
	start := time.Now()
	rep, by := w.run(t, doctor.Options{PerCheck: 2 * time.Second})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("a hung MCP server held doctor for %s (bound 2s a check)", took)
	}
	if rep.OK {
		t.Error("a hung MCP server passes")
	}
	want(t, by["mcp.fake"], doctor.OK, "running (fake 1)", "tool(s)")
	want(t, by["mcp.mute"], doctor.Fail, "did not finish the MCP handshake")
	if by["mcp.mute"].Fix == "" {
		t.Errorf("the hung server's check names no fix: %+v", by["mcp.mute"])
	}
}

// TestDoctorFoldersAndConfig: a folder Chorus cannot write fails naming it
// and the setting that moves it; a configuration refused fails with its
// key, and the other checks still run on the defaults.
func TestDoctorFoldersAndConfig(t *testing.T) {
	t.Parallel()
	w := healthy(t)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w.env.Config.OutputDir = filepath.Join(file, "outputs")
	cfgFile := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("controller:\n  modle: qwen3:8b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	defaults, _ := os.ReadFile("../config.yaml")
	_, err := config.Load(defaults, cfgFile, nil)
	if err == nil {
		t.Fatal("a typo in the configuration was accepted")
	}
	w.env.ConfigFile, w.env.ConfigErr = cfgFile, err
	rep, by := w.run(t, doctor.Options{})
	if rep.OK {
		t.Error("an unwritable folder and a refused configuration pass")
	}
	want(t, by["folder.outputs"], doctor.Fail, "cannot make "+w.env.Config.OutputDir, "output_dir")
	want(t, by["config"], doctor.Fail, "controller.modle", "did you mean controller.model", "the other checks use the defaults")
	want(t, by["controller.server"], doctor.OK)
}

// TestRunBoundsAHungCheck: a check that ignores its deadline altogether is
// a failure at the bound, with its fix, and the others' results stand.
func TestRunBoundsAHungCheck(t *testing.T) {
	t.Parallel()
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	checks := []doctor.Check{
		{ID: "stuck", Name: "stuck", Hung: "restart it", Run: func(context.Context) doctor.Result { <-never; return doctor.Result{Status: doctor.OK} }},
		{ID: "quick", Name: "quick", Run: func(context.Context) doctor.Result { return doctor.Result{Status: doctor.OK, Detail: "fine"} }},
		{ID: "late", Name: "late", Run: func(ctx context.Context) doctor.Result {
			<-ctx.Done()
			return doctor.Result{Status: doctor.Fail, Detail: "gave up: " + ctx.Err().Error()}
		}},
	}
	start := time.Now()
	rep := doctor.Run(context.Background(), checks, doctor.Options{PerCheck: 300 * time.Millisecond})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %s with a bound of 300ms a check", took)
	}
	if rep.OK || rep.Checks[0].Status != doctor.Fail || rep.Checks[0].Fix != "restart it" || !strings.Contains(rep.Checks[0].Detail, "no answer within 300ms") {
		t.Errorf("the stuck check: %+v", rep.Checks[0])
	}
	if rep.Checks[1].Status != doctor.OK || rep.Checks[1].Detail != "fine" {
		t.Errorf("the quick check: %+v", rep.Checks[1])
	}
	if r := rep.Checks[2]; r.Status != doctor.Fail || !strings.Contains(r.Detail, context.DeadlineExceeded.Error()) {
		t.Errorf("a check's own words for its timeout are kept: %+v", r)
	}
}
