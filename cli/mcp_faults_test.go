package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/mcptest"
)

// fakeMCPEnv configures the fake MCP server (this test binary) as
// "fake", with extra configuration lines for it, and plans in order.
func fakeMCPEnv(t *testing.T, extra string, plans ...string) *cliEnv {
	t.Helper()
	e := scriptedEnv(t, "The answer.", plans...)
	cfg := fmt.Sprintf("mcp:\n  - name: fake\n    command: %s\n    env: %s\n    trust: true\n%s", os.Args[0], mcptest.EnvYAML("serve"), extra)
	e.writeUserConfig(cfg)
	return e
}

// TestRunMCPFailuresEndTheTaskNotTheTurn: a tool whose server crashes
// mid-call, and one that hangs past task_timeout, each fail their own
// task with the cause; the other task's result and the answer stand.
func TestRunMCPFailuresEndTheTaskNotTheTurn(t *testing.T) {
	t.Parallel()
	// The hang is on a second server: the crash ends every call in
	// flight on its own.
	slow := fmt.Sprintf("  - name: slow\n    command: %s\n    env: %s\n    trust: true\n", os.Args[0], mcptest.EnvYAML("serve"))
	e := fakeMCPEnv(t, slow, `{"tasks":[{"task":"fake.echo","id":1,"dep":[],"args":{"text":"still here"}},`+
		`{"task":"fake.crash","id":2,"dep":[1],"args":{}},{"task":"slow.hang","id":3,"dep":[],"args":{}}]}`)
	e.env["CHORUS_TASK_TIMEOUT"] = "3s"
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, "echo, crash and hang")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	byID := map[float64]map[string]any{}
	for _, ev := range eventsOf(t, stdout, "task_end") {
		byID[ev["id"].(float64)] = ev
	}
	if byID[1]["status"] != "ok" || !strings.Contains(byID[1]["result"].(string), "still here") {
		t.Errorf("echo: %v", byID[1])
	}
	if err, _ := byID[2]["error"].(string); !strings.Contains(err, "the MCP server fake stopped during the call to fake.crash") || !strings.Contains(err, "segmentation fault in the frobnicator") {
		t.Errorf("crash: %v", byID[2])
	}
	if err, _ := byID[3]["error"].(string); !strings.Contains(err, "timed out after 3s (task_timeout)") {
		t.Errorf("hang: %v", byID[3])
	}
	if ans := eventsOf(t, stdout, "answer"); len(ans) != 1 || !strings.Contains(ans[0]["text"].(string), "The answer.") {
		t.Errorf("answer %v", ans)
	}
}

// TestRunMCPMappedToolIsACandidate: a tool mapped onto a task of the
// catalog (tasks: {summarization: [echo]}) is a candidate there, ranked
// first as a configured model, shown by chorus models list, and run with
// the task's text as its text argument.
func TestRunMCPMappedToolIsACandidate(t *testing.T) {
	t.Parallel()
	e := fakeMCPEnv(t, "    tasks: {summarization: [echo]}\n", `{"tasks":[{"task":"summarization","id":1,"dep":[],"args":{"text":"a long story"}}]}`)
	e.env["CHORUS_CONTROLLER_TASKS"] = "false"
	stdout, stderr, code := e.run("models", "list", "summarization")
	if code != 0 || !strings.Contains(stdout, "fake.echo") || !strings.Contains(stdout, "mcp") {
		t.Fatalf("models list: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], "fake.echo") {
		t.Errorf("the mapped tool does not rank first:\n%s", stdout)
	}
	stdout, stderr, code = e.run("run", "--json", "--out", e.out, "summarize a long story")
	end := eventsOf(t, stdout, "task_end")
	if code != 0 || len(end) != 1 || end[0]["model"] != "fake.echo" || !strings.Contains(end[0]["result"].(string), `"text":"a long story"`) {
		t.Fatalf("exit %d task_end %v stderr %s", code, end, stderr)
	}
}

// TestMCPListShowsStateAndFix: chorus mcp list shows a running server
// with its tools (the ones that ask marked) and a failed one with why.
func TestMCPListShowsStateAndFix(t *testing.T) {
	t.Parallel()
	e := fakeMCPEnv(t, fmt.Sprintf("  - name: broken\n    command: %s\n    env: {%s: nostart}\n", os.Args[0], mcptest.FakeEnv), `{"tasks":[]}`)
	stdout, stderr, code := e.run("mcp", "list")
	if code != 1 {
		t.Fatalf("exit %d (want 1: a server failed)\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"fake  stdio  ", "running (fake 1),", "fake.echo(text)", "asks fake.delete-everything()",
		"broken  stdio", "failed: the MCP server broken did not start", "cannot open the", "database: permission denied"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("mcp list lacks %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("a line is over 80 columns: %q", line)
		}
	}
	stdout, _, _ = e.run("skills")
	if !strings.Contains(stdout, "fake.echo") || !strings.Contains(stdout, "[MCP fake]") || !strings.Contains(stdout, "[MCP fake, asks]") {
		t.Errorf("chorus skills does not list the MCP tools with their server:\n%s", stdout)
	}
}

// TestMCPStartProblemsAreTold: a server that did not start, and a tool the
// configuration names that its server does not offer (a typo in tools:),
// are said where the user is — chorus run's log, with the fix — not only
// in chorus mcp list; mcp list names the tool its server lacks, and what
// the server does offer.
func TestMCPStartProblemsAreTold(t *testing.T) {
	t.Parallel()
	e := fakeMCPEnv(t, "    tools: [echo, ecoh]\n    tasks: {summarization: [ehco]}\n"+fmt.Sprintf("  - name: broken\n    command: %s\n    env: {%s: nostart}\n", os.Args[0], mcptest.FakeEnv), `{"tasks":[]}`)
	_, stderr, code := e.run("run", "--no-save", "hello")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"the MCP server broken did not start", "chorus mcp list", `mcp[0].tools: fake offers no tool "ecoh"`,
		`mcp[0].tasks: fake offers no tool "ehco" for summarization`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("chorus run's log lacks %q:\n%s", want, stderr)
		}
	}
	stdout, _, _ := e.run("mcp", "list")
	if !strings.Contains(stdout, `fake offers no tool "ecoh"`) || !strings.Contains(stdout, "delete-everything") {
		t.Errorf("mcp list does not name the missing tool and what the server offers:\n%s", stdout)
	}
}

// TestRunAllowToolMustNameATool: an --allow-tool pattern naming no
// configured MCP server, or a tool its running server does not offer, is
// a typo that would silently allow nothing: chorus run refuses it up front
// (exit 2) naming what is configured. A server that did not start has no
// tool list, so a pattern for it is only warned about, and the turn runs.
func TestRunAllowToolMustNameATool(t *testing.T) {
	t.Parallel()
	broken := fmt.Sprintf("  - name: broken\n    command: %s\n    env: {%s: nostart}\n", os.Args[0], mcptest.FakeEnv)
	e := fakeMCPEnv(t, broken, `{"tasks":[]}`)
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"nothere.*", []string{`--allow-tool nothere.*`, `no MCP server "nothere"`, "fake, broken"}},
		{"fake.ecoh", []string{`--allow-tool fake.ecoh`, `"ecoh"`, "echo", "delete-everything"}},
		{"fake", []string{`--allow-tool fake`, "server.tool", "server.*"}},
	} {
		_, stderr, code := e.run("run", "--no-save", "--allow-tool", tc.pattern, "hello")
		if code != 2 {
			t.Errorf("--allow-tool %s: exit %d, want 2 (refused up front):\n%s", tc.pattern, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("--allow-tool %s: the refusal lacks %q:\n%s", tc.pattern, w, stderr)
			}
		}
	}
	_, stderr, code := e.run("run", "--no-save", "--allow-tool", "fake.*", "--allow-tool", "fake.echo", "--allow-tool", "broken.frob", "hello")
	if code != 0 {
		t.Fatalf("valid patterns and one for a server that did not start: exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: --allow-tool broken.frob") || !strings.Contains(stderr, "broken did not start") {
		t.Errorf("the pattern for the server that did not start is not warned about:\n%s", stderr)
	}
}
