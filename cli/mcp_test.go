package cli

import (
	"fmt"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/sessions"
)

// mcpEnv is a cliEnv whose configuration lists the real reference MCP
// server (server-everything over stdio) as "everything", its annotations
// trusted (mcp[0].trust), so its read-only tools run unasked; plans are the
// planner's replies in order.
func mcpEnv(t *testing.T, plans ...string) *cliEnv {
	t.Helper()
	return mcpEnvTrusting(t, true, plans...)
}

// mcpEnvTrusting is mcpEnv with mcp[0].trust as given.
func mcpEnvTrusting(t *testing.T, trust bool, plans ...string) *cliEnv {
	t.Helper()
	node, script := mcptest.Everything(t)
	e := scriptedEnv(t, "Done: see the results.", plans...)
	cfg := fmt.Sprintf("mcp:\n  - name: everything\n    command: %s\n    args: [%q, stdio]\n    trust: %v\n", node, script, trust)
	e.writeUserConfig(cfg)
	return e
}

func eventsOf(t *testing.T, stdout, typ string) []map[string]any {
	var out []map[string]any
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

// TestRunMCPGetSum: a plan calling everything.get-sum with numbers written
// loosely gets them converted (a note says so) and the tool's answer
// reaches the answer stage as quoted data.
func TestRunMCPGetSum(t *testing.T) {
	t.Parallel()
	e := mcpEnv(t, `{"tasks":[{"task":"everything.get-sum","id":1,"dep":[],"args":{"a":"2.0","b":3}}]}`)
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "add 2 and 3 with the everything server")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	plan := eventsOf(t, stdout, "plan")[0]
	if !strings.Contains(fmt.Sprint(plan["notes"]), `argument a: read "2.0" as 2`) {
		t.Errorf("plan notes %v", plan["notes"])
	}
	end := eventsOf(t, stdout, "task_end")[0]
	if end["status"] != "ok" || end["result"] != "The sum of 2 and 3 is 5." || end["endpoint"] != "mcp" || end["model"] != "everything.get-sum" {
		t.Fatalf("task_end %v", end)
	}
	answerPrompt := ""
	for _, req := range e.ollama.ChatRequests() {
		if m := req.Messages[len(req.Messages)-1].Content; strings.HasPrefix(m, "STAGE: ANSWER") {
			answerPrompt = m
		}
	}
	quoted := answerPrompt[strings.Index(answerPrompt, "<data>")+1 : strings.LastIndex(answerPrompt, "</data>")]
	if !strings.Contains(answerPrompt, "<data>") || !strings.Contains(quoted, `"result": "The sum of 2 and 3 is 5."`) {
		t.Fatalf("the result did not reach the answer stage as quoted data:\n%s", answerPrompt)
	}
}

// TestRunMCPImageFeedsABuiltin: everything.get-tiny-image returns an
// image, kept as a file, which a later built-in task (image-resize) reads
// through <resource>-1.
func TestRunMCPImageFeedsABuiltin(t *testing.T) {
	t.Parallel()
	e := mcpEnv(t, `{"tasks":[{"task":"everything.get-tiny-image","id":1,"dep":[],"args":{}},`+
		`{"task":"image-resize","id":2,"dep":[1],"args":{"image":"<resource>-1","text":"200%"}}]}`)
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "get the tiny image and make it twice as big")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	ends := eventsOf(t, stdout, "task_end")
	if len(ends) != 2 || ends[0]["status"] != "ok" || ends[1]["status"] != "ok" {
		t.Fatalf("task_end %v", ends)
	}
	first := ends[0]["files"].([]any)
	if len(first) != 1 || !strings.HasSuffix(first[0].(string), ".png") {
		t.Fatalf("the tool's image was not kept: %v", first)
	}
	resized := ends[1]["files"].([]any)[0].(string)
	f, err := os.Open(resized)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 40 || b.Dy() != 40 {
		t.Fatalf("resized to %v, want 40x40 (the tool's 20x20 doubled)", b)
	}
}

// TestRunMCPProgress: a long-running tool's progress notifications become
// task_progress events.
func TestRunMCPProgress(t *testing.T) {
	t.Parallel()
	e := mcpEnv(t, `{"tasks":[{"task":"everything.trigger-long-running-operation","id":1,"dep":[],"args":{"duration":"1","steps":"3"}}]}`)
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "run the long operation")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	var msgs []string
	for _, ev := range eventsOf(t, stdout, "task_progress") {
		msgs = append(msgs, ev["message"].(string))
	}
	// The last notification races the result (the SDK hands
	// notifications to their handler on their own goroutine): one that
	// comes after the task ended is dropped, the others are in order.
	want := []string{"everything.trigger-long-running-operation: 1 of 3", "everything.trigger-long-running-operation: 2 of 3", "everything.trigger-long-running-operation: 3 of 3"}
	if len(msgs) < 2 || strings.Join(msgs, "|") != strings.Join(want[:len(msgs)], "|") {
		t.Fatalf("progress %q", msgs)
	}
}

// TestRunMCPSecretsStayOut: everything.get-env returns the server's whole
// environment. Chorus's own secrets — the Hugging Face token, API keys,
// an MCP server key — appear nowhere: not in the result, the answer, the
// session or the log.
func TestRunMCPSecretsStayOut(t *testing.T) {
	t.Parallel()
	e := mcpEnv(t, `{"tasks":[{"task":"everything.get-env","id":1,"dep":[],"args":{}}]}`)
	secrets := map[string]string{"HF_TOKEN": "hf_cli", "OPENAI_API_KEY": "sk-live-0123456789", "CHORUS_MCP_OTHER_KEY": "mcp-key-abcdef",
		"CHORUS_HUGGINGFACE_TOKEN": "hf_cli", "GITHUB_TOKEN": "ghp_0123456789abcdef"}
	maps.Copy(e.env, secrets)
	st := sessions.Store{Dir: e.env.SessionsDir()}
	s := st.New("")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run("run", "--json", "--session", s.ID, "--out", e.out, "show the server's environment")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	end := eventsOf(t, stdout, "task_end")[0]
	if end["status"] != "ok" || !strings.Contains(end["result"].(string), `"PATH"`) {
		t.Fatalf("get-env did not run: %v", end)
	}
	session, err := os.ReadFile(filepath.Join(e.env.SessionsDir(), s.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	logData, err := os.ReadFile(filepath.Join(e.env.StateDir(), "chorus.log"))
	if err != nil {
		t.Fatal(err)
	}
	var prompts strings.Builder
	for _, req := range e.ollama.ChatRequests() {
		for _, m := range req.Messages {
			prompts.WriteString(m.Content)
		}
	}
	for where, data := range map[string]string{"the events": stdout, "stderr": stderr, "the session": string(session), "the log": string(logData), "the controller's prompts": prompts.String()} {
		for k, v := range secrets {
			if strings.Contains(data, v) {
				t.Errorf("%s holds %s's value", where, k)
			}
		}
		if strings.Contains(data, "OPENAI_API_KEY") || strings.Contains(data, "GITHUB_TOKEN") {
			t.Errorf("%s names a secret variable of Chorus's environment", where)
		}
	}
}

// TestRunMCPAsksBeforeAToolThatMayChangeThings: a tool not annotated
// read-only is refused in chorus run, naming --allow-tool; with it, it
// runs.
func TestRunMCPAsksBeforeAToolThatMayChangeThings(t *testing.T) {
	t.Parallel()
	e := mcpEnv(t, `{"tasks":[{"task":"everything.toggle-simulated-logging","id":1,"dep":[],"args":{}}]}`)
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "toggle the logging")
	end := eventsOf(t, stdout, "task_end")
	if code != 1 || len(end) != 1 || end[0]["status"] != "error" ||
		!strings.Contains(end[0]["error"].(string), "not annotated read-only") || !strings.Contains(end[0]["error"].(string), "--allow-tool everything.toggle-simulated-logging") {
		t.Fatalf("exit %d task_end %v stderr %s", code, end, stderr)
	}
	stdout, stderr, code = e.run("run", "--json", "--allow-tool", "everything.toggle-simulated-logging", "--out", e.out, "toggle the logging")
	end = eventsOf(t, stdout, "task_end")
	if code != 0 || end[0]["status"] != "ok" || !strings.Contains(end[0]["result"].(string), "logging") {
		t.Fatalf("allowed: exit %d task_end %v stderr %s", code, end, stderr)
	}
}

// TestRunMCPUntrustedReadOnlyToolAsks (issue 25, 2): a tool's readOnlyHint
// is its server's own claim; unless the server is marked trusted
// (mcp[].trust), chorus run treats its "read-only" tool as one that may
// change things — refused, naming --allow-tool and the setting.
func TestRunMCPUntrustedReadOnlyToolAsks(t *testing.T) {
	t.Parallel()
	e := mcpEnvTrusting(t, false, `{"tasks":[{"task":"everything.get-sum","id":1,"dep":[],"args":{"a":2,"b":3}}]}`)
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "add 2 and 3")
	end := eventsOf(t, stdout, "task_end")
	if code != 1 || len(end) != 1 || end[0]["status"] != "error" {
		t.Fatalf("exit %d task_end %v stderr %s", code, end, stderr)
	}
	if msg := end[0]["error"].(string); !strings.Contains(msg, "not marked trusted (mcp[0].trust)") || !strings.Contains(msg, "--allow-tool everything.get-sum") {
		t.Fatalf("the refusal should name the trust setting and the flag: %s", msg)
	}
}
