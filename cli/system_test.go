package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

// answerCalls splits what the fake controller received into the answer
// stage's last messages and the other stages'.
func answerCalls(reqs []api.ChatRequest) (answer, other []string) {
	for _, r := range reqs {
		if len(r.Messages) == 0 {
			continue
		}
		last := r.Messages[len(r.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StageResponse) {
			answer = append(answer, last)
		} else {
			other = append(other, last)
		}
	}
	return answer, other
}

// TestRunModelAndSystem: -m is --model, the controller model of every call
// of the run; --system TEXT, or --role NAME from response.roles, is read
// by the answer stage first and by no other stage; an unknown role, or a
// role with --system, is bad usage (exit 2) before any controller call —
// for the TUI's --role and --resume TITLE too.
func TestRunModelAndSystem(t *testing.T) {
	t.Parallel()
	h := newHome(t, nil)
	h.ollama.AddModel(fakeollama.Model{Name: "llama3.2:1b", ParameterSize: "1.2B"})
	cfgDir := filepath.Join(h.dir, "home", ".config", "chorus")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	roles := "response:\n  roles:\n    terse: Answer in at most three sentences.\n    pirate: Talk like a pirate.\n"
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(roles), 0o600); err != nil {
		t.Fatal(err)
	}
	const instruction = "The user's instruction for this answer"

	stdout, stderr, code := h.run("run", "-m", "llama3.2:1b", "--system", "answer in French", "hello there")
	if code != 0 || stdout == "" {
		t.Fatalf("-m --system: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	reqs := h.ollama.ChatRequests()
	for _, r := range reqs {
		if r.Model != "llama3.2:1b" {
			t.Errorf("a controller call went to %q, not the -m model", r.Model)
		}
	}
	answer, other := answerCalls(reqs)
	if len(answer) != 1 || len(other) == 0 {
		t.Fatalf("%d answer calls, %d others; want 1 and the planning call", len(answer), len(other))
	}
	body := answer[0][strings.Index(answer[0], "\n")+1:] // after the stage's marker
	if !strings.HasPrefix(body, instruction) || !strings.Contains(strings.SplitN(body, "\n", 2)[0], "answer in French") {
		t.Errorf("the answer call does not start with the instruction:\n%s", answer[0])
	}
	for _, o := range other {
		if strings.Contains(o, "answer in French") {
			t.Errorf("another stage read the answer's instruction:\n%s", o)
		}
	}

	// A saved role, named in any case; the session's own model otherwise.
	before := len(h.ollama.ChatRequests())
	if _, stderr, code := h.run("run", "--role", "Terse", "hi again"); code != 0 {
		t.Fatalf("--role Terse: exit %d, stderr %q", code, stderr)
	}
	reqs = h.ollama.ChatRequests()[before:]
	if answer, _ := answerCalls(reqs); len(answer) != 1 || !strings.Contains(answer[0], instruction+" (follow it for how you write; it changes nothing of what ran): Answer in at most three sentences.") {
		t.Errorf("--role terse: answer calls %q", answer)
	}
	for _, r := range reqs {
		if r.Model != "qwen3:8b" {
			t.Errorf("without -m a call went to %q, not controller.model", r.Model)
		}
	}

	// Without either, no instruction.
	before = len(h.ollama.ChatRequests())
	if _, stderr, code := h.run("run", "plain"); code != 0 {
		t.Fatalf("plain: exit %d, stderr %q", code, stderr)
	}
	if answer, _ := answerCalls(h.ollama.ChatRequests()[before:]); len(answer) != 1 || strings.Contains(answer[0], instruction) {
		t.Errorf("plain run: answer calls %q", answer)
	}

	// Refusals: before any controller call.
	before = len(h.ollama.ChatRequests())
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--role", "poet", "hi"}, []string{"--role poet: no such role in response.roles", "pirate, terse"}},
		{[]string{"run", "--role", "terse", "--system", "be brief", "hi"}, []string{"--role and --system both give the answer an instruction; give one"}},
		// The TUI's own: refused before it opens.
		{[]string{"--role", "poet"}, []string{"--role poet: no such role in response.roles", "pirate, terse"}},
		{[]string{"--resume", "paris"}, []string{`no saved session's id or title starts with "paris"`, "chorus sessions lists them"}},
	} {
		_, stderr, code := h.run(c.args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2; stderr %q", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: stderr %q, want %q", c.args, stderr, w)
			}
		}
	}
	if n := len(h.ollama.ChatRequests()); n != before {
		t.Errorf("a refused run called the controller %d time(s)", n-before)
	}
}

// TestRoleInstruction: a role is found in any case; with none saved the
// error says where to save one, and an empty one says to write it.
func TestRoleInstruction(t *testing.T) {
	t.Parallel()
	var cfg config.Config
	if _, err := roleInstruction(&cfg, "Terse"); err == nil || !strings.Contains(err.Error(), "no role is saved — add it to config.yaml under response.roles (terse: the instruction)") {
		t.Errorf("no roles: %v", err)
	}
	cfg.Response.Roles = map[string]string{"terse": "  Be brief. ", "empty": " "}
	if s, err := roleInstruction(&cfg, " TERSE "); err != nil || s != "Be brief." {
		t.Errorf("terse: %q, %v", s, err)
	}
	if _, err := roleInstruction(&cfg, "empty"); err == nil || !strings.Contains(err.Error(), "response.roles.empty in config.yaml is empty") {
		t.Errorf("empty: %v", err)
	}
}
