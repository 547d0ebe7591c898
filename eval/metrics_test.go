package eval

import (
	"math"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

func task(id int, name string, dep ...int) pipeline.Task {
	return pipeline.Task{ID: id, Task: name, Dep: dep}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCompareHandComputed(t *testing.T) {
	tests := []struct {
		name       string
		gold, pred []pipeline.Task
		want       Score
	}{
		{
			// The same chain with other ids: nothing to edit.
			name: "renumbered chain",
			gold: []pipeline.Task{task(1, "a"), task(2, "b", 1), task(3, "c", 2)},
			pred: []pipeline.Task{task(5, "a"), task(7, "b", 5), task(9, "c", 7)},
			want: Score{GoldNodes: 3, PredNodes: 3, MatchedNodes: 3, GoldEdges: 2, PredEdges: 2, MatchedEdges: 2,
				GED: 0, GEDNorm: 0, NamesExact: true, TS: true, FoT: true},
		},
		{
			// Wrong first task: only "t2s" matches by name (1 of 2 each
			// way); the edge i2t→t2s has an unmatched end, so 0 edges.
			// GED: rename i2t to icls (1), edge kept under that mapping
			// (0) → 1; normalised by the most it could be, max(2, 2)+1+1
			// = 4 → 1/4.
			name: "near miss",
			gold: []pipeline.Task{task(1, "image-to-text"), task(2, "text-to-speech", 1)},
			pred: []pipeline.Task{task(1, "image-classification"), task(2, "text-to-speech", 1)},
			want: Score{GoldNodes: 2, PredNodes: 2, MatchedNodes: 1, GoldEdges: 1, PredEdges: 1, MatchedEdges: 0,
				GED: 1, GEDNorm: 1.0 / 4, NamesExact: false, TS: false, FoT: false},
		},
		{
			// Two tts tasks written in the other order: the matching
			// pairs gold tts#3 (after ocr) with pred tts#40 (after ocr),
			// so every edge is kept.
			name: "duplicate names swapped",
			gold: []pipeline.Task{task(1, "ocr"), task(2, "translation", 1), task(3, "tts", 1), task(4, "tts", 2)},
			pred: []pipeline.Task{task(10, "ocr"), task(20, "translation", 10), task(30, "tts", 20), task(40, "tts", 10)},
			want: Score{GoldNodes: 4, PredNodes: 4, MatchedNodes: 4, GoldEdges: 3, PredEdges: 3, MatchedEdges: 3,
				GED: 0, GEDNorm: 0, NamesExact: true, TS: true, FoT: true},
		},
		{
			// Right tasks, an edge too many: GED 1 over max(2, 2)+0+1 = 3.
			name: "extra dependency",
			gold: []pipeline.Task{task(1, "a"), task(2, "b")},
			pred: []pipeline.Task{task(1, "a"), task(2, "b", 1)},
			want: Score{GoldNodes: 2, PredNodes: 2, MatchedNodes: 2, GoldEdges: 0, PredEdges: 1, MatchedEdges: 0,
				GED: 1, GEDNorm: 1.0 / 3, NamesExact: true, TS: true, FoT: false},
		},
		{
			// Nothing planned: delete the gold's one node, 1 of 1.
			name: "empty prediction",
			gold: []pipeline.Task{task(1, "ocr")},
			pred: nil,
			want: Score{GoldNodes: 1, MatchedNodes: 0, GED: 1, GEDNorm: 1},
		},
		{
			// A repeated task where the gold has one: TS (sets) is right,
			// names are not exact; GED deletes one node → 1 of max(1, 2).
			name: "duplicate task",
			gold: []pipeline.Task{task(1, "ocr")},
			pred: []pipeline.Task{task(1, "ocr"), task(2, "ocr")},
			want: Score{GoldNodes: 1, PredNodes: 2, MatchedNodes: 1, GED: 1, GEDNorm: 1.0 / 2, TS: true},
		},
		{
			// The wrong single task shares nothing with the gold: 1 (the
			// old normalisation, by both graphs' nodes, said 0.5).
			name: "wrong single task",
			gold: []pipeline.Task{task(1, "ocr")},
			pred: []pipeline.Task{task(1, "image-to-text")},
			want: Score{GoldNodes: 1, PredNodes: 1, GED: 1, GEDNorm: 1},
		},
		{
			// Every task wrong but wired as a chain: three renamings, the
			// two edges line up → 3 of 3+2+2.
			name: "chain of wrong tasks",
			gold: []pipeline.Task{task(1, "a"), task(2, "b", 1), task(3, "c", 2)},
			pred: []pipeline.Task{task(1, "x"), task(2, "y", 1), task(3, "z", 2)},
			want: Score{GoldNodes: 3, PredNodes: 3, GoldEdges: 2, PredEdges: 2, GED: 3, GEDNorm: 3.0 / 7},
		},
		{
			// Every task wrong and no dependency where the gold has two:
			// nothing kept at all → 1.
			name: "nothing in common",
			gold: []pipeline.Task{task(1, "a"), task(2, "b", 1), task(3, "c", 2)},
			pred: []pipeline.Task{task(1, "x"), task(2, "y")},
			want: Score{GoldNodes: 3, PredNodes: 2, GoldEdges: 2, GED: 5, GEDNorm: 1},
		},
		{
			// Both empty: nothing to do, perfectly.
			name: "both empty",
			want: Score{NamesExact: true, TS: true, FoT: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(GraphOf(tt.gold), GraphOf(tt.pred))
			if !near(got.GEDNorm, tt.want.GEDNorm) {
				t.Errorf("GEDNorm = %v, want %v", got.GEDNorm, tt.want.GEDNorm)
			}
			got.GEDNorm = tt.want.GEDNorm
			if got != tt.want {
				t.Errorf("Compare =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

func TestPooledF1(t *testing.T) {
	// Near miss + swapped duplicates pooled: nodes 1+4 matched of 2+4
	// predicted and 2+4 gold → P = R = 5/6 → F1 = 5/6.
	f := PooledF1(1+4, 2+4, 2+4)
	if !f.Defined || !near(f.Precision, 5.0/6) || !near(f.Recall, 5.0/6) || !near(f.F1, 5.0/6) {
		t.Errorf("PooledF1 = %+v, want P=R=F1=5/6", f)
	}
	// 2 matched of 3 predicted and 4 gold: P = 2/3, R = 1/2,
	// F1 = 2·(2/3)(1/2)/(2/3+1/2) = (2/3)/(7/6) = 4/7.
	if f := PooledF1(2, 3, 4); !near(f.F1, 4.0/7) {
		t.Errorf("PooledF1(2,3,4).F1 = %v, want 4/7", f.F1)
	}
	if f := PooledF1(0, 0, 0); f.Defined {
		t.Errorf("nothing predicted and nothing gold should be undefined, got %+v", f)
	}
	if f := PooledF1(0, 2, 0); !f.Defined || f.F1 != 0 {
		t.Errorf("edges predicted where the gold has none: want defined 0, got %+v", f)
	}
}

func TestGraphOfIgnoresBadDeps(t *testing.T) {
	// A dep on a missing id, on itself and a repeated dep are no edges.
	g := GraphOf([]pipeline.Task{task(1, "a", 1, 9), task(2, "b", 1, 1)})
	if len(g.Edges) != 1 || g.Edges[0] != [2]int{0, 1} {
		t.Errorf("edges = %v, want [[0 1]]", g.Edges)
	}
}

func TestShape(t *testing.T) {
	tests := []struct {
		tasks []pipeline.Task
		want  string
	}{
		{nil, "none"},
		{[]pipeline.Task{task(1, "a")}, ShapeSingle},
		{[]pipeline.Task{task(1, "a"), task(2, "b", 1), task(3, "c", 2)}, ShapeChain},
		// Written out of order, still one path.
		{[]pipeline.Task{task(3, "c", 2), task(1, "a"), task(2, "b", 1)}, ShapeChain},
		{[]pipeline.Task{task(1, "a"), task(2, "b")}, ShapeGraph},
		{[]pipeline.Task{task(1, "a"), task(2, "b", 1), task(3, "c", 1)}, ShapeGraph},
		// A path a→b plus a cycle c⇄d has chain-like degrees: 4 nodes,
		// 3 edges, in and out ≤ 1 — but no single path.
		{[]pipeline.Task{task(1, "a"), task(2, "b", 1), task(3, "c", 4), task(4, "d", 3)}, ShapeGraph},
	}
	for _, tt := range tests {
		if got := GraphOf(tt.tasks).Shape(); got != tt.want {
			t.Errorf("Shape(%v) = %s, want %s", tt.tasks, got, tt.want)
		}
	}
}

func TestBestMappingBoundedOnLargePlans(t *testing.T) {
	// Sixteen tasks of one name with no edges: the search is bounded and
	// still matches them all.
	var gold, pred []pipeline.Task
	for i := 1; i <= 16; i++ {
		gold = append(gold, task(i, "ocr"))
		pred = append(pred, task(i, "ocr"))
	}
	s := Compare(GraphOf(gold), GraphOf(pred))
	if s.MatchedNodes != 16 || s.GED != 0 {
		t.Errorf("16 equal tasks: matched %d, GED %d; want 16, 0", s.MatchedNodes, s.GED)
	}
}

func TestAggregateHandComputed(t *testing.T) {
	score := func(gold, pred []pipeline.Task) Score { return Compare(GraphOf(gold), GraphOf(pred)) }
	rs := []Result{
		{Shape: ShapeChain, ValidAsWritten: true, Usable: true, LatencyMS: 40, PromptTokens: 100, CompletionTokens: 12,
			Score: score([]pipeline.Task{task(1, "a"), task(2, "b", 1)}, []pipeline.Task{task(1, "a"), task(2, "b", 1)})},
		{Shape: ShapeSingle, Usable: false, LatencyMS: 10, PromptTokens: 200, CompletionTokens: 10, Error: "timeout",
			Score: score([]pipeline.Task{task(1, "ocr")}, nil)},
		{Shape: ShapeSingle, Usable: true, LatencyMS: 30, PromptTokens: 100, CompletionTokens: 8,
			Score: score([]pipeline.Task{task(1, "ocr")}, []pipeline.Task{task(1, "ocr")})},
	}
	m := Aggregate(rs, false)
	// Valid as written 1/3, after repair 2/3; task accuracy over the two
	// single-task golds: 1/2. Nodes: matched 2+0+1 = 3 of 2+0+1 = 3
	// predicted and 2+1+1 = 4 gold: P 1, R 3/4, F1 = 1.5/1.75 = 6/7.
	// Edges 1 of 1 of 1: F1 1. GED: (0 + 1 + 0)/3 = 1/3. TS and FoT
	// 2/3. Medians: latency {10,30,40} → 30; prompt {100,100,200} →
	// 100; completion {8,10,12} → 10.
	if m.Runs != 3 || m.Errors != 1 {
		t.Errorf("runs %d errors %d, want 3, 1", m.Runs, m.Errors)
	}
	if m.ValidAsWritten != (Rate{1, 3}) || m.ValidAfterRepair != (Rate{2, 3}) || m.TaskAccuracy != (Rate{1, 2}) {
		t.Errorf("valid %v / %v, accuracy %v", m.ValidAsWritten, m.ValidAfterRepair, m.TaskAccuracy)
	}
	if !near(m.NodeF1.F1, 6.0/7) || !near(m.EdgeF1.F1, 1) || !near(m.GED, 1.0/3) {
		t.Errorf("node F1 %v edge F1 %v GED %v", m.NodeF1.F1, m.EdgeF1.F1, m.GED)
	}
	if m.TS != (Rate{2, 3}) || m.FoT != (Rate{2, 3}) {
		t.Errorf("TS %v FoT %v", m.TS, m.FoT)
	}
	if m.LatencyMS != 30 || m.PromptTokens != 100 || m.CompletionTokens != 10 {
		t.Errorf("medians: latency %v prompt %v completion %v", m.LatencyMS, m.PromptTokens, m.CompletionTokens)
	}
	if median([]float64{4, 1, 3, 2}) != 2.5 {
		t.Error("median of an even count is the mean of the middle two")
	}
}
