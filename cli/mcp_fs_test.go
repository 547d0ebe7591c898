package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/mcptest"
)

// fsEnv is a cliEnv whose configuration runs the real reference file
// system server (@modelcontextprotocol/server-filesystem over stdio) as
// "fs", allowed by its own rule the whole of root: what it may not read
// for a turn, Chorus refuses. The planner answers plan in turn.
func fsEnv(t *testing.T, root string, plans ...string) *cliEnv {
	t.Helper()
	node, script := mcptest.Filesystem(t)
	e := scriptedEnv(t, "Done: see the results.", plans...)
	cfg := fmt.Sprintf("mcp:\n  - name: fs\n    command: %s\n    args: [%q, %q]\n    trust: true\n", node, script, root)
	e.writeUserConfig(cfg)
	return e
}

// fsTree lays out a project folder the user gives and, beside it, what
// they do not: root/project/{notes.txt, sub/deep.txt, .env,
// escape.txt -> ../private/secret.txt} and root/private/secret.txt.
func fsTree(t *testing.T) (root, project, secretFile string, secrets []string) {
	t.Helper()
	root = t.TempDir()
	project = filepath.Join(root, "project")
	secretFile = filepath.Join(root, "private", "secret.txt")
	secrets = []string{"TOP-SECRET-0x5EC12E7", "ENV-SECRET-0xE1"}
	for f, body := range map[string]string{"project/notes.txt": "the project notes say hello", "project/sub/deep.txt": "deep inside",
		"project/.env": secrets[1], "private/secret.txt": secrets[0]} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../private/secret.txt", filepath.Join(project, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	return root, project, secretFile, secrets
}

func fsPlan(tasks ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"tasks": tasks})
	return string(b)
}

func fsTask(id int, tool string, dep []int, path string) map[string]any {
	if dep == nil {
		dep = []int{}
	}
	args := map[string]string{}
	if path != "" {
		args["path"] = path
	}
	return map[string]any{"task": "fs." + tool, "id": id, "dep": dep, "args": args}
}

// TestRunMCPFilesystemFolderGrant (issues 27, 2 and 25, 1): with the real
// server-filesystem configured on a folder holding more than the user
// gives, a folder the user attached (--attach DIR) or typed is a grant of
// its paths: the tool lists it and reads a file in it, even a nested one.
// A file outside it — named by the plan as a path, a file:// URL, a
// sentence, a link inside the folder, a hidden file of the folder, or
// arriving as another tool's output (<resource>-N) — is refused with the
// fix, and its text reaches neither stdout, nor the controller, nor the
// session, nor the log.
func TestRunMCPFilesystemFolderGrant(t *testing.T) {
	root, project, secretFile, secrets := fsTree(t)
	plan := fsPlan(
		fsTask(1, "list_directory", nil, project),
		fsTask(2, "read_text_file", nil, filepath.Join(project, "notes.txt")),
		fsTask(3, "read_text_file", nil, filepath.Join(project, "sub", "deep.txt")),
		fsTask(4, "read_text_file", nil, secretFile),
		fsTask(5, "read_text_file", nil, "file://"+secretFile),
		fsTask(6, "read_text_file", nil, filepath.Join(project, "escape.txt")),
		fsTask(7, "read_text_file", nil, filepath.Join(project, ".env")),
		fsTask(8, "list_directory", nil, root),
		fsTask(9, "list_allowed_directories", nil, ""),
		fsTask(10, "list_directory", []int{9}, "<resource>-9"),
	)
	for _, how := range []string{"attached", "typed"} {
		t.Run(how, func(t *testing.T) {
			e := fsEnv(t, root, plan)
			args := []string{"run", "--json", "--out", e.out}
			request := "list my project folder and read its notes"
			if how == "attached" {
				args = append(args, "--attach", project)
			} else {
				request = "list " + project + "/ and read its notes"
			}
			stdout, stderr, code := e.run(append(args, request)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			ends := map[float64]map[string]any{}
			for _, ev := range eventsOf(t, stdout, "task_end") {
				ends[ev["id"].(float64)] = ev
			}
			result := func(id float64) string {
				if ends[id] == nil || ends[id]["status"] != "ok" {
					t.Fatalf("task %v did not run: %v", id, ends[id])
				}
				return ends[id]["result"].(string)
			}
			if r := result(1); !strings.Contains(r, "notes.txt") || !strings.Contains(r, "sub") {
				t.Errorf("the folder's listing: %q", r)
			}
			if r := result(2); !strings.Contains(r, "the project notes say hello") {
				t.Errorf("the file in the folder: %q", r)
			}
			if r := result(3); !strings.Contains(r, "deep inside") {
				t.Errorf("the nested file: %q", r)
			}
			var notes []string
			for _, ev := range eventsOf(t, stdout, "plan") {
				for _, n := range ev["notes"].([]any) {
					notes = append(notes, n.(string))
				}
			}
			joined := strings.Join(notes, "\n")
			for id, what := range map[int]string{4: secretFile, 5: secretFile, 6: filepath.Join(project, "escape.txt"), 7: filepath.Join(project, ".env"), 8: root} {
				if !strings.Contains(joined, fmt.Sprintf("dropped task %d (fs.", id)) || !strings.Contains(joined, what) {
					t.Errorf("task %d (%s) was not dropped with a note naming it:\n%s", id, what, joined)
				}
			}
			if !strings.Contains(joined, "attach it with @path or --attach") {
				t.Errorf("the notes do not name the fix:\n%s", joined)
			}
			if end := ends[10]; end == nil || end["status"] != "error" || !strings.Contains(end["error"].(string), "is not a file you gave this turn — attach it with @") {
				t.Errorf("a folder another tool named was passed on: %v", end)
			}
			for where, data := range fsPlaces(t, e, stdout, stderr) {
				for _, s := range secrets {
					if strings.Contains(data, s) {
						t.Errorf("%s holds the text of a file the user did not give", where)
					}
				}
			}
		})
	}
}

// fsPlaces is everything a turn leaves: its events (stdout), stderr, the
// session it saved, the log, and every prompt the controller was sent.
func fsPlaces(t *testing.T, e *cliEnv, stdout, stderr string) map[string]string {
	t.Helper()
	places := map[string]string{"stdout": stdout, "stderr": stderr}
	sessions, _ := filepath.Glob(filepath.Join(e.env.SessionsDir(), "*.json"))
	for _, p := range sessions {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		places["the session "+filepath.Base(p)] = string(b)
	}
	if len(sessions) == 0 {
		t.Error("no session was saved: the check of what it holds proves nothing")
	}
	if b, err := os.ReadFile(filepath.Join(e.env.StateDir(), "chorus.log")); err == nil {
		places["the log"] = string(b)
	}
	var prompts strings.Builder
	for _, req := range e.ollama.ChatRequests() {
		for _, m := range req.Messages {
			prompts.WriteString(m.Content)
		}
	}
	places["the controller's prompts"] = prompts.String()
	return places
}
