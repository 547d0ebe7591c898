package eval

import (
	"maps"
	"slices"
)

// Score compares one predicted plan with its gold plan, as graphs. Counts
// are kept (not just ratios) so a suite's F1 can be pooled over all its
// requests, as TaskBench does, rather than averaged per request.
type Score struct {
	GoldNodes    int `json:"gold_nodes"`
	PredNodes    int `json:"pred_nodes"`
	MatchedNodes int `json:"matched_nodes"`
	GoldEdges    int `json:"gold_edges"`
	PredEdges    int `json:"pred_edges"`
	MatchedEdges int `json:"matched_edges"`
	// GED is the graph edit distance: the fewest node insertions,
	// deletions and renamings plus edge insertions and deletions that turn
	// the prediction into the gold. GEDNorm divides it by the most it can
	// be — every node renamed, inserted or deleted, every edge of both
	// deleted or inserted: max(nodes) + edges of gold + edges of pred — so
	// it lies in [0, 1]: 0 is the gold, 1 means nothing could be kept (no
	// task name in common and no dependency that lines up). A wrong single
	// task is 1, an empty plan 1, a chain of three wrong tasks wired
	// right 3/7.
	GED     int     `json:"ged"`
	GEDNorm float64 `json:"ged_norm"`
	// NamesExact: the plan names the gold's tasks, each as often
	// (HuggingGPT's task accuracy, on single-task requests).
	NamesExact bool `json:"names_exact"`
	// TS (HIVE's task selection, read automatically): the plan chose the
	// gold's kinds of task, no more, no fewer — the same set of names.
	TS bool `json:"ts"`
	// FoT (HIVE's flow of thought, read automatically): the whole graph
	// is right — every task and every dependency, GED 0.
	FoT bool `json:"fot"`
}

// Compare scores pred against gold. Nodes are matched by task name with
// the assignment that keeps the most dependency edges (so renumbered ids,
// or two tasks of the same name written in the other order, cost
// nothing); the edit distance uses the assignment that makes it smallest.
func Compare(gold, pred Graph) Score {
	s := Score{GoldNodes: len(gold.Nodes), PredNodes: len(pred.Nodes), GoldEdges: len(gold.Edges), PredEdges: len(pred.Edges)}
	m := bestMapping(gold, pred, true)
	for _, j := range m {
		if j >= 0 {
			s.MatchedNodes++
		}
	}
	s.MatchedEdges = keptEdges(gold, pred, m)
	s.GED = ged(gold, pred, bestMapping(gold, pred, false))
	if total := max(len(gold.Nodes), len(pred.Nodes)) + len(gold.Edges) + len(pred.Edges); total > 0 {
		s.GEDNorm = float64(s.GED) / float64(total)
	}
	s.NamesExact = s.MatchedNodes == s.GoldNodes && s.MatchedNodes == s.PredNodes
	s.TS = maps.Equal(nameSet(gold), nameSet(pred))
	s.FoT = s.GED == 0
	return s
}

func nameSet(g Graph) map[string]bool {
	out := map[string]bool{}
	for _, n := range g.Nodes {
		out[n] = true
	}
	return out
}

// keptEdges counts gold edges whose both ends are mapped onto an edge of
// pred. m maps gold node i to pred node m[i], or -1.
func keptEdges(gold, pred Graph, m []int) int {
	n := 0
	for _, e := range gold.Edges {
		a, b := m[e[0]], m[e[1]]
		if a >= 0 && b >= 0 && pred.hasEdge(a, b) {
			n++
		}
	}
	return n
}

// ged is the edit cost of mapping m: an unmapped node on either side is
// an insertion or deletion (1), a mapped pair with different names a
// renaming (1); a gold edge not kept and a pred edge that is no gold
// edge's image each cost 1.
func ged(gold, pred Graph, m []int) int {
	cost := 0
	used := 0
	for i, j := range m {
		switch {
		case j < 0:
			cost++
		case gold.Nodes[i] != pred.Nodes[j]:
			cost++
			used++
		default:
			used++
		}
	}
	cost += len(pred.Nodes) - used
	kept := keptEdges(gold, pred, m)
	cost += len(gold.Edges) - kept + len(pred.Edges) - kept
	return cost
}

// maxLeaves bounds the exhaustive search of bestMapping. Plans are small
// (a handful of tasks, 16 at most after validation); the first mapping
// tried is the greedy one, so hitting the bound still gives a good one.
const maxLeaves = 200_000

// bestMapping maps gold nodes onto pred nodes, one to one. With sameName,
// only nodes of equal names pair and the mapping maximises matched nodes,
// then kept edges (F1's matching); without, any pair may be mapped (a
// renaming) and the mapping minimises the edit distance.
func bestMapping(gold, pred Graph, sameName bool) []int {
	n := len(gold.Nodes)
	m := make([]int, n)
	best := make([]int, n)
	for i := range best {
		best[i] = -1
	}
	// score: higher is better.
	score := func(m []int) int {
		if sameName {
			nodes := 0
			for _, j := range m {
				if j >= 0 {
					nodes++
				}
			}
			return nodes*(len(gold.Edges)+1) + keptEdges(gold, pred, m)
		}
		return -ged(gold, pred, m)
	}
	bestScore := score(best)
	used := make([]bool, len(pred.Nodes))
	leaves := 0
	// surplus: from gold node i on, more nodes bear i's name than pred
	// nodes of that name are free, so one of them must stay unmatched.
	surplus := func(i int) bool {
		need, free := 0, 0
		for _, name := range gold.Nodes[i:] {
			if name == gold.Nodes[i] {
				need++
			}
		}
		for j, name := range pred.Nodes {
			if !used[j] && name == gold.Nodes[i] {
				free++
			}
		}
		return need > free
	}
	var walk func(i int)
	walk = func(i int) {
		if leaves >= maxLeaves {
			return
		}
		if i == n {
			leaves++
			if s := score(m); s > bestScore {
				bestScore = s
				copy(best, m)
			}
			return
		}
		// Same-name candidates first, so the first leaf is the greedy
		// mapping; then (for the edit distance) renamings; then none.
		var cands []int
		for j, name := range pred.Nodes {
			if !used[j] && name == gold.Nodes[i] {
				cands = append(cands, j)
			}
		}
		if !sameName {
			for j, name := range pred.Nodes {
				if !used[j] && name != gold.Nodes[i] {
					cands = append(cands, j)
				}
			}
		}
		for _, j := range cands {
			used[j], m[i] = true, j
			walk(i + 1)
			used[j] = false
		}
		m[i] = -1
		if sameName && len(cands) > 0 && !surplus(i) {
			// Leaving i unmatched while a same-name node is free never
			// matches more: some later gold node of the name would have
			// to take it, which is the same count.
			return
		}
		walk(i + 1)
	}
	walk(0)
	return slices.Clone(best)
}

// F1 is precision, recall and their harmonic mean from pooled counts.
type F1 struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Defined is false when there was nothing to score: no node (or
	// edge) in any gold plan or prediction.
	Defined bool `json:"defined"`
}

// PooledF1 computes F1 from matched, predicted and gold counts summed
// over a suite (micro-averaged, as TaskBench reports it). With nothing
// predicted and nothing in the gold it is undefined, not perfect: a suite
// of single tasks says nothing about edges.
func PooledF1(matched, pred, gold int) F1 {
	if pred == 0 && gold == 0 {
		return F1{}
	}
	f := F1{Defined: true}
	if pred > 0 {
		f.Precision = float64(matched) / float64(pred)
	}
	if gold > 0 {
		f.Recall = float64(matched) / float64(gold)
	}
	if f.Precision+f.Recall > 0 {
		f.F1 = 2 * f.Precision * f.Recall / (f.Precision + f.Recall)
	}
	return f
}
