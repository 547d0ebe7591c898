package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	return fsEnvHome(t, root, "", plans...)
}

// fsEnvHome is fsEnv with the server's HOME set to home (as a server
// inheriting the user's HOME has it), when home is not "".
func fsEnvHome(t *testing.T, root, home string, plans ...string) *cliEnv {
	t.Helper()
	node, script := mcptest.Filesystem(t)
	e := scriptedEnv(t, "Done: see the results.", plans...)
	cfg := fmt.Sprintf("mcp:\n  - name: fs\n    command: %s\n    args: [%q, %q]\n    trust: true\n", node, script, root)
	if home != "" {
		cfg += fmt.Sprintf("    env: {HOME: %q}\n", home)
	}
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
	t.Parallel()
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
			// The turn's roots replace the folder on the server's command
			// line: it lists the folder given and the outputs folder, not
			// root — and what it lists is no path to pass on whole.
			if r := result(9); slices.Contains(strings.Split(r, "\n"), root) || !strings.Contains(r, project) {
				t.Errorf("the server does not keep to the turn's roots: %q", r)
			}
			if end := ends[10]; end == nil || end["status"] != "error" || !strings.Contains(end["error"].(string), "names no file yet") {
				t.Errorf("a listing another tool wrote was passed on as a path: %v", end)
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

// TestRunMCPFilesystemSpellings (issue 33, 1, 2 and 5): with the real
// server-filesystem allowed the user's home, as a user who points it at
// their home would, no spelling of a file the user did not give reads or
// writes it — relative (from the server's folder), a JSON list, longer
// than any path, decomposed Unicode, a folder, "~" — and the file the user
// gave, named relative, reaches the tool as the absolute path judged,
// which the report shows. Nothing of the other files reaches stdout, the
// controller, the session or the log.
func TestRunMCPFilesystemSpellings(t *testing.T) {
	home := t.TempDir()
	secrets := map[string]string{".ssh/id_rsa": "KEY-0x1D_25A", "notes/secret.txt": "NOTE-SECRET-0x5EC", "caf\u00e9.txt": "CAFE-SECRET-0xCAFE"}
	for f, body := range map[string]string{".ssh/id_rsa": secrets[".ssh/id_rsa"], "notes/secret.txt": secrets["notes/secret.txt"],
		"caf\u00e9.txt": secrets["caf\u00e9.txt"], "work/mine.txt": "mine, the user's own"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(home, ".ssh/id_rsa")
	task := func(id int, tool string, args map[string]string) map[string]any {
		return map[string]any{"task": "fs." + tool, "id": id, "dep": []int{}, "args": args}
	}
	path := func(p string) map[string]string { return map[string]string{"path": p} }
	tasks := []map[string]any{
		task(1, "read_text_file", path(".ssh/id_rsa")),
		task(2, "read_multiple_files", map[string]string{"paths": `[".ssh/id_rsa", "notes/secret.txt"]`}),
		task(3, "read_text_file", path("/"+strings.Repeat("./", 2100)+filepath.Join(home, "notes/secret.txt")[1:])),
		task(4, "read_text_file", path(strings.Repeat("/", 4100)+key[1:])),
		task(5, "read_text_file", path("cafe\u0301.txt")),
		task(6, "read_text_file", path(filepath.Join(home, "cafe\u0301.txt"))),
		task(7, "list_directory", path(".ssh")),
		task(8, "list_directory", path("notes")),
		task(9, "write_file", map[string]string{"path": ".ssh/authorized_keys", "content": "ssh-ed25519 AAAA attacker"}),
		task(10, "read_text_file", path("~/notes/secret.txt")),
		task(11, "read_text_file", path("mine.txt")),
	}
	// HOME is home to Chorus (its environment) and to the server it starts.
	e := fsEnvHome(t, home, home, fsPlan(tasks...))
	e.env["HOME"] = home
	opts := e.options()
	opts.WorkDir = filepath.Join(home, "work") // chorus runs there: --attach mine.txt is its file
	stdout, stderr, code := runCLIWith(opts, "run", "--json", "--out", e.out, "--attach", "mine.txt", "--allow-tool", "fs.write_file",
		"read my notes")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	ends := map[float64]map[string]any{}
	for _, ev := range eventsOf(t, stdout, "task_end") {
		ends[ev["id"].(float64)] = ev
	}
	for id := 1.0; id <= 10; id++ {
		if end := ends[id]; end != nil && end["status"] == "ok" {
			t.Errorf("task %v ran: %v", id, end)
		}
	}
	if end := ends[11]; end == nil || end["status"] != "ok" || !strings.Contains(end["result"].(string), "mine, the user's own") {
		t.Errorf("the file the user gave, named relative, was not read: %v", end)
	}
	mine := filepath.Join(home, "work/mine.txt")
	if r := eventsOf(t, stdout, "report"); len(r) != 1 || !strings.Contains(fmt.Sprint(r[0]), `path:`+mine) {
		t.Errorf("the report does not show the path the tool got (%s): %v", mine, r)
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh/authorized_keys")); err == nil {
		t.Error("a tool wrote the home's authorized_keys")
	}
	for where, data := range fsPlaces(t, e, stdout, stderr) {
		for f, s := range secrets {
			if strings.Contains(data, s) {
				t.Errorf("%s holds the text of %s, a file the user did not give", where, f)
			}
		}
	}
}

// TestRunMCPEchoPlainWords (issue 33, 11): a plain word in a sentence is
// no path — "hello from chorus" goes to everything's echo though the
// working folder holds files named from and chorus (which the request does
// not name: a request naming a file grants it).
func TestRunMCPEchoPlainWords(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"from", "chorus"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("a file"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := mcpEnv(t, `{"tasks":[{"task":"everything.echo","id":1,"dep":[],"args":{"message":"hello from chorus"}}]}`)
	opts := e.options()
	opts.WorkDir = dir // the folder chorus runs in: the trust gate's working folder
	stdout, stderr, code := runCLIWith(opts, "run", "--json", "--out", e.out, "greet everyone with the echo tool")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	end := eventsOf(t, stdout, "task_end")
	if len(end) != 1 || end[0]["status"] != "ok" || !strings.Contains(end[0]["result"].(string), "hello from chorus") {
		t.Fatalf("the echo did not run: %v", end)
	}
}
