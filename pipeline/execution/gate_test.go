package execution_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// gateSecret is what the files a turn may not read hold.
const gateSecret = "-----BEGIN OPENSSH PRIVATE KEY----- exec-gate-k3y"

// gateHome lays out a user's home for the gate's table:
//
//	home/.ssh/id_rsa              the secret
//	home/host-secret.txt          the secret: a file of the server, outside an ssh user's folder
//	home/work/secret.txt          the secret, never given
//	home/work/notes.txt           the file the user gives
//	home/work/link.txt -> ../.ssh/id_rsa
//	home/work/notes-link.txt -> notes.txt
//
// The working folder is home/work.
func gateHome(t *testing.T) (home, work string) {
	t.Helper()
	home = t.TempDir()
	work = filepath.Join(home, "work")
	for f, body := range map[string]string{".ssh/id_rsa": gateSecret, "host-secret.txt": gateSecret, "work/secret.txt": gateSecret,
		"work/notes.txt": "the meeting is at noon"} {
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
	return home, work
}

// gateVerdict is one row of the gate's table: the forms of a file, what
// the turn was given, and whether they go.
type gateVerdict struct {
	name    string
	forms   map[string]string
	allowed bool
	// attached are the turn's attachments; workspace confines it (ssh).
	attached  []string
	workspace string
	// says is what a refusal must say.
	says string
}

// gateVerdicts are the table's rows on gateHome's tree.
func gateVerdicts(home, work string) []gateVerdict {
	notes := filepath.Join(work, "notes.txt")
	refused := testkit.PathForms(filepath.Join(work, "secret.txt"), "secret.txt", "~/work/secret.txt")
	refused["a link out of the folder"] = "link.txt"
	refused["~, a key"] = "~/.ssh/id_rsa"
	granted := testkit.PathForms(notes, "notes.txt", "~/work/notes.txt")
	granted["a link to it"] = "notes-link.txt"
	// Over ssh a turn is confined to the user's folder: a file of the
	// server outside it is refused in every form, even attached, naming
	// the folder. "~" is the folder to Chorus but the server's home to a
	// tool: both are judged.
	host := filepath.Join(home, "host-secret.txt")
	confined := testkit.PathForms(host, "../host-secret.txt", "~/../host-secret.txt")
	confined["a link out of the folder"] = "link.txt"
	confined["~, the server's home"] = "~/host-secret.txt"
	confined["~, a key"] = "~/.ssh/id_rsa"
	confined["$HOME"] = "$HOME/.ssh/id_rsa"
	confined["/etc/passwd"] = "/etc/passwd"
	// The user's own file in every form but file://localhost/p: one
	// reading of it is /localhost/p, a name outside the folder, refused
	// whether or not a file is there.
	own := maps.Clone(granted)
	delete(own, "file://localhost/")
	return []gateVerdict{
		{name: "refused", forms: refused, says: "is not a file you gave this turn — attach it with @"},
		{name: "granted", forms: granted, allowed: true, attached: []string{notes}},
		{name: "over ssh, outside the folder", forms: confined, attached: []string{host}, workspace: work, says: "is outside your folder on this server (" + work + ")"},
		{name: "over ssh, in the folder", forms: own, allowed: true, attached: []string{notes}, workspace: work},
	}
}

// gateKinds are the kinds of endpoint the table runs a task on, each a
// probe that records what it got.
var gateKinds = []skills.EndpointKind{skills.EndpointBuiltin, skills.EndpointCommand, skills.EndpointLocal, skills.EndpointHuggingFace,
	skills.EndpointOpenAI, skills.EndpointOllama, skills.EndpointMCP}

// TestGateArgumentsEveryKindEveryForm (issue 25, 1; issue 36): at the
// execution stage, whatever kind of endpoint runs a task — builtin,
// command, local, huggingface, openai, ollama, mcp — an argument value
// naming a file the turn may not read is refused in every form, however
// it comes to the task: as the plan wrote it, as another task's output
// (<resource>-N), or in an output spilled to a file past the result cap
// and read back whole. The endpoint is never called with it, the task's
// error names the fix, and nothing of the file reaches an event or the
// run's record. The same forms of the file the user attached reach the
// endpoint (a text file the plan names itself, as its words). Over ssh a
// file of the server outside the user's folder is refused in every form
// and every way even when attached, naming the folder. (How the plan's
// values reach this stage — validated, repaired, revised — is planning's
// table, TestGateFormsEveryWayIn; the forms against the gate alone are
// scope's.)
func TestGateArgumentsEveryKindEveryForm(t *testing.T) {
	t.Parallel()
	home, work := gateHome(t)
	for _, vd := range gateVerdicts(home, work) {
		for form, v := range vd.forms {
			for _, via := range []string{"written", "<resource>-N", "spilled result"} {
				t.Run(vd.name+"/"+form+"/"+via, func(t *testing.T) {
					t.Parallel()
					gateOneForm(t, home, work, vd, v, via)
				})
			}
		}
	}
}

// gateOneForm runs a task of every kind on the value v, come by via, in a
// turn given vd's files, and checks what each endpoint got.
func gateOneForm(t *testing.T, home, work string, vd gateVerdict, v, via string) {
	x, events := gateExecutor(t, home, work, vd)
	source := endpointstest.NewProbe(skills.EndpointBuiltin)
	sourceSkill := endpointstest.ProbeSkill(t, "")
	byID := map[int]*flow.TaskRun{}
	arg := v
	if via != "written" {
		// The value is task 1's output; a spilled one is over the cap.
		out := v
		if via == "spilled result" {
			out = v + "\n" + strings.Repeat("the quick brown fox jumps over the lazy dog ", gateCap/40)
		}
		source.SetSource(out)
		src := choiceRun(flow.Task{ID: 1, Task: "probe-source", Args: map[string]string{"text": "anything"}}, sourceSkill, "probe/source", source)
		x.Run(context.Background(), src, nil)
		if src.Status != flow.StatusOK {
			t.Fatalf("the source failed: %s", src.Err)
		}
		if via == "spilled result" && (src.Spilled == "" || len(src.Text) >= len(out)) {
			t.Fatalf("the source's result was not spilled: %q, %d bytes kept: %s", src.Spilled, len(src.Text), src.Text[gateCap-10:])
		}
		byID[1] = src
		arg = "<resource>-1"
		v = out
	}
	// A plain word inside a text (a spilled result's first line) is no
	// path, whatever a file is called (issue 33, 11): the text goes, and
	// nothing of the file with it.
	dec, _ := url.PathUnescape(v)
	plainWord := via == "spilled result" && !strings.Contains(dec, "/") && !strings.HasPrefix(dec, "~") && !strings.HasPrefix(dec, ".")
	for i, k := range gateKinds {
		probe := endpointstest.NewProbe(k)
		s := endpointstest.ProbeSkill(t, k)
		task := flow.Task{ID: 2 + i, Task: s.Name, Args: map[string]string{"text": arg}}
		if via != "written" {
			task.Dep = []int{1}
		}
		run := choiceRun(task, s, "probe/"+string(k), probe)
		x.Run(context.Background(), run, byID)
		got := probe.Received()
		switch {
		case vd.allowed || plainWord:
			// A text file the plan names itself goes as its words.
			if len(got) != 1 || got[0] != v && !(via == "written" && got[0] == "the meeting is at noon") {
				t.Errorf("the %s endpoint got %q, want %q", k, clip(got), clip([]string{v}))
			}
		case len(got) != 0:
			t.Errorf("the %s endpoint got %q", k, clip(got))
		case !strings.Contains(run.Err, vd.says) || vd.workspace == "" && !strings.Contains(run.Err, "--attach"):
			t.Errorf("%s: the refusal should name the fix: %q", k, text.Clip(run.Err, 300))
		}
		if b, _ := json.Marshal(run); strings.Contains(string(b), gateSecret) {
			t.Errorf("%s: the secret reached the run's record", k)
		}
	}
	for _, ev := range events() {
		if b, _ := flow.MarshalEvent(ev); strings.Contains(string(b), gateSecret) {
			t.Errorf("the secret reached a %s event", ev.Type())
		}
	}
}

// gateCap is the table's result cap: a result past it is spilled.
const gateCap = 2048

// gateExecutor is the execution stage of a turn given vd's files, as the
// engine builds it (its scope as pipeline's grants builds it), and the
// events it emitted.
func gateExecutor(t *testing.T, home, work string, vd gateVerdict) (*execution.Executor, func() []flow.Event) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "outputs")
	o := scope.Options{Root: vd.workspace, Outputs: out, ProcessHome: home, ProcessDir: work}
	if vd.workspace == "" {
		o.Home, o.WorkDir = home, work
	} else {
		out = filepath.Join(work, "outputs-"+filepath.Base(filepath.Dir(out))) // as chorus serve --ssh puts them
		o.Outputs = out
	}
	sc := scope.New(o)
	for _, a := range vd.attached {
		_ = sc.Allow(a, scope.Attached)
	}
	var mu sync.Mutex
	var evs []flow.Event
	x := &execution.Executor{Scope: sc, OutDir: out, Workspace: vd.workspace, TaskTimeout: 10 * time.Second, ResultCap: gateCap, SpillQuota: 1 << 20,
		Emit: func(ev flow.Event) {
			mu.Lock()
			evs = append(evs, ev)
			mu.Unlock()
		}}
	return x, func() []flow.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]flow.Event(nil), evs...)
	}
}

// choiceRun is the record of task t chosen to run as s on model, on ep.
func choiceRun(t flow.Task, s *skills.Skill, model string, ep endpoints.Endpoint) *flow.TaskRun {
	c := &flow.Choice{Task: t, Skill: s, Ranked: []*flow.Option{{Model: skills.Model{ID: model}, Routes: []endpoints.Endpoint{ep}}}}
	return &flow.TaskRun{Task: t, Choice: c}
}

// clip shortens what an endpoint got for a failure's message: a spilled
// result is kilobytes of words.
func clip(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = text.Clip(v, 200)
	}
	return out
}

// TestGateHandsAToolThePathJudged (issue 33, 1): a tool that opens the
// path it is given gets, for a whole value naming the file the user gave
// — relative, ./, ../, ~, through a link, or absolute; as the plan wrote
// it or as another task's output — the absolute path the gate judged, and
// the run's record (what the report and --json show) and a debug line say
// so. Every form of a file the user did not give is refused, as it is for
// any endpoint.
func TestGateHandsAToolThePathJudged(t *testing.T) {
	t.Parallel()
	home, work := gateHome(t)
	notes := filepath.Join(work, "notes.txt")
	rewritten := []string{"relative", "./", "../", "~", "a link to it", "absolute"}
	for _, vd := range gateVerdicts(home, work) {
		for form, v := range vd.forms {
			if vd.allowed && !slices.Contains(rewritten, form) {
				continue // not a path the tool could open as it is written (the tool's path argument refuses it: scope's TestGateJudgesEveryBase)
			}
			for _, via := range []string{"written", "<resource>-N"} {
				t.Run(vd.name+"/"+form+"/"+via, func(t *testing.T) {
					t.Parallel()
					x, events := gateExecutor(t, home, work, vd)
					byID, arg := map[int]*flow.TaskRun{}, v
					if via == "<resource>-N" {
						byID[1] = &flow.TaskRun{Task: flow.Task{ID: 1, Task: "probe-source"}, Status: flow.StatusOK, Text: v}
						arg = "<resource>-1"
					}
					tool := endpointstest.NewProbe(skills.EndpointMCP)
					tool.Reader = &scope.Reader{Tool: true}
					s := endpointstest.ProbeSkill(t, skills.EndpointMCP)
					s.Tool = &skills.Tool{Server: "probe", Name: "read", Params: map[string]skills.Param{"text": {Property: "path", Schema: &skills.Schema{Type: skills.SchemaType{"string"}}}}}
					task := flow.Task{ID: 2, Task: s.Name, Args: map[string]string{"text": arg}}
					if via != "written" {
						task.Dep = []int{1}
					}
					run := choiceRun(task, s, "probe/mcp", tool)
					x.Run(context.Background(), run, byID)
					got := tool.Received()
					if !vd.allowed {
						// A form that is not a path as written (file://,
						// %2F, in a sentence) may be refused instead as a
						// name of no file a path argument may create.
						if len(got) != 0 || !strings.Contains(run.Err, vd.says) && !strings.Contains(run.Err, "names no file yet") {
							t.Fatalf("the tool got %q (error %q), want a refusal saying %q", clip(got), run.Err, vd.says)
						}
						return
					}
					if len(got) != 1 || got[0] != notes || run.Args["text"] != notes {
						t.Fatalf("the tool got %q, its record says %q; want %s", got, run.Args["text"], notes)
					}
					said := false
					for _, ev := range events() {
						d, ok := ev.(flow.DebugEvent)
						said = said || ok && strings.Contains(d.Content, "goes to the tool as \""+notes+"\"")
					}
					if v != notes && !said {
						t.Errorf("no debug line says what the tool got instead of %q", v)
					}
				})
			}
		}
	}
}
