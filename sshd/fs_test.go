package sshd_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/sshd"
)

// TestSSHUserCannotReachHostFilesThroughFilesystem (issue 33, 1): with the
// real server-filesystem allowed the host's home and
// serve.allow_tools: [fs.write_file] — docs/deploy.md's example — a
// remote user's plan can neither read nor write a file of the host through
// any of its path-taking tools, in any spelling: the host's key stays
// unread and its authorized_keys unchanged. The user's own file still
// reads, a new file goes to their outputs, and the server their chat ran
// on stops when they disconnect.
func TestSSHUserCannotReachHostFilesThroughFilesystem(t *testing.T) {
	node, script := mcptest.Filesystem(t)
	host := t.TempDir()
	secrets := []string{"HOST-KEY-0x1D_25A", "HOST-NOTE-0x5EC", "HOST-CAFE-0xCAFE"}
	original := "ssh-ed25519 AAAA the-operator"
	for f, body := range map[string]string{".ssh/id_rsa": secrets[0], ".ssh/authorized_keys": original, "notes/secret.txt": secrets[1], "caf\u00e9.txt": secrets[2]} {
		p := filepath.Join(host, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// host is the HOME of Chorus (pipeline.Options.Home, below) and of the
	// server it starts, which inherits it.
	ep := mcp.New(mcp.Options{Servers: []mcp.Server{{Name: "fs", Command: node, Args: []string{script, host}, Trust: true, Env: map[string]string{"HOME": host}}}})
	t.Cleanup(func() { ep.Close() })
	ep.Start(context.Background())
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ep.Skills() {
		cat.Put(s)
	}

	key := filepath.Join(host, ".ssh/id_rsa")
	keys := filepath.Join(host, ".ssh/authorized_keys")
	attacker := "ssh-ed25519 AAAA attacker"
	task := func(tool string, args map[string]string) map[string]any {
		return map[string]any{"task": "fs." + tool, "dep": []int{}, "args": args}
	}
	path := func(p string) map[string]string { return map[string]string{"path": p} }
	write := func(p string) map[string]string { return map[string]string{"path": p, "content": attacker} }
	tasks := []map[string]any{
		task("read_text_file", path(".ssh/id_rsa")),
		task("read_text_file", path("~/.ssh/id_rsa")),
		task("read_text_file", path(key)),
		task("read_text_file", path("../../../"+filepath.Base(host)+"/.ssh/id_rsa")),
		task("read_text_file", path("/"+strings.Repeat("./", 2100)+key[1:])),
		task("read_text_file", path(strings.Repeat("/", 4100)+filepath.Join(host, "notes/secret.txt")[1:])),
		task("read_text_file", path(filepath.Join(host, "cafe\u0301.txt"))),
		task("read_text_file", path("file://"+key)),
		task("read_multiple_files", map[string]string{"paths": `["` + key + `", "notes/secret.txt"]`}),
		task("list_directory", path(filepath.Join(host, ".ssh"))),
		task("list_directory", path("~")),
		task("search_files", map[string]string{"path": host, "pattern": "*"}),
		task("get_file_info", path(key)),
		task("write_file", write(keys)),
		task("write_file", write("~/.ssh/authorized_keys")),
		task("write_file", write(".ssh/authorized_keys")),
		task("write_file", write("/"+strings.Repeat("./", 2100)+keys[1:])),
		task("edit_file", map[string]string{"path": keys, "edits": `[{"oldText": "the-operator", "newText": "attacker"}]`}),
		task("create_directory", path(filepath.Join(host, ".config", "autostart"))),
		task("move_file", map[string]string{"source": "mine.txt", "destination": keys}),
		task("read_text_file", path("mine.txt")),
		task("write_file", map[string]string{"path": "outputs/new.txt", "content": "written for the user"}),
	}
	for i := range tasks {
		tasks[i]["id"] = i + 1
	}
	plan, _ := json.Marshal(map[string]any{"tasks": tasks})

	var mu sync.Mutex
	var prompts strings.Builder
	ollama := fakeollama.New(t)
	ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", ParameterSize: "8.2B", Capabilities: []string{fakeollama.CapCompletion}})
	ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		mu.Lock()
		for _, m := range req.Messages {
			prompts.WriteString(m.Content)
		}
		mu.Unlock()
		if pipeline.PromptStage(req.Messages[len(req.Messages)-1].Content) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: string(plan)}
		}
		return fakeollama.Reply{Content: "Served over ssh: done."}
	})
	ctl, err := controller.New(ollama.URL, "qwen3:8b", controller.Options{Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, ep), pipeline.Options{OutputDir: t.TempDir(), MaxTasks: 64, Revise: 0, Home: host})
	svc, err := conversation.New(conversation.Options{Engine: eng, Dir: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, 4, func(o *sshd.Options) {
		o.Service = svc
		cfg := *o.Config
		cfg.Serve.AllowTools = []string{"fs.write_file"}
		o.Config = &cfg
	})
	k := testKey(t, 1)
	client, tm := s.open(t, k, 120, 40)
	mark := tm.waitFor(t, 0, "Ask anything")
	folder := filepath.Join(s.users, userDir(k))
	if err := os.WriteFile(filepath.Join(folder, "mine.txt"), []byte("mine, the remote user's own"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm.typeText(t, "read mine.txt and try the host's files\r")
	tm.waitFor(t, mark, "Served over ssh: done.")

	screen := ansi.Strip(tm.out.String())
	mu.Lock()
	said := prompts.String()
	mu.Unlock()
	for _, secret := range secrets {
		if strings.Contains(screen, secret) || strings.Contains(said, secret) {
			t.Errorf("the host's %q reached the remote user (screen or the controller)", secret)
		}
	}
	if b, err := os.ReadFile(keys); err != nil || string(b) != original {
		t.Errorf("the host's authorized_keys changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(host, ".config")); err == nil {
		t.Error("a folder was made in the host's home")
	}
	if !strings.Contains(said, "mine, the remote user's own") {
		t.Error("the user's own file was not read: the turn proves nothing")
	}
	if b, err := os.ReadFile(filepath.Join(folder, "outputs", "new.txt")); err != nil || string(b) != "written for the user" {
		t.Errorf("a new file in the user's outputs: %q, %v", b, err)
	}
	if len(chatServers(t, folder)) == 0 {
		t.Error("no server ran in the user's folder for their chat")
	}
	client.Close()
	deadline := time.Now().Add(guard)
	for len(chatServers(t, folder)) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the chat's server still runs after the user left")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// chatServers are the processes running in dir.
func chatServers(t *testing.T, dir string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "for p in /proc/[0-9]*; do [ \"$(readlink $p/cwd 2>/dev/null)\" = \""+dir+"\" ] && echo ${p#/proc/}; done; true").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}
