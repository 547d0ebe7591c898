package planning

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/text"
)

// TestGateFormsEveryWayIn (issue 25, 1; issue 36): the validator drops a
// task whose text argument names a file the turn may not read, in every
// form, however the plan brings it — written as the plan's argument,
// under an argument name the validator repairs ("input" read as "text"),
// or in a revision of the plan — with a note naming the path and the
// fix. The controller's strings are cleaned as they are read
// (text.CleanGenerated): a NUL is gone, and what is left is judged. The
// same forms of the file the user attached are kept. Over ssh (a turn
// confined to the user's folder) a file of the server outside it is
// refused in every form even when attached, the note naming the folder.
// (The values that reach a task otherwise — another task's output,
// spilled or not — are execution's table; the forms against the gate
// alone are scope's.)
func TestGateFormsEveryWayIn(t *testing.T) {
	t.Parallel()
	cat := testPlanner(t).cat
	home := t.TempDir()
	work := filepath.Join(home, "work")
	for f, body := range map[string]string{".ssh/id_rsa": "key", "host-secret.txt": "host", "work/secret.txt": "secret", "work/notes.txt": "the meeting is at noon"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"link.txt": "../.ssh/id_rsa", "notes-link.txt": "notes.txt"} {
		if err := os.Symlink(to, filepath.Join(work, link)); err != nil {
			t.Fatal(err)
		}
	}
	notes, host := filepath.Join(work, "notes.txt"), filepath.Join(home, "host-secret.txt")
	refused := testkit.PathForms(filepath.Join(work, "secret.txt"), "secret.txt", "~/work/secret.txt")
	refused["a link out of the folder"] = "link.txt"
	refused["~, a key"] = "~/.ssh/id_rsa"
	granted := testkit.PathForms(notes, "notes.txt", "~/work/notes.txt")
	granted["a link to it"] = "notes-link.txt"
	confined := testkit.PathForms(host, "../host-secret.txt", "~/../host-secret.txt")
	confined["a link out of the folder"] = "link.txt"
	confined["~, the server's home"] = "~/host-secret.txt"
	confined["~, a key"] = "~/.ssh/id_rsa"
	confined["$HOME"] = "$HOME/.ssh/id_rsa"
	confined["/etc/passwd"] = "/etc/passwd"
	own := maps.Clone(granted)
	delete(own, "file://localhost/") // one reading is /localhost/p, outside the folder
	for _, vd := range []struct {
		name     string
		forms    map[string]string
		allowed  bool
		attached string
		confined bool
		says     string
	}{
		{"refused", refused, false, "", false, "is not a file you gave this turn — attach it with @"},
		{"granted", granted, true, notes, false, ""},
		{"over ssh, outside the folder", confined, false, host, true, "is outside your folder on this server (" + work + ")"},
		{"over ssh, in the folder", own, true, notes, true, ""},
	} {
		for form, v := range vd.forms {
			for _, via := range []string{"plan", "repaired argument", "revision"} {
				t.Run(vd.name+"/"+form+"/"+via, func(t *testing.T) {
					t.Parallel()
					o := scope.Options{Home: home, WorkDir: work, ProcessHome: home, ProcessDir: work, Outputs: filepath.Join(work, "outputs")}
					if vd.confined {
						o = scope.Options{Root: work, ProcessHome: home, ProcessDir: work, Outputs: filepath.Join(work, "outputs")}
					}
					sc := scope.New(o)
					var attached []string
					if vd.attached != "" {
						attached = []string{vd.attached}
						_ = sc.Allow(vd.attached, scope.Attached)
					}
					arg := "text"
					if via == "repaired argument" {
						arg = "input"
					}
					reply, _ := json.Marshal(map[string]any{"tasks": []any{map[string]any{"task": "summarization", "args": map[string]string{arg: v}}}})
					raw, err := parsePlan(string(reply))
					if err != nil {
						t.Fatal(err)
					}
					p := &Planner{Catalog: cat, Scope: sc, MaxTasks: 6, Request: "hand it over", Attachments: attached}
					var plan flow.Plan
					if via == "revision" {
						failed := &flow.TaskRun{Task: flow.Task{ID: 1, Task: "summarization", Args: map[string]string{"text": "anything"}}, Status: flow.StatusError, Fault: flow.FaultForGood}
						raw.Tasks[0].ID = 2
						plan = p.validateRevision(raw, []*flow.TaskRun{failed})
					} else {
						plan = p.Validate(raw.Tasks, raw.Constraints, raw.Notes)
					}
					want := text.CleanGenerated(v)
					// Cleaned into a path of no file: no grant needed,
					// and nothing of a file can go. (Over ssh a name
					// outside the folder is refused by the name alone.)
					_, statErr := os.Lstat(want)
					namesNothing := want != v && statErr != nil && !vd.confined
					said := strings.Join(plan.Notes, " ")
					if vd.allowed || namesNothing {
						if len(plan.Tasks) != 1 || plan.Tasks[0].Args["text"] != want {
							t.Fatalf("the task was not kept with %q: %+v", want, plan)
						}
						return
					}
					if len(plan.Tasks) != 0 {
						t.Fatalf("the task was kept: %+v", plan)
					}
					if !strings.Contains(said, vd.says) || !vd.confined && !strings.Contains(said, "--attach") {
						t.Fatalf("the note should name the fix: %q", text.Clip(said, 300))
					}
				})
			}
		}
	}
}
