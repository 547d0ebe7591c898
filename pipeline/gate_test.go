package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// TestGateEveryWayIn (issue 25, 1; issue 33, 1; issue 36): whatever kind
// of endpoint runs a task — builtin, command, local, huggingface, openai,
// ollama, or a tool that opens what it is given (mcp) — a path the user
// did not give is refused however it comes to the task: written by the
// plan, under an argument name the validator repairs, by a revision of
// the plan after a task failed for good, in another task's output
// (<resource>-N), or in an output spilled to a file past the result cap.
// No endpoint is called with it, the refusal names the fix, and nothing of
// the file reaches an event, the report or the controller. The file the
// user attached, named relative, passes every way in: a text file the
// plan names goes to an expert as its words, and a tool gets the absolute
// path the gate judged, which the report shows. A whole turn per way in
// and verdict: the forms are tabled at the seams that judge them — scope's
// TestGateForms and TestGateJudgesEveryBase (the gate), planning's
// TestGateFormsEveryWayIn (the validator), execution's
// TestGateArgumentsEveryKindEveryForm (a task's arguments).
func TestGateEveryWayIn(t *testing.T) {
	t.Parallel()
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
	notes := filepath.Join(work, "notes.txt")
	// Words past the result cap (pipeline.DefaultResultCap): a result this
	// long is spilled to a file, and a later task takes it whole from there.
	pad := strings.Repeat("the quick brown fox jumps over the lazy dog ", pipeline.DefaultResultCap/40)
	for _, vd := range []struct {
		name, value string
		turn        pipeline.Turn
	}{
		{"refused", "./secret.txt", pipeline.Turn{}},
		{"passed, rewritten", "./notes.txt", pipeline.Turn{Attachments: []string{notes}}},
	} {
		for _, via := range []string{"plan", "repaired argument", "revision", "<resource>-N", "spilled result"} {
			t.Run(vd.name+"/"+via, func(t *testing.T) {
				t.Parallel()
				// The builtin probe is also probe-source, whose output a
				// later task takes; the MCP probe is a tool: it opens what
				// it is given.
				probes := map[skills.EndpointKind]*endpointstest.Probe{}
				var eps []endpoints.Endpoint
				extra := []*skills.Skill{endpointstest.ProbeSkill(t, "")}
				for _, k := range kinds {
					probes[k] = endpointstest.NewProbe(k)
					eps = append(eps, probes[k])
					s := endpointstest.ProbeSkill(t, k)
					if k == skills.EndpointMCP {
						probes[k].Reader = &scope.Reader{Tool: true}
						s.Tool = &skills.Tool{Server: "probe", Name: "mcp", Params: map[string]skills.Param{"text": {Property: "text", Schema: &skills.Schema{Type: skills.SchemaType{"string"}}}}}
					}
					extra = append(extra, s)
				}
				source := probes[skills.EndpointBuiltin]
				r := newRig(t, withEndpoints(eps...), withSkills(extra...), withOptions(pipeline.Options{Revise: 1, Home: home, WorkDir: work}))
				v := vd.value
				if via == "spilled result" {
					v += "\n" + pad
				}
				source.SetSource(v)
				var head, tasks []map[string]any
				first := 2
				switch via {
				case "plan", "repaired argument":
					first = 1
				case "revision":
					source.SetSourceErr(errors.New("the probe failed"))
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
				if via == "revision" {
					r.planJSON(head...)
					r.revisions = []fakeollama.Reply{revision(tasks...)}
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
					if end := r.taskEnd(1); len(end.Files) != 1 || len(end.Result) >= len(v) {
						t.Fatalf("the source's result was not spilled: files %v, %d bytes kept", end.Files, len(end.Result))
					}
				}
				planned := via == "plan" || via == "repaired argument" || via == "revision"
				for i, k := range kinds {
					got := probes[k].Received()
					if vd.turn.Attachments == nil {
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
						if !strings.Contains(said, "secret.txt") || !strings.Contains(said, "is not a file you gave this turn — attach it with @") || !strings.Contains(said, "--attach") {
							t.Errorf("%s: the refusal should name the fix: %q", k, text.Clip(said, 300))
						}
						continue
					}
					want := v
					switch {
					case k == skills.EndpointMCP && via != "spilled result":
						want = notes // the tool gets the path judged
					case planned:
						want = "the meeting is at noon" // a text file the plan names goes as its words
					}
					if len(got) != 1 || got[0] != want {
						t.Errorf("the %s endpoint got %q, want %q", k, clip(got), clip([]string{want}))
					}
				}
				if vd.turn.Attachments != nil && via != "spilled result" {
					for _, tr := range rep.Tasks {
						if tr.Task == "probe-mcp" && tr.Args["text"] != notes {
							t.Errorf("the report shows the tool's argument as %q, want %s", tr.Args["text"], notes)
						}
					}
				}
				if where := leaked(r, rep, secret); len(where) > 0 {
					t.Errorf("the secret reached %v", where)
				}
			})
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
	t.Parallel()
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
