package eval

import (
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

func catalogResolve(t *testing.T) func(string) (string, bool) {
	t.Helper()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return func(name string) (string, bool) {
		s, _, ok := cat.Resolve(name)
		if !ok {
			return "", false
		}
		return s.Name, true
	}
}

func TestBuiltinSuite(t *testing.T) {
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) < 100 {
		t.Errorf("the embedded suite has %d cases, want at least 100", len(s.Cases))
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	shapes, inputs := map[string]int{}, map[string]int{}
	ids := map[string]bool{}
	dir := t.TempDir()
	for _, c := range s.Cases {
		if ids[c.ID] {
			t.Errorf("case id %s repeated", c.ID)
		}
		ids[c.ID] = true
		shapes[c.Shape]++
		inputs[c.Input]++
		for _, g := range c.Gold {
			if _, ok := cat.Skill(g.Task); !ok {
				t.Errorf("%s: gold task %q is not a Chorus skill", c.ID, g.Task)
			}
		}
		// The declared shape is the gold's real shape.
		if got := GraphOf(c.Gold).Shape(); got != c.Shape {
			t.Errorf("%s: declared %s, but its gold is a %s", c.ID, c.Shape, got)
		}
		turn, err := c.Turn(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if strings.Contains(turn.Request, "{") {
			t.Errorf("%s: a placeholder is left in %q", c.ID, turn.Request)
		}
		if len(turn.Attachments) != len(c.Files) {
			t.Errorf("%s: %d attachments for %d files", c.ID, len(turn.Attachments), len(c.Files))
		}
	}
	// Every skill is some request's gold; the kinds of request a user
	// really makes are there.
	used := map[string]bool{}
	var chat, turns, alts, retrieval, grounding, args int
	for _, c := range s.Cases {
		for _, g := range c.Gold {
			used[g.Task] = true
			args += len(g.Args)
			if g.Task == "retrieval" {
				retrieval++
			}
			if g.Task == "mask-generation" && slices.ContainsFunc(g.Dep, func(d int) bool { return c.Gold[d-1].Task == "zero-shot-object-detection" }) {
				grounding++
			}
		}
		if len(c.Gold) == 0 {
			chat++
		}
		if len(c.History) > 0 {
			turns++
			// The request needs an earlier turn's file.
			var earlier []string
			for _, ex := range c.History {
				earlier = append(earlier, ex.Files...)
				earlier = append(earlier, ex.Outputs...)
			}
			if !slices.ContainsFunc(c.Gold, func(g pipeline.Task) bool {
				return slices.ContainsFunc(earlier, func(f string) bool { return slices.Contains(slices.Collect(maps.Values(g.Args)), "{"+f+"}") })
			}) && c.ID != "turns-03" {
				t.Errorf("%s: no gold argument is an earlier turn's file", c.ID)
			}
		}
		alts += len(c.Alternatives)
		for _, a := range c.Alternatives {
			for _, g := range a {
				if _, ok := cat.Skill(g.Task); !ok {
					t.Errorf("%s: alternative task %q is not a Chorus skill", c.ID, g.Task)
				}
			}
		}
	}
	for _, sk := range cat.Names() {
		if !used[sk] {
			t.Errorf("no request's gold uses %s", sk)
		}
	}
	if chat < 3 || turns < 3 || alts < 10 || retrieval < 2 || grounding < 2 || args < 150 {
		t.Errorf("chit-chat %d, multi-turn %d, alternatives %d, retrieval %d, grounding → segmentation %d, gold arguments %d", chat, turns, alts, retrieval, grounding, args)
	}
	for _, sh := range []string{ShapeSingle, ShapeChain, ShapeGraph} {
		if shapes[sh] < 10 {
			t.Errorf("%d %s cases, want at least 10", shapes[sh], sh)
		}
	}
	for _, in := range []string{"text", "image", "audio", "video"} {
		if inputs[in] < 5 {
			t.Errorf("%d cases with %s input, want at least 5", inputs[in], in)
		}
	}
}

func TestInputsAreTheirKind(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{
		"a.png": "image/png", "b.jpg": "image/jpeg", "c.wav": "audio/wave", "d.mp4": "video/mp4", "e.txt": "text/plain",
	} {
		p, err := Input(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := skills.Sniff(b)
		if name == "c.wav" || name == "e.txt" {
			got = http.DetectContentType(b)
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s sniffs as %q, want %q", name, got, want)
		}
	}
	if _, err := Input(dir, "../x.png"); err == nil {
		t.Error("a name with a folder should be refused")
	}
	if _, err := Input(dir, "x.exe"); err == nil || !strings.Contains(err.Error(), "png") {
		t.Errorf("an unknown kind should name the kinds there are, got %v", err)
	}
}

func TestLoadTaskBench(t *testing.T) {
	s, err := Load("testdata/taskbench.json", catalogResolve(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "taskbench" || len(s.Cases) != 3 {
		t.Fatalf("suite %q with %d cases, want taskbench with 3", s.Name, len(s.Cases))
	}
	c := s.Cases[0]
	if c.ID != "57993067" || c.Shape != ShapeSingle || len(c.Gold) != 1 || c.Gold[0].Task != "object-detection" {
		t.Errorf("first case = %+v", c)
	}
	// 'example.jpg' becomes a generated file.
	if !slices.Equal(c.Files, []string{"example.jpg"}) || !strings.Contains(c.Request, "{example.jpg}") {
		t.Errorf("files %v request %q", c.Files, c.Request)
	}
	// "Text-to-Speech" depends on "Summarization" through task_links;
	// "Automatic Speech Recognition" stands alone.
	g := GraphOf(s.Cases[1].Gold)
	if !slices.Equal(g.Nodes, []string{"summarization", "text-to-speech", "automatic-speech-recognition"}) || len(g.Edges) != 1 || g.Edges[0] != [2]int{0, 1} {
		t.Errorf("second case graph = %+v", g)
	}
	if s.Cases[1].Shape != ShapeChain || s.Cases[2].Shape != ShapeGraph {
		t.Errorf("shapes %s, %s; want chain, graph (TaskBench's dag)", s.Cases[1].Shape, s.Cases[2].Shape)
	}
	// A multimedia tool with no Chorus skill is kept (so the plan cannot
	// match it) and warned about.
	if s.Cases[2].Gold[0].Task != "audio-splicer" {
		t.Errorf("unknown tool kept as %q", s.Cases[2].Gold[0].Task)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "Audio Splicer") }) {
		t.Errorf("warnings %v should name Audio Splicer", s.Warnings)
	}
}

func TestLoadPlainJSONL(t *testing.T) {
	s, err := Load("testdata/plain.jsonl", catalogResolve(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cases) != 2 {
		t.Fatalf("%d cases, want 2 (the bad line skipped)", len(s.Cases))
	}
	if s.Cases[0].ID != "line 1" || s.Cases[0].Shape != ShapeChain || !slices.Equal(s.Cases[0].Files, []string{"photo.png"}) {
		t.Errorf("first case = %+v", s.Cases[0])
	}
	// "translate" is an alias the catalog resolves.
	if s.Cases[1].ID != "fr" || s.Cases[1].Gold[0].Task != "translation" {
		t.Errorf("second case = %+v", s.Cases[1])
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.HasPrefix(w, "line 2 skipped") }) {
		t.Errorf("warnings %v should say line 2 was skipped", s.Warnings)
	}
}

func TestLoadRefusesWhatIsNoSuite(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"empty.json":   "  \n",
		"garbage.json": "hello\n",
		"nocases.json": `{"name": "x", "cases": []}`,
		"norequest":    `{"cases": [{"id": "a", "gold": []}]}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p, nil); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.json"), nil); err == nil {
		t.Error("a missing file should be an error")
	}
}

// TestLoadSaysWhyNoLineIsACase: a JSON file that is neither format (an
// object without "cases", lines without "request") is refused with the
// reason its lines were skipped and the formats that are read.
func TestLoadSaysWhyNoLineIsACase(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(`{"x": 1}`+"\n"+`{"prompt": "hi"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p, nil)
	if err == nil || !strings.Contains(err.Error(), `line 1 skipped: neither {"request", "gold_tasks"}`) || !strings.Contains(err.Error(), "TaskBench's data.json") {
		t.Errorf("err = %v, want the skipped line's reason and the formats", err)
	}
}

func TestFileRefsLeavesPaths(t *testing.T) {
	req, files := fileRefs("compare /home/me/cat.png with 'dog.jpg' and dog.jpg")
	if req != "compare /home/me/cat.png with '{dog.jpg}' and {dog.jpg}" || !slices.Equal(files, []string{"dog.jpg"}) {
		t.Errorf("fileRefs = %q, %v", req, files)
	}
}

// TestLoadTaskBenchToolUsedTwice: TaskBench's links come from "<node-j>"
// arguments, so a request that uses one tool twice keeps its shape. (Read
// from task_links, which name tools, "Translation → Summarization" and
// "Summarization → Translation" joined the first Translation both ways: a
// cycle, and a gold no plan could equal.)
func TestLoadTaskBenchToolUsedTwice(t *testing.T) {
	s, err := Load("testdata/taskbench/data.json", catalogResolve(t))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Case{}
	for _, c := range s.Cases {
		by[c.ID] = c
	}
	for id, want := range map[string]Graph{
		// translation → summarization → translation
		"c1": {Nodes: []string{"translation", "summarization", "translation"}, Edges: [][2]int{{0, 1}, {1, 2}}},
		// caption and detections, each read aloud by its own tts
		"d1": {Nodes: []string{"image-to-text", "object-detection", "text-to-speech", "text-to-speech"}, Edges: [][2]int{{0, 2}, {1, 3}}},
		"c6": {Nodes: []string{"image-to-text", "text-to-image", "image-to-text"}, Edges: [][2]int{{0, 1}, {1, 2}}},
	} {
		got := GraphOf(by[id].Gold)
		if !slices.Equal(got.Nodes, want.Nodes) || !slices.Equal(got.Edges, want.Edges) {
			t.Errorf("%s: gold %+v, want %+v", id, got, want)
		}
		if sh := got.Shape(); sh != by[id].Shape {
			t.Errorf("%s: the gold is a %s but TaskBench calls it a %s", id, sh, by[id].Shape)
		}
		// The gold scores perfectly against itself.
		if sc := Compare(got, got); !sc.FoT {
			t.Errorf("%s: the gold's flow of thought is not right against itself", id)
		}
	}
	tb, ok := by["c1"].TaskBenchGold()
	if !ok || !slices.Equal(tb.Links, [][2]string{{"translation", "summarization"}, {"summarization", "translation"}}) {
		t.Errorf("TaskBench's links %+v", tb.Links)
	}
}
