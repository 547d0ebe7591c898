// Package eval measures how well a controller model plans: it runs the
// planning stage of Chorus (pipeline.Engine.PlanOnly) over a suite of
// requests with gold plans and scores each plan against its gold as a graph
// — task names and dependency edges, ids renumbered — with the metrics of
// HuggingGPT, HIVE and TaskBench (metrics.go). `chorus eval` is its
// command; docs/eval.md explains the metrics and how to read the table.
package eval

import (
	"slices"

	"github.com/chorusai/chorus/pipeline"
)

// Graph is a plan as the metrics see it: task names as nodes, numbered
// from 0 in plan order, and an edge from a task to each task that depends
// on it. Ids, arguments and order of deps are gone, so two plans that
// differ only in how they number their tasks are the same graph.
type Graph struct {
	Nodes []string `json:"nodes"`
	// Edges are [from, to] node indexes: to depends on from.
	Edges [][2]int `json:"edges,omitempty"`
}

// GraphOf turns a task list into a graph. A dep that names no task of the
// list, a task depending on itself and repeated deps are ignored: they
// are not dependencies between two tasks.
func GraphOf(tasks []pipeline.Task) Graph {
	g := Graph{Nodes: make([]string, 0, len(tasks))}
	index := map[int]int{}
	for i, t := range tasks {
		g.Nodes = append(g.Nodes, t.Task)
		if _, dup := index[t.ID]; !dup {
			index[t.ID] = i
		}
	}
	for i, t := range tasks {
		for _, d := range t.Dep {
			from, ok := index[d]
			if !ok || from == i {
				continue
			}
			e := [2]int{from, i}
			if !slices.Contains(g.Edges, e) {
				g.Edges = append(g.Edges, e)
			}
		}
	}
	return g
}

// hasEdge reports whether g has the edge from → to.
func (g Graph) hasEdge(from, to int) bool {
	return slices.Contains(g.Edges, [2]int{from, to})
}

// Shape names a graph's form: "single" (one task), "chain" (each task
// feeds the next), "graph" (anything else with tasks), "none" (empty).
func (g Graph) Shape() string {
	switch {
	case len(g.Nodes) == 0:
		return "none"
	case len(g.Nodes) == 1:
		return ShapeSingle
	}
	in := make([]int, len(g.Nodes))
	out := make([]int, len(g.Nodes))
	for _, e := range g.Edges {
		out[e[0]]++
		in[e[1]]++
	}
	if len(g.Edges) != len(g.Nodes)-1 {
		return ShapeGraph
	}
	start := -1
	for i := range g.Nodes {
		if in[i] > 1 || out[i] > 1 {
			return ShapeGraph
		}
		if in[i] == 0 {
			start = i
		}
	}
	// One path through every node: walk it (a path plus a separate cycle
	// has the same degrees).
	seen := 0
	for at := start; at >= 0 && seen <= len(g.Nodes); seen++ {
		next := -1
		for _, e := range g.Edges {
			if e[0] == at {
				next = e[1]
			}
		}
		at = next
	}
	if seen != len(g.Nodes) {
		return ShapeGraph
	}
	return ShapeChain
}

// The shapes of gold plans a suite's cases are grouped by.
const (
	ShapeSingle = "single"
	ShapeChain  = "chain"
	ShapeGraph  = "graph"
)
