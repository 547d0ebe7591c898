package sshd_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/sshd"
)

// TestSSHUserCannotHandAHostFileToATool (issue 25, 1): a remote user's
// turn cannot get a file of the server outside their folder to a tool of
// any kind — named by the plan in any form, or arriving as another task's
// output — and nothing of it reaches their terminal; a refusal names their
// folder.
func TestSSHUserCannotHandAHostFileToATool(t *testing.T) {
	t.Parallel()
	kinds := []skills.EndpointKind{skills.EndpointBuiltin, skills.EndpointCommand, skills.EndpointLocal, skills.EndpointHuggingFace, skills.EndpointOpenAI, skills.EndpointOllama, skills.EndpointMCP}
	probes := map[skills.EndpointKind]*endpointstest.Probe{}
	var all []*endpointstest.Probe
	for _, k := range kinds {
		probes[k] = endpointstest.NewProbe(k)
		all = append(all, probes[k])
	}
	var mu sync.Mutex
	plan := `{"tasks": []}`
	s := probeServer(t, func() string {
		mu.Lock()
		defer mu.Unlock()
		return plan
	}, nil, all...)

	secret := "host-only-s3cr3t-0xBADC0DE"
	hostFile := filepath.Join(filepath.Dir(s.users), "host-secret.txt")
	if err := os.WriteFile(hostFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	key := testKey(t, 1)
	_, tm := s.open(t, key, 120, 40)
	mark := tm.waitFor(t, 0, "Ask anything")
	home := filepath.Join(s.users, userDir(key))
	if err := os.Symlink(hostFile, filepath.Join(home, "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	arr, _ := json.Marshal([]string{hostFile})
	forms := []string{hostFile, "file://" + hostFile, "file://localhost" + hostFile, strings.ReplaceAll(url.PathEscape(hostFile), "/", "%2F"),
		"~/../../host-secret.txt", "../../host-secret.txt", "%2e%2e/%2e%2e/host-secret.txt", "please read " + hostFile + " now", string(arr),
		hostFile + "\x00.txt", "innocent.txt", "/etc/passwd", "$HOME/.ssh/id_rsa", "~root/.bashrc"}
	tasks := []map[string]any{
		{"task": "probe-source", "id": 1, "dep": []int{}, "args": map[string]string{"text": "x"}},
		{"task": "probe-builtin", "id": 2, "dep": []int{}, "args": map[string]string{"text": "hello"}},
	}
	// Every kind gets the host file through <resource>-N, and the forms in
	// turn (pipeline's TestGateEveryKindEveryForm has them all for each).
	for _, k := range kinds {
		tasks = append(tasks, map[string]any{"task": "probe-" + string(k), "id": len(tasks) + 1, "dep": []int{1}, "args": map[string]string{"text": "<resource>-1"}})
	}
	for i, f := range forms {
		k := kinds[i%len(kinds)]
		tasks = append(tasks, map[string]any{"task": "probe-" + string(k), "id": len(tasks) + 1, "dep": []int{}, "args": map[string]string{"text": f}})
	}
	b, _ := json.Marshal(map[string]any{"tasks": tasks})
	mu.Lock()
	plan = string(b)
	mu.Unlock()
	probes[skills.EndpointBuiltin].SetSource(hostFile)

	tm.typeText(t, "hand my files to the tools\r")
	tm.waitFor(t, mark, "Served over ssh: done.")
	for _, k := range kinds {
		got := probes[k].Received()
		if k == skills.EndpointBuiltin && len(got) == 1 && got[0] == "hello" {
			continue
		}
		if len(got) > 0 {
			t.Errorf("the %s endpoint got %q", k, got)
		}
	}
	if len(probes[skills.EndpointBuiltin].Received()) != 1 {
		t.Error("the harmless task did not run: the turn proves nothing")
	}
	screen := ansi.Strip(tm.out.String())
	if strings.Contains(screen, secret) {
		t.Error("the host file's contents reached the remote terminal")
	}
	if !strings.Contains(screen, "outside your folder on this server") {
		t.Errorf("no refusal names the user's folder:\n%s", screen)
	}
}

// probeServer is a chorus serve --ssh whose engine runs the probe tasks
// (endpointstest.ProbeSkill) on probes, the planner answering plan() and
// every other call "Served over ssh: done."; tune adjusts its options.
func probeServer(t *testing.T, plan func() string, tune func(*sshd.Options), probes ...*endpointstest.Probe) *server {
	t.Helper()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cat.Put(endpointstest.ProbeSkill(t, ""))
	var eps []endpoints.Endpoint
	for _, p := range probes {
		eps = append(eps, p)
		cat.Put(endpointstest.ProbeSkill(t, p.Kind()))
	}
	ollama := fakeollama.New(t)
	ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", ParameterSize: "8.2B", Capabilities: []string{fakeollama.CapCompletion}})
	ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: plan()}
		}
		return fakeollama.Reply{Content: "Served over ssh: done."}
	})
	ctl, err := controller.New(ollama.URL, "qwen3:8b", controller.Options{Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, eps...), pipeline.Options{OutputDir: t.TempDir(), MaxTasks: 128})
	svc, err := conversation.New(conversation.Options{Engine: eng, Dir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return startServer(t, 4, func(o *sshd.Options) {
		o.Service = svc
		if tune != nil {
			tune(o)
		}
	})
}

// TestSSHUserNeverApprovesAHostTool (issue 25, 2): over ssh a tool that may
// change things runs on the server, so the remote user is never asked: it
// is refused, naming serve.allow_tools, unless the operator's configuration
// allows it — then it runs, again without a question.
func TestSSHUserNeverApprovesAHostTool(t *testing.T) {
	t.Parallel()
	for _, allowed := range []bool{false, true} {
		t.Run(fmt.Sprintf("allowed=%v", allowed), func(t *testing.T) {
			tool := endpointstest.NewProbe(skills.EndpointMCP)
			tool.Guard = "it is not annotated read-only, so it may change things"
			plan := `{"tasks":[{"task":"probe-mcp","id":1,"dep":[],"args":{"text":"delete everything"}}]}`
			s := probeServer(t, func() string { return plan }, func(o *sshd.Options) {
				cfg := *o.Config
				if allowed {
					cfg.Serve.AllowTools = []string{"probe/mcp"}
				}
				o.Config = &cfg
			}, tool)
			_, tm := s.open(t, testKey(t, 1), 120, 40)
			mark := tm.waitFor(t, 0, "Ask anything")
			tm.typeText(t, "run the tool\r")
			tm.waitFor(t, mark, "Served over ssh: done.")
			screen := ansi.Strip(tm.out.String()[mark:])
			if strings.Contains(screen, "Run probe/mcp?") {
				t.Fatal("the remote user was asked to approve a tool that runs on the server")
			}
			got := tool.Received()
			if allowed {
				if len(got) != 1 {
					t.Fatalf("the tool the operator allowed did not run: %q", got)
				}
				return
			}
			if len(got) != 0 {
				t.Fatalf("the tool ran though the operator did not allow it: %q", got)
			}
			if !strings.Contains(screen, "serve.allow_tools") {
				t.Errorf("the refusal does not name serve.allow_tools:\n%s", screen)
			}
		})
	}
}
