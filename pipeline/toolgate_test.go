package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// TestToolGetsWhatWasJudged (issue 33, 1 and 4): a tool that reads paths
// from a folder of its own (an MCP server's allowed folder) is judged
// there, whether the plan wrote the value or another task's output
// brought it: a file of that folder the user did not give is refused,
// the refusal naming the folder; the file the user gave, named relative,
// reaches the tool — and its approval, and the report — as the absolute
// path judged; a URL of this machine is never handed to it.
func TestToolGetsWhatWasJudged(t *testing.T) {
	t.Parallel()
	secret := "TOOL-FOLDER-SECRET-0x7"
	srv, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(srv, "secret.txt"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(work, "mine.txt")
	if err := os.WriteFile(mine, []byte("the user's own"), 0o600); err != nil {
		t.Fatal(err)
	}
	tool := endpointstest.NewProbe(skills.EndpointMCP)
	tool.Guard = "it is not annotated read-only, so it may change things"
	tool.Reader = &scope.Reader{Tool: true, Dirs: []scope.Base{{Dir: srv, Name: "the probe's allowed folder"}}}
	source := endpointstest.NewProbe(skills.EndpointBuiltin)
	source.SetSource("secret.txt")
	// An MCP tool's skill: its argument goes as written, not as a file's words.
	toolSkill := endpointstest.ProbeSkill(t, skills.EndpointMCP)
	toolSkill.Tool = &skills.Tool{Server: "probe", Name: "mcp", Params: map[string]skills.Param{"text": {Property: "text", Schema: &skills.Schema{Type: skills.SchemaType{"string"}}}}}
	r := newRig(t, withEndpoints(source, tool), withSkills(endpointstest.ProbeSkill(t, ""), toolSkill))
	r.planJSON(
		task(1, "probe-mcp", nil, map[string]string{"text": "secret.txt"}),
		task(2, "probe-source", nil, map[string]string{"text": "anything"}),
		task(3, "probe-mcp", []int{2}, map[string]string{"text": "<resource>-2"}),
		task(4, "probe-mcp", nil, map[string]string{"text": "mine.txt"}),
		task(5, "probe-mcp", nil, map[string]string{"text": "get http://127.0.0.1:9090/metrics"}),
	)
	var mu sync.Mutex
	var approved []pipeline.Approval
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "hand the tool my file", Attachments: []string{mine},
		Approve: func(_ context.Context, a pipeline.Approval) error {
			mu.Lock()
			approved = append(approved, a)
			mu.Unlock()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.Received(); len(got) != 1 || got[0] != mine {
		t.Fatalf("the tool got %q, want only %s", got, mine)
	}
	for _, id := range []int{1, 3} {
		if end := r.taskEnd(id); end.Status == pipeline.StatusOK || !strings.Contains(end.Error, "the probe's allowed folder "+srv) {
			t.Errorf("task %d: %+v, want a refusal naming the tool's folder", id, end)
		}
	}
	if end := r.taskEnd(5); end.Status == pipeline.StatusOK || !strings.Contains(end.Error, "was not handed to the tool") {
		t.Errorf("task 5: %+v, want the URL refused", end)
	}
	mu.Lock()
	if len(approved) != 1 || approved[0].Args["text"] != mine {
		t.Errorf("the approval asked for %+v, want the path the tool gets", approved)
	}
	mu.Unlock()
	for _, tr := range rep.Tasks {
		if tr.ID == 4 && tr.Args["text"] != mine {
			t.Errorf("the report shows %q, want %s", tr.Args["text"], mine)
		}
	}
	if where := leaked(r, rep, secret); len(where) > 0 {
		t.Errorf("the secret reached %v", where)
	}
}
