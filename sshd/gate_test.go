package sshd_test

import (
	"encoding/json"
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
	kinds := []endpoints.Kind{endpoints.Builtin, endpoints.Command, endpoints.Local, endpoints.HuggingFace, endpoints.OpenAI, endpoints.Ollama, endpoints.MCP}
	probes := map[endpoints.Kind]*endpointstest.Probe{}
	var eps []endpoints.Endpoint
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cat.Put(endpointstest.ProbeSkill(t, ""))
	for _, k := range kinds {
		probes[k] = endpointstest.NewProbe(k)
		eps = append(eps, probes[k])
		cat.Put(endpointstest.ProbeSkill(t, k))
	}
	var mu sync.Mutex
	plan := `{"tasks": []}`
	ollama := fakeollama.New(t)
	ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", ParameterSize: "8.2B", Capabilities: []string{fakeollama.CapCompletion}})
	ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			mu.Lock()
			defer mu.Unlock()
			return fakeollama.Reply{Content: plan}
		}
		return fakeollama.Reply{Content: "Served over ssh: done."}
	})
	ctl, err := controller.New(ollama.URL, "qwen3:8b", controller.Options{Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, eps...), pipeline.Options{OutputDir: t.TempDir(), MaxTasks: 128})
	svc, err := conversation.New(conversation.Options{Engine: eng, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, 4, func(o *sshd.Options) { o.Service = svc })

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
	for _, k := range kinds {
		tasks = append(tasks, map[string]any{"task": "probe-" + string(k), "id": len(tasks) + 1, "dep": []int{1}, "args": map[string]string{"text": "<resource>-1"}})
		for _, f := range forms {
			tasks = append(tasks, map[string]any{"task": "probe-" + string(k), "id": len(tasks) + 1, "dep": []int{}, "args": map[string]string{"text": f}})
		}
	}
	b, _ := json.Marshal(map[string]any{"tasks": tasks})
	mu.Lock()
	plan = string(b)
	mu.Unlock()
	probes[endpoints.Builtin].SetSource(hostFile)

	tm.typeText(t, "hand my files to the tools\r")
	tm.waitFor(t, mark, "Served over ssh: done.")
	for _, k := range kinds {
		got := probes[k].Received()
		if k == endpoints.Builtin && len(got) == 1 && got[0] == "hello" {
			continue
		}
		if len(got) > 0 {
			t.Errorf("the %s endpoint got %q", k, got)
		}
	}
	if len(probes[endpoints.Builtin].Received()) != 1 {
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
