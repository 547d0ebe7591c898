package pipeline_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// pathForms writes the file p (absolute; rel from the working directory,
// tilde from ~) in every way an argument value may carry it.
func pathForms(p, rel, tilde string) map[string]string {
	arr, _ := json.Marshal([]string{p})
	return map[string]string{
		"absolute":          p,
		"~":                 tilde,
		"relative":          rel,
		"./":                "./" + rel,
		"../":               "../" + filepath.Base(filepath.Dir(p)) + "/" + rel,
		"file:///":          "file://" + p,
		"file://localhost/": "file://localhost" + p,
		"percent-encoded":   strings.ReplaceAll(url.PathEscape(p), "/", "%2F"),
		"%2e%2e":            "%2e%2e/" + filepath.Base(filepath.Dir(p)) + "/" + rel,
		"in a sentence":     "please use " + p + ", thanks",
		"after key=":        "--input=" + p,
		"JSON array":        string(arr),
		"before a NUL":      p + "\x00.txt",
		"ending in a NUL":   p + "\x00",
	}
}

// TestGateEveryKindEveryForm (issue 25, 1): whatever kind of endpoint runs
// a task — builtin, command, local, huggingface, openai, ollama, mcp — an
// argument value naming a file the user did not give is refused in every
// form, written by the plan or arriving through <resource>-N: the endpoint
// is never called with it, the refusal names the fix, and nothing of the
// file reaches an event, the report or the controller. The same forms of
// the file the user attached reach the endpoint as they are.
func TestGateEveryKindEveryForm(t *testing.T) {
	kinds := []endpoints.Kind{endpoints.Builtin, endpoints.Command, endpoints.Local, endpoints.HuggingFace, endpoints.OpenAI, endpoints.Ollama, endpoints.MCP}
	home := t.TempDir()
	work := filepath.Join(home, "work")
	secret := "-----BEGIN OPENSSH PRIVATE KEY----- gate-test-k3y"
	for f, body := range map[string]string{".ssh/id_rsa": secret, "work/secret.txt": secret, "work/notes.txt": "the meeting is at noon"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../.ssh/id_rsa", filepath.Join(work, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes.txt", filepath.Join(work, "notes-link.txt")); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(work, "notes.txt")
	refused := pathForms(filepath.Join(work, "secret.txt"), "secret.txt", "~/work/secret.txt")
	refused["a link out of the folder"] = "link.txt"
	refused["~, a key"] = "~/.ssh/id_rsa"
	granted := pathForms(notes, "notes.txt", "~/work/notes.txt")
	granted["a link to it"] = "notes-link.txt"

	probes := map[endpoints.Kind]*endpointstest.Probe{}
	var eps []endpoints.Endpoint
	extra := []*skills.Skill{endpointstest.ProbeSkill(t, "")}
	for _, k := range kinds {
		probes[k] = endpointstest.NewProbe(k)
		eps = append(eps, probes[k])
		extra = append(extra, endpointstest.ProbeSkill(t, k))
	}
	r := newRig(t, withEndpoints(eps...), withSkills(extra...), withOptions(pipeline.Options{}))
	t.Setenv("HOME", home)
	t.Chdir(work)

	// One turn per form runs a task of every kind, so the table is
	// kinds × forms × {plan, <resource>-N} × {refused, granted}.
	for _, allowed := range []bool{false, true} {
		forms, verdict := refused, "refused"
		if allowed {
			forms, verdict = granted, "granted"
		}
		for form, v := range forms {
			for _, via := range []string{"plan", "<resource>-N"} {
				t.Run(verdict+"/"+form+"/"+via, func(t *testing.T) {
					r.reset()
					before := map[endpoints.Kind]int{}
					for _, k := range kinds {
						before[k] = len(probes[k].Received())
					}
					probes[endpoints.Builtin].SetSource(v)
					var tasks []map[string]any
					first := 1
					if via != "plan" {
						tasks = append(tasks, task(1, "probe-source", nil, map[string]string{"text": "anything"}))
						first = 2
					}
					for i, k := range kinds {
						if via == "plan" {
							tasks = append(tasks, task(first+i, "probe-"+string(k), nil, map[string]string{"text": v}))
						} else {
							tasks = append(tasks, task(first+i, "probe-"+string(k), []int{1}, map[string]string{"text": "<resource>-1"}))
						}
					}
					r.planJSON(tasks...)
					turn := pipeline.Turn{Request: "hand it over"}
					if allowed {
						turn.Attachments = []string{notes}
					}
					rep, err := r.run(context.Background(), turn)
					if err != nil {
						t.Fatal(err)
					}
					// The plan's strings are cleaned of control bytes as
					// they are decoded (text.CleanGenerated), before the
					// gate sees them: a plan's NUL is gone, and what is
					// left is what the gate decides on. A tool's output
					// (<resource>-N) reaches the gate as it was.
					want := v
					if via == "plan" {
						want = text.CleanGenerated(v)
					}
					_, statErr := os.Lstat(want)
					namesNothing := want != v && statErr != nil
					for i, k := range kinds {
						got := probes[k].Received()[before[k]:]
						if allowed {
							// A text file the plan names itself goes as its
							// words (but to a tool, which asked for a path).
							if len(got) != 1 || got[0] != want && got[0] != "the meeting is at noon" {
								t.Errorf("the %s endpoint got %q, want %q", k, got, want)
							}
							continue
						}
						if namesNothing {
							// Cleaned into a path of no file: no grant
							// needed, and nothing of the secret can go.
							if len(got) != 1 || got[0] != want {
								t.Errorf("the %s endpoint got %q, want the cleaned %q", k, got, want)
							}
							continue
						}
						if len(got) != 0 {
							t.Errorf("the %s endpoint got %q", k, got)
						}
						said := strings.Join(eventsOf[pipeline.PlanEvent](r)[0].Notes, " ")
						if via != "plan" {
							said = r.taskEnd(first + i).Error
						}
						if !strings.Contains(said, "is not a file you gave this turn — attach it with @") || !strings.Contains(said, "--attach") {
							t.Errorf("%s: the refusal should name the fix: %q", k, said)
						}
					}
					if where := leaked(r, rep, secret); len(where) > 0 {
						t.Errorf("the secret reached %v", where)
					}
				})
			}
		}
	}
}
