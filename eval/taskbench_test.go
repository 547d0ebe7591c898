package eval

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tbFixture is eval/testdata/taskbench: TaskBench's files for 19 samples
// (tool_desc.json, data.json, predictions/chorus.json) and expected.json,
// the metrics file TaskBench's own evaluate.py wrote for them (see
// testdata/taskbench/README.md for how it was run).
type tbFixture struct {
	tools []string
	gold  map[string]map[string]json.RawMessage
	pred  map[string]map[string]json.RawMessage
}

func readJSONLines(t *testing.T, path string) map[string]map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]json.RawMessage{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			t.Fatal(err)
		}
		var id string
		if err := json.Unmarshal(obj["id"], &id); err != nil {
			t.Fatal(err)
		}
		out[id] = obj
	}
	return out
}

func loadTBFixture(t *testing.T) tbFixture {
	t.Helper()
	dir := filepath.Join("testdata", "taskbench")
	var desc struct {
		Nodes []struct {
			ID string `json:"id"`
		} `json:"nodes"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "tool_desc.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &desc); err != nil {
		t.Fatal(err)
	}
	fx := tbFixture{gold: readJSONLines(t, filepath.Join(dir, "data.json")), pred: readJSONLines(t, filepath.Join(dir, "predictions", "chorus.json"))}
	for _, n := range desc.Nodes {
		fx.tools = append(fx.tools, n.ID)
	}
	return fx
}

// tbExpected is the part of evaluate.py's metrics file the test checks,
// per "<split>_overall".
type tbExpected struct {
	Samples   int     `json:"all_samples"`
	NodeP     float64 `json:"node_micro_precision_no_matching"`
	NodeR     float64 `json:"node_micro_recall_no_matching"`
	NodeF1    float64 `json:"node_micro_f1_no_matching"`
	LinkF1    float64 `json:"link_binary_f1"`
	ED        float64 `json:"edit_distance"`
	NodeCount int     `json:"node_supports"`
}

func readTBExpected(t *testing.T) map[string]tbExpected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "taskbench", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]tbExpected
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestTaskBenchEqualsEvaluatePy runs the port on the fixture's samples and
// checks node F1 (with precision and recall), link F1 and ed against what
// evaluate.py printed — overall and per split — to within 1e-9 (the task
// asks for three decimals).
func TestTaskBenchEqualsEvaluatePy(t *testing.T) {
	fx := loadTBFixture(t)
	want := readTBExpected(t)
	known := func(n string) bool {
		for _, x := range fx.tools {
			if x == n {
				return true
			}
		}
		return false
	}
	same := func(s string) string { return s }
	for _, split := range []string{"overall", "single", "chain", "dag"} {
		w, ok := want[split+"_overall"]
		if !ok {
			t.Fatalf("expected.json has no %s_overall", split)
		}
		var samples []*TBCounts
		all := 0
		for id, g := range fx.gold {
			var typ string
			_ = json.Unmarshal(g["type"], &typ)
			if split != "overall" && typ != split {
				continue
			}
			p, ok := fx.pred[id]
			if !ok {
				samples = append(samples, nil) // no prediction: not scored
				continue
			}
			all++
			gold, ok := TBNodes(g["task_nodes"], false, same)
			if !ok {
				t.Fatalf("%s: the gold does not read", id)
			}
			var result map[string]json.RawMessage
			pred, ok := TBPlan{}, false
			if json.Unmarshal(p["result"], &result) == nil && result != nil {
				pred, ok = TBPrediction(result, same)
			}
			if !ok {
				samples = append(samples, nil) // evaluate.py drops it
				continue
			}
			c := TBCompare(gold, pred, known)
			samples = append(samples, &c)
		}
		m := TBAggregate(samples)
		if all != w.Samples || m.Predicted != w.NodeCount {
			t.Errorf("%s: %d samples, %d scored; evaluate.py had %d and %d", split, all, m.Predicted, w.Samples, w.NodeCount)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"node precision", m.NodeF1.Precision, w.NodeP},
			{"node recall", m.NodeF1.Recall, w.NodeR},
			{"node F1", m.NodeF1.F1, w.NodeF1},
			{"link F1", m.LinkF1.F1, w.LinkF1},
			{"ed", m.ED, w.ED},
		} {
			if math.Abs(c.got-c.want) > 1e-9 {
				t.Errorf("%s %s = %.6f, evaluate.py %.6f", split, c.name, c.got, c.want)
			}
		}
	}
}

func TestTBReadReplyAsInferencePy(t *testing.T) {
	tests := []struct {
		name, reply string
		ok          bool
		keys        string
	}{
		{"strict", `{"tasks": []}`, true, "tasks"},
		{"prose and a fence around it", "Sure! Here is the plan:\n```json\n{\"tasks\": [\n]}\n```\nHope it helps.", true, "tasks"},
		{"after RESULT #:", `# RESULT #: {"task_nodes": []}`, true, "task_nodes"},
		// A trailing comma: Chorus's parser reads it, json.loads does not.
		{"trailing comma", `{"tasks": [{"task": "ocr"},]}`, false, ""},
		// Backslashes are removed before decoding: an escaped quote
		// breaks the string.
		{"escaped quote", `{"tasks": [{"task": "ocr", "args": {"text": "say \"hi\""}}]}`, false, ""},
		{"\\_ read as _", `{"task\_nodes": []}`, true, "task_nodes"},
		{"cut off", `{"tasks": [{"task": "ocr", "id": 1`, false, ""},
		{"no JSON", `I cannot help with that.`, false, ""},
		// First "{" to last "}": two objects in a row do not decode.
		{"two objects", `{"tasks": []} and also {"tasks": []}`, false, ""},
		{"a bare list's one object", `[{"tasks": []}]`, true, "tasks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj, ok := TBReadReply(tt.reply)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%v)", ok, tt.ok, obj)
			}
			var keys []string
			for k := range obj {
				keys = append(keys, k)
			}
			if strings.Join(keys, ",") != tt.keys {
				t.Errorf("keys %v, want %s", keys, tt.keys)
			}
		})
	}
}

// TestTBPredictionFromAChorusPlan: a plan in Chorus's format gives a
// link for a dependency stated either way — dep or "<resource>-N" — and
// one for a tool used twice at the right place.
func TestTBPredictionFromAChorusPlan(t *testing.T) {
	obj, ok := TBReadReply(`{"tasks": [
		{"task": "translation", "id": 1, "dep": [], "args": {"text": "Guten Morgen"}},
		{"task": "summarization", "id": 2, "dep": [1], "args": {"text": "the translation"}},
		{"task": "translation", "id": 3, "dep": [], "args": {"text": "<resource>-2"}},
		{"task": "text-to-speech", "id": 4, "dep": [4, 9, -1], "args": {"text": "<resource>-4"}}]}`)
	if !ok {
		t.Fatal("the plan does not read")
	}
	p, ok := TBPrediction(obj, func(s string) string { return s })
	if !ok {
		t.Fatal("no prediction")
	}
	want := TBPlan{Nodes: []string{"translation", "summarization", "translation", "text-to-speech"},
		Links: [][2]string{{"translation", "summarization"}, {"summarization", "translation"}}}
	if b1, b2 := mustJSON(p), mustJSON(want); b1 != b2 {
		t.Errorf("prediction %s, want %s", b1, b2)
	}
	for _, bad := range []string{`{"steps": []}`, `{"tasks": [{"id": 1}]}`, `{"tasks": [{"task": null}]}`, `{"tasks": ["ocr"]}`, `{"tasks": {"task": "ocr"}}`} {
		obj, _ := TBReadReply(bad)
		if _, ok := TBPrediction(obj, func(s string) string { return s }); ok {
			t.Errorf("%s gave a prediction; evaluate.py drops it", bad)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLevenshteinRatio(t *testing.T) {
	// python-Levenshtein: ratio("kitten", "sitting") = 1 − 5/13 (Indel: 3
	// deletions... no: LCS "ittn" = 4, distance 6+7−8 = 5).
	split := func(s string) []string { return strings.Split(s, "") }
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"kitten", "sitting", 1 - 5.0/13},
		{"", "", 1},
		{"abc", "", 0},
		{"ab", "ba", 0.5},
	} {
		if got := levenshteinRatio(split(c.a), split(c.b)); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ratio(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
