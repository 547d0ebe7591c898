package ui

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// TestTmuxEndToEnd runs the real binary in a tmux server of its own (-L, so
// a user's tmux is never touched) against a fake Ollama: it types a
// request, reads the screen with capture-pane until the answer appears,
// cancels a second turn with Ctrl+C, and quits with Ctrl+C on the empty
// prompt (twice: the first one right after a cancel only warns). It needs tmux (Debian's, installed by CI) and skips without it.
func TestTmuxEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux); skipping the end-to-end test")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "chorus")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the chorus command failed: %v\n%s", err, out)
	}

	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B"})
	srv.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				last = m.Content
			}
		}
		if planStage(req) == pipeline.StagePlanning {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		if strings.Contains(last, "second") {
			return fakeollama.Reply{Content: "Thinking slowly about the second request", Stall: true}
		}
		if strings.Contains(last, "third") {
			return fakeollama.Reply{Content: "Still pondering the third one", Stall: true}
		}
		return fakeollama.Reply{Content: "The **answer** is forty-two.", ChunkDelay: 5 * time.Millisecond}
	})

	script := filepath.Join(dir, "run.sh")
	vars := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_DATA_HOME": filepath.Join(dir, "data"),
		"XDG_CACHE_HOME": filepath.Join(dir, "cache"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"HF_HOME": filepath.Join(dir, "hf"), "CHORUS_CONTROLLER_HOST": srv.URL, "CHORUS_INFERENCE_MODE": "local", "HF_TOKEN": "",
		"TERM": "xterm-256color", "CHORUS_OUTPUT_DIR": filepath.Join(dir, "out"),
	}
	var sb strings.Builder
	sb.WriteString("#!/bin/sh\n")
	for k, v := range vars {
		fmt.Fprintf(&sb, "export %s=%q\n", k, v)
	}
	fmt.Fprintf(&sb, "exec %q \"$@\" 2>>%q\n", bin, filepath.Join(dir, "stderr"))
	if err := os.WriteFile(script, []byte(sb.String()), 0o755); err != nil {
		t.Fatal(err)
	}

	sock := fmt.Sprintf("chorus-e2e-%d", os.Getpid())
	run := func(args ...string) (string, error) {
		cmd := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := run("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", "sh "+script); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = run("kill-server") })

	screen := func() string {
		out, _ := run("capture-pane", "-p", "-t", "e2e")
		return out
	}
	// waitFor polls the screen until it shows want (or gone, for quit).
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(guard)
		for {
			s := screen()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				stderr, _ := os.ReadFile(filepath.Join(dir, "stderr"))
				t.Fatalf("timed out waiting for %s; screen:\n%s\nstderr:\n%s", what, s, stderr)
			}
			time.Sleep(50 * time.Millisecond) // polling interval of capture-pane, not synchronisation
		}
	}
	contains := func(want string) func(string) bool {
		return func(s string) bool { return strings.Contains(s, want) }
	}
	keys := func(k ...string) {
		t.Helper()
		if out, err := run(append([]string{"send-keys", "-t", "e2e"}, k...)...); err != nil {
			t.Fatalf("send-keys %v: %v\n%s", k, err, out)
		}
	}

	waitFor("the status bar to show Ollama up", contains("ollama ✓"))
	keys("-l", "what is the answer?")
	keys("Enter")
	// The answer on screen is not the turn's end (its report and save
	// follow): the next request waits until the hint no longer offers to
	// cancel a turn, as a person waits for the turn to end.
	s := waitFor("the first turn to end", func(s string) bool {
		return strings.Contains(s, "forty-two") && !strings.Contains(s, "cancels the turn")
	})
	if strings.Contains(s, "**answer**") {
		t.Errorf("the answer should be rendered Markdown:\n%s", s)
	}

	keys("-l", "a second request")
	keys("Enter")
	waitFor("the second answer to stream", contains("Thinking slowly"))
	keys("C-c")
	s = waitFor("the cancellation", contains("Cancelled"))
	if !strings.Contains(s, "forty-two") {
		t.Errorf("the first answer should still be on screen after cancelling the second turn:\n%s", s)
	}

	// Right after a Ctrl+C that cancelled the turn, another one does not
	// quit (people press it twice); it says the next one will.
	keys("C-c")
	waitFor("the quit hint", contains("again quits"))
	keys("C-c") // idle, empty prompt: quit
	deadline := time.Now().Add(guard)
	for {
		if _, err := run("has-session", "-t", "e2e"); err != nil {
			break // the program exited and took the session with it
		}
		if time.Now().After(deadline) {
			t.Fatalf("chorus did not quit on Ctrl+C at an empty prompt; screen:\n%s", screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stderr, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	if len(bytes.TrimSpace(stderr)) > 0 {
		t.Errorf("chorus wrote to stderr: %s", stderr)
	}
	// Both turns were saved in one session file.
	files, _ := filepath.Glob(filepath.Join(dir, "data", "chorus", "sessions", "*.json"))
	if len(files) != 1 {
		t.Fatalf("want one saved session, found %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), "forty-two") || !strings.Contains(string(data), `"cancelled": true`) {
		t.Errorf("the saved session lacks the answer or the cancelled turn:\n%s", data)
	}

	// The next run resumes it; closing the terminal in the middle of a turn
	// (tmux sends SIGHUP, as a dropped ssh connection does) still saves
	// that turn, as cancelled with its partial answer.
	if out, err := run("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", "sh "+script+" --resume latest"); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	// The pane's process is chorus itself (the script execs it): the test
	// waits for it to end before its folders are removed.
	pidOut, err := run("display-message", "-p", "-t", "e2e", "#{pane_pid}")
	pid, perr := strconv.Atoi(strings.TrimSpace(pidOut))
	if err != nil || perr != nil {
		t.Fatalf("tmux pane_pid: %v %v %q", err, perr, pidOut)
	}
	waitFor("the reopened session", contains("reopened (2 turns"))
	// The notice and the restored chat may land in different frames on a
	// busy machine: wait for the answer rather than read one frame.
	waitFor("the reopened chat to show the earlier answer", contains("forty-two"))
	keys("-l", "and a third request")
	keys("Enter")
	waitFor("the third answer to stream", contains("pondering the third"))
	if out, err := run("kill-pane", "-t", "e2e"); err != nil {
		t.Fatalf("tmux kill-pane: %v\n%s", err, out)
	}
	var saved string
	for deadline := time.Now().Add(guard); ; {
		b, _ := os.ReadFile(files[0])
		if saved = string(b); strings.Contains(saved, "pondering the third") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a turn cut off by closing the terminal was not saved:\n%s", saved)
		}
		time.Sleep(50 * time.Millisecond) // polling a file another process writes
	}
	// Saved is not ended: chorus may still be closing the session (its
	// lock, a temporary file) when the test's folders are removed.
	for deadline := time.Now().Add(guard); running(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("chorus (pid %d) still runs after the terminal closed", pid)
		}
		time.Sleep(20 * time.Millisecond) // polling a process that is not this test's child
	}
	if n := strings.Count(saved, `"cancelled": true`); n != 2 {
		t.Errorf("the turn cut off by the hang-up should be saved as cancelled (%d cancelled turns):\n%s", n, saved)
	}
}

// TestScreenshot makes docs/ui-screenshot.png from a real run: the chorus
// binary in tmux, a scripted controller (fakeollama), the built-in image
// tools doing real work. It runs only when CHORUS_SCREENSHOT names the PNG
// to write, and needs tmux, aha and chromium
// (/work/shared/tools/tmux_screenshot.sh or CHORUS_SCREENSHOT_TOOL).
func TestScreenshot(t *testing.T) {
	out := os.Getenv("CHORUS_SCREENSHOT")
	if out == "" {
		t.Skip("set CHORUS_SCREENSHOT=path.png to make the docs screenshot")
	}
	tool := os.Getenv("CHORUS_SCREENSHOT_TOOL")
	if tool == "" {
		tool = "/work/shared/tools/tmux_screenshot.sh"
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "chorus")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = ".."
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	img := writeTestPNG(t, dir)
	srv := fakeollama.New(t)
	srv.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B"})
	plan := fmt.Sprintf(`{"tasks": [{"task": "image-resize", "id": 1, "dep": [], "args": {"image": %q, "text": "50%%"}},
 {"task": "image-convert", "id": 2, "dep": [1], "args": {"image": "<resource>-1", "text": "jpeg"}},
 {"task": "image-crop", "id": 3, "dep": [], "args": {"image": %q, "box": "0,0,16,12"}}]}`, img, img)
	answer := "## Your picture, three ways\n\nI made a **half-size JPEG** and cropped the top-left corner.\n\n" +
		"- the thumbnail is 16×12 pixels\n- the crop keeps the first quarter\n\nTo check the result:\n\n```sh\nfile *.jpg && identify *.png\n```"
	srv.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if planStage(req) == pipeline.StagePlanning {
			return fakeollama.Reply{Content: plan}
		}
		return fakeollama.Reply{Content: answer, ChunkDelay: 10 * time.Millisecond}
	})
	script := filepath.Join(dir, "run.sh")
	body := fmt.Sprintf("#!/bin/sh\nexport XDG_CONFIG_HOME=%q XDG_DATA_HOME=%q XDG_STATE_HOME=%q HF_HOME=%q CHORUS_CONTROLLER_HOST=%q CHORUS_INFERENCE_MODE=local TERM=xterm-256color COLORTERM=truecolor CHORUS_OUTPUT_DIR=%q\ncd %q\nexec %q\n",
		filepath.Join(dir, "c"), filepath.Join(dir, "d"), filepath.Join(dir, "s"), filepath.Join(dir, "hf"), srv.URL, filepath.Join(dir, "out"), dir, bin)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := fmt.Sprintf("chorus-shot-%d", os.Getpid())
	run := func(args ...string) string {
		b, _ := exec.Command(tmux, append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(b)
	}
	run("new-session", "-d", "-s", "shot", "-x", "160", "-y", "44", "sh "+script)
	t.Cleanup(func() { run("kill-server") })
	wait := func(want string) {
		deadline := time.Now().Add(guard)
		for !strings.Contains(run("capture-pane", "-p", "-t", "shot"), want) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %q:\n%s", want, run("capture-pane", "-p", "-t", "shot"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	wait("ollama ✓")
	run("send-keys", "-t", "shot", "-l", "make @fox.png half as big as a jpeg, and crop its top-left corner")
	run("send-keys", "-t", "shot", "Enter")
	wait("identify")
	wait("last ")
	cmd := exec.Command(tool, "shot", out, "1300", "720")
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR=")
	// The tool runs capture-pane on the default socket: point it at ours.
	cmd.Env = append(cmd.Env, "PATH="+shimPath(t, tmux, sock)+":"+os.Getenv("PATH"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, b)
	}
	t.Logf("wrote %s", out)
}

// shimPath returns a directory whose tmux runs the real one on sock.
func shimPath(t *testing.T, tmux, sock string) string {
	d := t.TempDir()
	shim := fmt.Sprintf("#!/bin/sh\nexec %q -L %q \"$@\"\n", tmux, sock)
	if err := os.WriteFile(filepath.Join(d, "tmux"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// running reports whether process pid is alive: not gone and not a zombie
// (the process is tmux's child, or init's once tmux exits, so this test
// cannot wait for it). Without /proc it answers false.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S …".
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
