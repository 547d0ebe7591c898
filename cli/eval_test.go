package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// evalSuite writes a two-request JSONL suite: a chain on a generated
// picture and a single text task.
func evalSuite(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mine.jsonl")
	lines := `{"id": "pic", "request": "Describe photo.png and read the description aloud", "gold_tasks": [{"task": "image-to-text", "id": 1, "dep": []}, {"task": "text-to-speech", "id": 2, "dep": [1]}]}
{"id": "fr", "request": "Translate 'good morning' into French", "gold_tasks": [{"task": "translation", "id": 1, "dep": []}]}
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// goldPlanner answers evalSuite's requests with their gold plans, except
// that the picture's chain forgets its dependency.
func goldPlanner(req *api.ChatRequest) fakeollama.Reply {
	if stageOf(req) != "plan" {
		return fakeollama.Reply{Content: `{"choices": []}`}
	}
	last := req.Messages[len(req.Messages)-1].Content
	if m := regexp.MustCompile(`- (\S+photo\.png) \(image`).FindStringSubmatch(last); m != nil {
		return fakeollama.Reply{Content: `{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"` + m[1] + `"}},` +
			`{"task":"text-to-speech","id":2,"dep":[],"args":{"text":"hello"}}]}`}
	}
	return fakeollama.Reply{Content: `{"tasks":[{"task":"translation","id":1,"dep":[],"args":{"text":"good morning","tgt_lang":"fr"}}]}`}
}

func TestEvalJSON(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, goldPlanner)
	stdout, stderr, code := e.run("eval", "--json", "--select", "--suite", evalSuite(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Models []struct {
			Model   string
			Metrics map[string]struct {
				Runs           int
				ValidAsWritten struct{ Hits, Of int } `json:"valid_as_written"`
				NodeF1         struct{ F1 float64 }   `json:"node_f1"`
				EdgeF1         struct {
					F1      float64
					Defined bool
				} `json:"edge_f1"`
				GED    float64
				FoT    struct{ Hits, Of int }
				Chosen *struct{ Hits, Of int }
			}
			Results []struct {
				Case string
				Plan []map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if len(doc.Models) != 1 || doc.Models[0].Model != "ctl" {
		t.Fatalf("models = %+v", doc.Models)
	}
	all := doc.Models[0].Metrics["all"]
	// Nodes: 3 of 3, F1 1. Edges: the one gold edge missing → 0 of 0
	// predicted, 1 gold: defined, F1 0. GED: pic 1 of max(2, 2)+1+0 =
	// 1/3, fr 0 → mean 1/6. FoT: fr only, 1/2.
	if all.Runs != 2 || all.ValidAsWritten.Hits != 2 || all.NodeF1.F1 != 1 || !all.EdgeF1.Defined || all.EdgeF1.F1 != 0 ||
		all.GED < 0.1666 || all.GED > 0.1667 || all.FoT.Hits != 1 {
		t.Errorf("metrics = %+v", all)
	}
	// --select: the three planned tasks each got a model.
	if all.Chosen == nil || all.Chosen.Hits != 3 || all.Chosen.Of != 3 {
		t.Errorf("chosen = %+v, want 3 of 3", all.Chosen)
	}
	if chain := doc.Models[0].Metrics["chain"]; chain.Runs != 1 {
		t.Errorf("chain column has %d runs, want 1", chain.Runs)
	}
	if len(doc.Models[0].Results) != 2 || len(doc.Models[0].Results[0].Plan) != 2 {
		t.Errorf("results = %+v", doc.Models[0].Results)
	}
	// Not a terminal: the progress is a line per request on stderr.
	if !strings.Contains(stderr, "eval: 2/2 ctl fr") {
		t.Errorf("stderr has no progress lines: %q", stderr)
	}
}

func TestEvalTableReadsIn80Columns(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, goldPlanner)
	e.env["NO_COLOR"] = "1"
	stdout, stderr, code := e.run("eval", "--suite", evalSuite(t), "--select")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ctl · suite mine · 2 request(s)", "valid plan, as written", "node F1", "FoT flow of thought", "tasks given a model"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
		if strings.Contains(line, "\x1b") {
			t.Errorf("escape sequence under NO_COLOR: %q", line)
		}
	}
	// node F1 is 1.00 in the "all" column, TaskBench's as well.
	if !regexp.MustCompile(`node F1 \(multiset\)\s+1\.00`).MatchString(stdout) || !regexp.MustCompile(`TaskBench node F1, as written\s+1\.00`).MatchString(stdout) {
		t.Errorf("node F1 row:\n%s", stdout)
	}
}

func TestEvalNamesTheFix(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, goldPlanner)
	_, stderr, code := e.run("eval", "--model", "ctl", "--model", "qwen3:8b", "--suite", evalSuite(t))
	if code != 1 || !strings.Contains(stderr, "ollama pull qwen3:8b") {
		t.Errorf("exit %d, stderr %q; want 1 naming `ollama pull qwen3:8b`", code, stderr)
	}
	_, stderr, code = e.run("eval", "--repeat", "0")
	if code != 2 || !strings.Contains(stderr, "--repeat") {
		t.Errorf("--repeat 0: exit %d, %q", code, stderr)
	}
	_, stderr, code = e.run("eval", "--suite", filepath.Join(t.TempDir(), "none.json"))
	if code != 2 || !strings.Contains(stderr, "--suite") {
		t.Errorf("missing suite: exit %d, %q", code, stderr)
	}
}

func TestEvalOllamaNotRunning(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, goldPlanner)
	e.env["OLLAMA_HOST"] = "http://127.0.0.1:1"
	_, stderr, code := e.run("eval", "--suite", evalSuite(t))
	if code != 1 || !strings.Contains(stderr, "ollama serve") {
		t.Errorf("exit %d, stderr %q; want 1 naming `ollama serve`", code, stderr)
	}
}

// TestEvalInterruptPrintsWhatItHas: Ctrl+C while the second request is
// being planned prints the first request's scores, marked as
// interrupted, and exits 130.
func TestEvalInterruptPrintsWhatItHas(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	bin := chorusBinary(t)
	e := newCLIEnv(t, goldPlanner)
	e.ollama.OnChatContext(func(ctx context.Context, req *api.ChatRequest) fakeollama.Reply {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "French") {
			return fakeollama.Reply{Stall: true} // the second request never ends
		}
		return goldPlanner(req)
	})
	cmd := exec.Command(bin, "eval", "--suite", evalSuite(t))
	cmd.Env = e.childEnv()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "eval: 1/2") {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("eval did not stop within 30s of Ctrl+C")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	out := stdout.String()
	if !strings.Contains(out, "interrupted after 1 of 2 run(s)") || !strings.Contains(out, "node F1") {
		t.Errorf("stdout should hold the partial table:\n%s", out)
	}
}

// TestEvalJSONSaysWhy: per request, --json carries the raw reply, the
// plan as written (TaskBench's reading) and after repair, the gold and
// every metric — enough to see why a model lost a request.
func TestEvalJSONSaysWhy(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, goldPlanner)
	stdout, stderr, code := e.run("eval", "--json", "--suite", evalSuite(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Models []struct {
			Metrics map[string]struct {
				TaskBench struct {
					AsWritten struct {
						Samples, Predicted int
						NodeF1             struct{ F1 float64 } `json:"node_f1"`
						LinkF1             struct{ F1 float64 } `json:"link_f1"`
						ED                 *float64
					} `json:"as_written"`
					AfterRepair map[string]any `json:"after_repair"`
				} `json:"taskbench"`
			}
			Results []struct {
				Case      string
				Replies   []string
				AsWritten *struct {
					Nodes []string
					Links [][2]string
				} `json:"as_written"`
				Plan      []map[string]any
				Gold      []map[string]any
				Score     map[string]any
				TaskBench struct {
					AsWritten   map[string]any `json:"as_written"`
					AfterRepair map[string]any `json:"after_repair"`
				} `json:"taskbench"`
				Arguments *struct{ Hits, Of int }
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	m := doc.Models[0]
	var pic = -1
	for i, r := range m.Results {
		if r.Case == "pic" {
			pic = i
		}
	}
	if pic < 0 {
		t.Fatalf("no result for pic: %+v", m.Results)
	}
	r := m.Results[pic]
	if len(r.Replies) != 1 || !strings.Contains(r.Replies[0], `"text-to-speech"`) {
		t.Errorf("replies %q, want the raw reply", r.Replies)
	}
	// As written: both tasks, no link (the dependency was forgotten).
	if r.AsWritten == nil || strings.Join(r.AsWritten.Nodes, ",") != "image-to-text,text-to-speech" || len(r.AsWritten.Links) != 0 {
		t.Errorf("as written %+v", r.AsWritten)
	}
	if len(r.Gold) != 2 || len(r.Plan) != 2 || r.Score == nil || r.TaskBench.AsWritten == nil || r.TaskBench.AfterRepair == nil || r.Arguments == nil {
		t.Errorf("result lacks gold, plan, score, TaskBench counts or arguments: %+v", r)
	}
	// TaskBench as written over both requests: nodes 3 of 3 → F1 1;
	// links 0 of 1 → F1 0; ed: both sequences right → 0.
	tb := m.Metrics["all"].TaskBench.AsWritten
	if tb.Samples != 2 || tb.Predicted != 2 || tb.NodeF1.F1 != 1 || tb.LinkF1.F1 != 0 || tb.ED == nil || *tb.ED != 0 {
		t.Errorf("TaskBench as written %+v", tb)
	}
}

// TestEvalComparesModelsInOneTable: two models make one table, a column
// each, the better value of each row marked, within 80 columns — and the
// progress lines estimate the time left.
func TestEvalComparesModelsInOneTable(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	e.ollama.AddModel(fakeollama.Model{Name: "qwen2.5-coder:32b-instruct-q4_K_M", ParameterSize: "32B"})
	e.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if req.Model == "ctl" || stageOf(req) != "plan" {
			return goldPlanner(req)
		}
		// The second model plans nothing.
		return fakeollama.Reply{Content: `{"tasks":[]}`}
	})
	e.env["NO_COLOR"] = "1"
	stdout, stderr, code := e.run("eval", "--model", "ctl", "--model", "qwen2.5-coder:32b-instruct-q4_K_M", "--suite", evalSuite(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(stdout, "metric") != 1 {
		t.Errorf("want one table, got:\n%s", stdout)
	}
	// The long name does not fit a column: letters, with a key.
	if !strings.Contains(stdout, "A  ctl") || !strings.Contains(stdout, "B  qwen2.5-coder:32b-instruct-q4_K_M") {
		t.Errorf("no key to the columns:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	// ctl plans the right tasks, the other none: ctl's node F1 is the
	// marked best; the empty planner's latency may tie or win.
	if !regexp.MustCompile(`node F1 \(multiset\)\s+1\.00\*\s+0\.00\s*\n`).MatchString(stdout) {
		t.Errorf("node F1 row should mark A's 1.00:\n%s", stdout)
	}
	if !regexp.MustCompile(`eval: 1/4 ctl \S+ · (<1s|~\d+s) left`).MatchString(stderr) {
		t.Errorf("progress without time left: %q", stderr)
	}
}

func TestEvalProgressTimeLeft(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := newEvalProgress(&b, 10, false)
	now := p.start
	p.now = func() time.Time { return now }
	for i, want := range []string{"~4m30s left", "~4m00s left"} {
		now = now.Add(30 * time.Second)
		p.step(eval.Progress{Model: "m", Case: fmt.Sprint(i)})
		if !strings.Contains(b.String(), want) {
			t.Errorf("after %d of 10 at 30s each: %q, want %q", i+1, b.String(), want)
		}
		b.Reset()
	}
	for range 8 {
		p.step(eval.Progress{Model: "m"})
	}
	if strings.Contains(b.String(), "eval: 10/10 m  · ") || strings.HasSuffix(strings.TrimSpace(b.String()), "left") {
		t.Errorf("the last line still estimates: %q", b.String())
	}
}
