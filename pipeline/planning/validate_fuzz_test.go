package planning

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// fuzzWorld is the file system a fuzzed plan can name: real files of every
// modality, a directory, a FIFO, a missing file, and a turn whose
// attachments and chat log hold some of them.
type fuzzWorld struct {
	dir                           string
	img, img2, wav, mp4, txt, bin string
	fifo, fifoBare, missing       string
	turn                          turn
}

func newFuzzWorld(tb testing.TB) *fuzzWorld {
	tb.Helper()
	dir := tb.TempDir()
	w := &fuzzWorld{dir: dir}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		return p
	}
	w.img = write("cat.png", []byte("\x89PNG\r\n\x1a\n"))
	w.img2 = write("older.jpg", []byte("\xff\xd8\xff\xe0"))
	w.wav = write("voice.wav", []byte("RIFF0000WAVEfmt "))
	w.mp4 = write("clip.mp4", []byte("\x00\x00\x00\x18ftypmp42"))
	w.txt = write("notes.txt", []byte("some notes"))
	w.bin = write("blob", []byte{0, 1, 2, 3})
	// FIFOs: opening one for reading blocks until a writer comes, so a
	// plan naming one must be refused without opening it.
	w.fifo = filepath.Join(dir, "pipe.png")
	w.fifoBare = filepath.Join(dir, "pipe")
	for _, p := range []string{w.fifo, w.fifoBare} {
		if err := testkit.Mkfifo(p, 0o644); err != nil {
			tb.Skipf("no FIFOs here: %v", err)
		}
	}
	w.missing = filepath.Join(dir, "gone.png")
	w.turn = turn{
		Attachments: []string{w.img, w.wav, w.missing},
		History: []flow.Message{
			{Role: "user", Content: "here", Resources: []string{w.img2, w.mp4}},
			{Role: "assistant", Content: "ok", Resources: []string{w.txt}},
		},
	}
	return w
}

// value picks an argument value: files of every kind, references (well
// and badly formed), URLs, coordinates and junk.
func (w *fuzzWorld) value(b byte, ref int) string {
	vals := []string{
		w.img, w.img2, w.wav, w.mp4, w.txt, w.bin, w.fifo, w.fifoBare, w.missing, w.dir,
		"cat.png", "older.jpg", "~/nothing-here.png", "file://" + w.img, `"` + w.img + `"`,
		flow.RefString(ref), "<GENERATED>-" + fmt.Sprint(ref), "see <resource>-" + fmt.Sprint(ref),
		flow.RefString(ref) + " and " + flow.RefString(ref+1), "https://example.com/x.png", "http://",
		"120,80", "(1, 2, 3, 4)", "[0.5 0.5]", "-5,3", "1e9,2", "", "   ", "hello world",
		"a, b, c", strings.Repeat("x", 300), "/dev/null", "<resource>-", "<resource>--1",
		"32", "0.5", "12px", "[32, 16]", `{"width": 8, "height": "6"}`, `{"x": 1}`,
	}
	return vals[int(b)%len(vals)]
}

// byteSource hands out fuzz bytes, then zeros.
type byteSource struct {
	data []byte
	i    int
}

func (s *byteSource) next() byte {
	if s.i >= len(s.data) {
		return 0
	}
	s.i++
	return s.data[s.i-1]
}

// planFromBytes writes the planner reply data describes: tasks with real,
// aliased, misspelt and unknown names; ids missing, negative, duplicated
// or written as strings; deps on missing, negative and cyclic ids; and
// arguments under canonical, aliased and unknown names.
func planFromBytes(data []byte, names []string, w *fuzzWorld) string {
	src := &byteSource{data: data}
	extraNames := []string{"image-cls", "vqa", "img2txt", "Image_Classification", "teleportation", "", "tts", "caption"}
	argNames := []string{"text", "image", "audio", "video", "point", "box", "labels", "context", "sentences", "mask",
		"img_url", "question", "prompt", "IMAGE", "weird", "", "width", "h", "x", "y", "x2", "size", "dimensions", "scale"}
	n := int(src.next() % 10)
	var tasks []map[string]any
	for i := 0; i < n; i++ {
		t := map[string]any{}
		if c := src.next(); c%4 == 0 {
			t["task"] = extraNames[int(c/4)%len(extraNames)]
		} else {
			t["task"] = names[int(c)%len(names)]
		}
		switch c := src.next(); c % 8 {
		case 0: // no id
		case 1:
			t["id"] = fmt.Sprintf("t%d", src.next()%12)
		case 2:
			t["id"] = -int(src.next() % 3)
		case 3:
			t["id"] = i // may repeat another task's id
		case 4:
			t["id"] = 1.5
		default:
			t["id"] = int(src.next() % 12)
		}
		var deps []any
		for range int(src.next() % 4) {
			d := int(src.next()%14) - 2
			if src.next()%5 == 0 {
				deps = append(deps, fmt.Sprint(d))
			} else {
				deps = append(deps, d)
			}
		}
		if src.next()%6 != 0 {
			t["dep"] = deps
		}
		args := map[string]any{}
		for range int(src.next() % 5) {
			k := argNames[int(src.next())%len(argNames)]
			v := w.value(src.next(), int(src.next()%12)-1)
			if src.next()%9 == 0 {
				args[k] = []any{1, 2} // a list where a string belongs
			} else {
				args[k] = v
			}
		}
		t["args"] = args
		tasks = append(tasks, t)
	}
	plan := map[string]any{"tasks": tasks}
	if src.next()%3 == 0 {
		plan["constraints"] = map[string]any{"licenses": []string{"mit"}, "max_size": "1GB", "prefer": "smallest"}
	}
	b, _ := json.Marshal(plan)
	return string(b)
}

// checkPlan asserts what validation promises about every plan it returns.
func checkPlan(t *testing.T, e *tester, p flow.Plan) {
	t.Helper()
	if len(p.Tasks) > e.max {
		t.Fatalf("%d tasks kept, the cap is %d", len(p.Tasks), e.max)
	}
	pos := map[int]int{}
	for i, task := range p.Tasks {
		if task.ID < 0 {
			t.Fatalf("task %d has a negative id", task.ID)
		}
		if _, dup := pos[task.ID]; dup {
			t.Fatalf("id %d is used twice: %+v", task.ID, p.Tasks)
		}
		pos[task.ID] = i
	}
	skillOf := map[int]*skills.Skill{}
	for _, task := range p.Tasks {
		s, ok := e.cat.Skill(task.Task)
		if !ok {
			t.Fatalf("task %d names %q, which is not a skill", task.ID, task.Task)
		}
		skillOf[task.ID] = s
	}
	for i, task := range p.Tasks {
		s := skillOf[task.ID]
		if task.Dep == nil {
			t.Fatalf("task %d has a nil dep list (JSON null)", task.ID)
		}
		for j, d := range task.Dep {
			if d == task.ID {
				t.Fatalf("task %d depends on itself", task.ID)
			}
			at, ok := pos[d]
			if !ok {
				t.Fatalf("task %d depends on task %d, which is not in the plan", task.ID, d)
			}
			if at >= i {
				t.Fatalf("task %d comes before its dependency %d: %+v", task.ID, d, p.Tasks)
			}
			if slices.Contains(task.Dep[:j], d) {
				t.Fatalf("task %d lists dependency %d twice", task.ID, d)
			}
		}
		for _, a := range s.Args {
			if _, ok := task.Args[a.Name]; !ok && !a.Optional {
				t.Fatalf("task %d (%s) lacks its required argument %s", task.ID, task.Task, a.Name)
			}
		}
		for k, v := range task.Args {
			a, ok := s.Arg(k)
			if !ok {
				t.Fatalf("task %d (%s) has argument %q, which the skill does not take", task.ID, task.Task, k)
			}
			if strings.TrimSpace(v) == "" {
				t.Fatalf("task %d argument %s is empty", task.ID, k)
			}
			refs := flow.Refs(v)
			for _, n := range refs {
				if !slices.Contains(task.Dep, n) {
					t.Fatalf("task %d argument %s uses <resource>-%d but does not depend on task %d", task.ID, k, n, n)
				}
			}
			switch {
			case a.Type.Media() && len(refs) > 0:
				if len(refs) != 1 || strings.TrimSpace(flow.ReplaceRefs(v, noRef)) != "" {
					t.Fatalf("task %d media argument %s = %q is not a single reference", task.ID, k, v)
				}
				if dep := skillOf[refs[0]]; !slices.Contains(dep.Outputs, a.Type) {
					t.Fatalf("task %d argument %s needs %s but task %d (%s) produces %v", task.ID, k, a.Type, refs[0], dep.Name, dep.Outputs)
				}
			case a.Type.Media() && flow.IsURL(v):
			case a.Type.Media():
				st, err := os.Stat(v)
				if err != nil || !st.Mode().IsRegular() || !filepath.IsAbs(v) {
					t.Fatalf("task %d media argument %s = %q is not an existing regular file by its absolute path (%v)", task.ID, k, v, err)
				}
				if m := flow.ModalityOf(v); m != "" && m != a.Type {
					t.Fatalf("task %d argument %s needs %s but %s is %s", task.ID, k, a.Type, v, m)
				}
			case a.Type == skills.Point || a.Type == skills.Box:
				want := map[skills.Modality]int{skills.Point: 2, skills.Box: 4}[a.Type]
				if norm, ok := parseCoords(v, want); !ok || norm != v {
					t.Fatalf("task %d argument %s = %q is not %d normalised numbers", task.ID, k, v, want)
				}
			}
		}
	}
}

// fuzzValidate runs a reply through the parser and the validator, checks
// the plan, and checks that validating it again changes nothing: a plan
// the validator let through must already be a valid plan.
func fuzzValidate(t *testing.T, e *tester, w *fuzzWorld, reply string) {
	raw, err := parsePlan(reply)
	if err != nil {
		return
	}
	p := e.validate(raw.Tasks, raw.Constraints, w.turn, raw.Notes)
	checkPlan(t, e, p)
	again := e.validate(p.Tasks, flow.Constraints{}, w.turn, nil)
	if !reflect.DeepEqual(again.Tasks, p.Tasks) && !(len(again.Tasks) == 0 && len(p.Tasks) == 0) {
		t.Fatalf("validating a validated plan changed it:\nfirst  %+v\nsecond %+v\nnotes %q", p.Tasks, again.Tasks, again.Notes)
	}
	if len(again.Notes) > 0 {
		t.Fatalf("validating a validated plan made repairs: %q", again.Notes)
	}
}

// FuzzValidatePlan drives random plans (tasks, ids, deps and arguments
// drawn from the bytes) through parsePlan and validate.
func FuzzValidatePlan(f *testing.F) {
	e := testPlanner(f)
	w := newFuzzWorld(f)
	names := e.cat.Names()
	for _, seed := range [][]byte{
		{},
		{1, 1, 5, 1, 0, 1, 1, 0},
		{3, 7, 3, 9, 2, 3, 0, 5, 2, 1, 1, 2, 20, 4, 3, 1, 2, 4},
		{9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		[]byte("a longer run of bytes that picks many tasks and arguments at once"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzValidate(t, e, w, planFromBytes(data, names, w))
	})
}

// FuzzValidateReply drives raw planner replies (as text, so the fuzzer can
// break the JSON too) through parsePlan and validate. $IMG, $WAV, $TXT,
// $FIFO and $DIR stand for real paths.
func FuzzValidateReply(f *testing.F) {
	e := testPlanner(f)
	w := newFuzzWorld(f)
	for _, s := range []string{
		`{"tasks":[{"task":"image-to-text","id":1,"dep":[],"args":{"image":"$IMG"}},{"task":"text-to-speech","id":2,"dep":[1],"args":{"text":"<resource>-1"}}]}`,
		`[{"task":"vqa","id":"2","dep":"-1","args":{"img_url":"cat.png","question":"what?"}},{"task":"tts","args":{"text":"<resource>-2"}}]`,
		`{"tasks":[{"task":"mask-generation","id":1,"dep":[3,1],"args":{"image":"$FIFO","point":"(1, 2)"}},{"task":"image-crop","id":3,"dep":[1],"args":{"image":"<resource>-1","box":"1,2,3,4"}}]}`,
		`{"task":"automatic-speech-recognition","args":{"audio":"$WAV"}}`,
		"```json\n{\"tasks\":[{\"task\":\"summarization\",\"id\":1,\"args\":{\"text\":\"$TXT\"},},]}\n```",
		`{"tasks":[{"task":"image-to-text","id":1,"dep":[2],"args":{"image":"<resource>-2"}},{"task":"text-to-image","id":2,"dep":[1],"args":{"text":"<resource>-1"}}]}`,
		`{"tasks":[{"task":"image-classification","id":1,"args":{"image":"$DIR"}}]}`,
	} {
		f.Add(s)
	}
	repl := strings.NewReplacer("$IMG", w.img, "$WAV", w.wav, "$TXT", w.txt, "$FIFO", w.fifoBare, "$DIR", w.dir)
	f.Fuzz(func(t *testing.T, s string) {
		fuzzValidate(t, e, w, repl.Replace(s))
	})
}
