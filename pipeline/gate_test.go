package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakeollama"
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
// form, however it comes to the task — written by the plan, under an
// argument name the validator repairs, by a revision of the plan, in
// another task's output (<resource>-N), in an output spilled to a file
// past the result cap: the endpoint is never called with it, the refusal
// names the fix, and nothing of the file reaches an event, the report or
// the controller. The same forms of the file the user attached reach the
// endpoint as they are. Over ssh (a turn confined to the user's folder) a
// file of the server outside the folder is refused in every form and
// every way even when attached, and the refusal names the folder.
func TestGateEveryKindEveryForm(t *testing.T) {
	kinds := []skills.EndpointKind{skills.EndpointBuiltin, skills.EndpointCommand, skills.EndpointLocal, skills.EndpointHuggingFace, skills.EndpointOpenAI, skills.EndpointOllama, skills.EndpointMCP}
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

	probes := map[skills.EndpointKind]*endpointstest.Probe{}
	var eps []endpoints.Endpoint
	extra := []*skills.Skill{endpointstest.ProbeSkill(t, "")}
	for _, k := range kinds {
		probes[k] = endpointstest.NewProbe(k)
		eps = append(eps, probes[k])
		extra = append(extra, endpointstest.ProbeSkill(t, k))
	}
	r := newRig(t, withEndpoints(eps...), withSkills(extra...), withOptions(pipeline.Options{Revise: 1, Home: home, WorkDir: work}))
	// Words past the result cap (pipeline.DefaultResultCap): a result this
	// long is spilled to a file, and a later task takes it whole from there.
	pad := strings.Repeat("the quick brown fox jumps over the lazy dog ", pipeline.DefaultResultCap/40)

	// One turn per form runs a task of every kind, so the table is
	// kinds × forms × vias × {refused, granted}. A via is how the value
	// comes to a task: the plan wrote it; the plan wrote it under a name
	// the validator repairs ("input" read as "text"); a revision of the
	// plan, after a task failed for good, wrote it; an earlier task's
	// output (<resource>-N) holds it; that output was over the cap,
	// spilled to a file and read back whole.
	vias := []string{"plan", "repaired argument", "revision", "<resource>-N", "spilled result"}
	// Over ssh (chorus serve --ssh) a turn is confined to the remote
	// user's folder (Turn.Workspace): a file of the server outside it is
	// refused in every form, even attached, and the refusal names the
	// folder; the user's own file in it still goes.
	host := filepath.Join(home, "host-secret.txt")
	if err := os.WriteFile(host, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	// "~" is the user's folder to Chorus, but the server's home to a tool
	// (a shell, the MCP filesystem server): both are judged.
	confined := pathForms(host, "../host-secret.txt", "~/../host-secret.txt")
	confined["a link out of the folder"] = "link.txt"
	confined["~, the server's home"] = "~/host-secret.txt"
	confined["~, a key"] = "~/.ssh/id_rsa"
	confined["$HOME"] = "$HOME/.ssh/id_rsa"
	confined["/etc/passwd"] = "/etc/passwd"
	// The user's own file in every form but file://localhost/p: one
	// reading of it is /localhost/p, a name outside the folder, and a
	// confined turn refuses such a name whether or not a file is there.
	own := maps.Clone(granted)
	delete(own, "file://localhost/")
	outputs := filepath.Join(work, "outputs") // as chorus serve --ssh puts them
	verdicts := []struct {
		name    string
		forms   map[string]string
		allowed bool
		turn    pipeline.Turn
		says    string
	}{
		{"refused", refused, false, pipeline.Turn{}, "is not a file you gave this turn — attach it with @"},
		{"granted", granted, true, pipeline.Turn{Attachments: []string{notes}}, ""},
		{"over ssh, outside the folder", confined, false, pipeline.Turn{Workspace: work, OutputDir: outputs, Attachments: []string{host}}, "is outside your folder on this server (" + work + ")"},
		{"over ssh, in the folder", own, true, pipeline.Turn{Workspace: work, OutputDir: outputs, Attachments: []string{notes}}, ""},
	}
	for _, vd := range verdicts {
		forms, verdict, allowed := vd.forms, vd.name, vd.allowed
		for form, v := range forms {
			for _, via := range vias {
				t.Run(verdict+"/"+form+"/"+via, func(t *testing.T) {
					r.reset()
					before := map[skills.EndpointKind]int{}
					for _, k := range kinds {
						before[k] = len(probes[k].Received())
					}
					source := v
					if via == "spilled result" {
						source = v + "\n" + pad
					}
					probes[skills.EndpointBuiltin].SetSource(source)
					probes[skills.EndpointBuiltin].SetSourceErr(nil)
					var head, tasks []map[string]any
					first := 2
					switch via {
					case "plan", "repaired argument":
						first = 1
					case "revision":
						probes[skills.EndpointBuiltin].SetSourceErr(errors.New("the probe failed"))
						head = append(head, task(1, "probe-source", nil, map[string]string{"text": "anything"}))
					default:
						tasks = append(tasks, task(1, "probe-source", nil, map[string]string{"text": "anything"}))
					}
					for i, k := range kinds {
						switch via {
						case "<resource>-N", "spilled result":
							tasks = append(tasks, task(first+i, "probe-"+string(k), []int{1}, map[string]string{"text": "<resource>-1"}))
						case "repaired argument":
							tasks = append(tasks, task(first+i, "probe-"+string(k), nil, map[string]string{"input": v}))
						default:
							tasks = append(tasks, task(first+i, "probe-"+string(k), nil, map[string]string{"text": v}))
						}
					}
					r.mu.Lock()
					r.revisions, r.reviseN = nil, 0
					r.mu.Unlock()
					if via == "revision" {
						r.planJSON(head...)
						r.mu.Lock()
						r.revisions = []fakeollama.Reply{revision(tasks...)}
						r.mu.Unlock()
					} else {
						r.planJSON(tasks...)
					}
					turn := vd.turn
					turn.Request = "hand it over"
					rep, err := r.run(context.Background(), turn)
					if err != nil {
						t.Fatal(err)
					}
					if via == "revision" && len(eventsOf[pipeline.PlanRevisionEvent](r)) != 1 {
						t.Fatalf("no revision followed the failed task: %v", r.typesInOrder())
					}
					if via == "spilled result" {
						if end := r.taskEnd(1); len(end.Files) != 1 || len(end.Result) >= len(source) {
							t.Fatalf("the source's result was not spilled: files %v, %d bytes kept", end.Files, len(end.Result))
						}
					}
					// The controller's strings are cleaned of control bytes
					// as they are decoded (text.CleanGenerated), before the
					// gate sees them: a plan's NUL is gone, and what is
					// left is what the gate decides on. A tool's output
					// (<resource>-N) reaches the gate as it was.
					want := source
					fromController := via == "plan" || via == "repaired argument" || via == "revision"
					if fromController {
						want = text.CleanGenerated(v)
					}
					_, statErr := os.Lstat(want)
					// (Over ssh a name outside the folder is refused by the
					// name alone, cleaned or not.)
					namesNothing := want != v && statErr != nil && fromController && turn.Workspace == ""
					// A plain word inside a text (a spilled result's first
					// line) is no path, whatever a file is called (issue 33,
					// 11): the text goes, and nothing of the file with it.
					dec, _ := url.PathUnescape(v)
					plainWord := via == "spilled result" && !strings.Contains(dec, "/") && !strings.HasPrefix(dec, "~") && !strings.HasPrefix(dec, ".")
					for i, k := range kinds {
						got := probes[k].Received()[before[k]:]
						if plainWord && !allowed {
							if len(got) != 1 || got[0] != want {
								t.Errorf("the %s endpoint got %q, want the text %q", k, clip(got), clip([]string{want}))
							}
							continue
						}
						if allowed {
							// A text file the plan names itself goes as its
							// words (but to a tool, which asked for a path).
							if len(got) != 1 || got[0] != want && got[0] != "the meeting is at noon" {
								t.Errorf("the %s endpoint got %q, want %q", k, clip(got), clip([]string{want}))
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
							t.Errorf("the %s endpoint got %q", k, clip(got))
						}
						var said string
						switch via {
						case "plan", "repaired argument":
							said = strings.Join(eventsOf[pipeline.PlanEvent](r)[0].Notes, " ")
						case "revision":
							said = strings.Join(eventsOf[pipeline.PlanRevisionEvent](r)[0].Notes, " ")
						default:
							said = r.taskEnd(first + i).Error
						}
						if !strings.Contains(said, vd.says) || turn.Workspace == "" && !strings.Contains(said, "--attach") {
							t.Errorf("%s: the refusal should name the fix: %q", k, text.Clip(said, 300))
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

// clip shortens what an endpoint got for a failure's message: a spilled
// result is 64 KB of words.
func clip(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = text.Clip(v, 200)
	}
	return out
}

// TestSpilledResultReadThroughTheGate: a result over the cap is spilled to
// a file Chorus wrote, and a later task of the turn takes it whole from
// there — through the turn's scope, as any file. When what stands at that
// path is no longer the file Chorus wrote (a link to a key, put in the
// output folder by a tool that may write there), the later task gets the
// result's start and the note naming the file, never the key.
func TestSpilledResultReadThroughTheGate(t *testing.T) {
	home := t.TempDir()
	secret := "-----BEGIN OPENSSH PRIVATE KEY----- spill-k3y"
	key := filepath.Join(home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	src, sink := endpointstest.NewProbe(skills.EndpointBuiltin), endpointstest.NewProbe(skills.EndpointCommand)
	r := newRig(t, withEndpoints(src, sink), withSkills(endpointstest.ProbeSkill(t, ""), endpointstest.ProbeSkill(t, skills.EndpointCommand)), withHome(home))
	result := strings.Repeat("the quick brown fox jumps over the lazy dog ", pipeline.DefaultResultCap/40) + "THE-END"
	src.SetSource(result)

	for _, swap := range []bool{false, true} {
		r.reset()
		r.planJSON(task(1, "probe-source", nil, map[string]string{"text": "anything"}),
			task(2, "probe-command", []int{1}, map[string]string{"text": "<resource>-1"}))
		before := len(sink.Received())
		var events []pipeline.Event
		rep, err := r.eng.Run(context.Background(), pipeline.Turn{Request: "hand it over"}, func(ev pipeline.Event) {
			events = append(events, ev)
			// Task 1 has ended and its file is written; task 2 has not
			// resolved its argument yet (it waits for this end).
			if end, ok := ev.(pipeline.TaskEndEvent); ok && end.ID == 1 && swap {
				if len(end.Files) != 1 {
					t.Errorf("the result was not spilled: %+v", end.Files)
					return
				}
				if err := os.Remove(end.Files[0]); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(key, end.Files[0]); err != nil {
					t.Error(err)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		got := sink.Received()[before:]
		if !swap {
			// The file Chorus wrote: the later task gets it whole.
			if len(got) != 1 || got[0] != result {
				t.Fatalf("the later task got %d values (%d bytes), want the whole result", len(got), len(strings.Join(got, "")))
			}
			continue
		}
		for _, g := range got {
			if strings.Contains(g, "spill-k3y") {
				t.Fatal("the later task got the key the spilled file's path now leads to")
			}
		}
		b, _ := json.Marshal(events)
		if strings.Contains(string(b), "spill-k3y") || strings.Contains(rep.Answer, "spill-k3y") {
			t.Fatal("the key reached an event or the answer")
		}
	}
}
