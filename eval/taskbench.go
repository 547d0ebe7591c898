package eval

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/chorusai/chorus/pipeline"
)

// This file is TaskBench's scoring (Shen et al., 2023;
// microsoft/JARVIS, taskbench/inference.py and evaluate.py, resource
// dependencies), ported so that `chorus eval` reports the numbers a user
// would compare with: node F1 and link F1 micro-averaged over a split, and
// the edit distance `ed`. It follows the Python line by line where the
// numbers depend on it, quirks included — they are named where they occur.
// eval/testdata/taskbench/ holds fixtures with the values evaluate.py
// itself printed for them (taskbench_test.go checks them).

// TBPlan is one plan as TaskBench's evaluate.py sees it: the tool names
// of its nodes, in order ("_" read as " "), and its links, each a
// (source name, target name) pair.
type TBPlan struct {
	Nodes []string    `json:"nodes"`
	Links [][2]string `json:"links,omitempty"`
}

// TBCounts is what one sample adds to TaskBench's metrics: the node and
// link counts of its sets (micro-averaged F1 pools them over a split) and
// the Levenshtein ratio of its tool-name sequences (`ed` is one minus
// their mean).
type TBCounts struct {
	NodeTP int     `json:"node_tp"`
	NodeFP int     `json:"node_fp"`
	NodeFN int     `json:"node_fn"`
	LinkTP int     `json:"link_tp"`
	LinkFP int     `json:"link_fp"`
	LinkFN int     `json:"link_fn"`
	Ratio  float64 `json:"ratio"`
}

// TBCompare scores pred against gold as evaluate.py does. Nodes: each
// sample's names are sets; a name in both is a true positive, one only in
// the gold a false negative, one only in the prediction a false positive
// — and a name that is not a tool of the list (known reports which are)
// counts for nothing at all, as evaluate.py's flatten() gives it the
// label 0 on both sides. Links: sets of (source, target) pairs, every pair
// counted whatever its names. Ratio: python-Levenshtein's ratio of the two
// name sequences, each name an integer — its tool's index, 0 for any name
// not in the list (so two unknown names are equal), -1 for "<PAD>".
func TBCompare(gold, pred TBPlan, known func(string) bool) TBCounts {
	var c TBCounts
	gs, ps := stringSet(gold.Nodes), stringSet(pred.Nodes)
	for n := range union(gs, ps) {
		if !known(n) {
			continue
		}
		switch {
		case gs[n] && ps[n]:
			c.NodeTP++
		case gs[n]:
			c.NodeFN++
		default:
			c.NodeFP++
		}
	}
	gl, pl := pairSet(gold.Links), pairSet(pred.Links)
	for l := range gl {
		if pl[l] {
			c.LinkTP++
		} else {
			c.LinkFN++
		}
	}
	for l := range pl {
		if !gl[l] {
			c.LinkFP++
		}
	}
	token := func(n string) string {
		switch {
		case n == "<PAD>":
			return "\x00pad"
		case !known(n):
			return "\x00unknown"
		}
		return n
	}
	var a, b []string
	for _, n := range pred.Nodes {
		a = append(a, token(n))
	}
	for _, n := range gold.Nodes {
		b = append(b, token(n))
	}
	c.Ratio = levenshteinRatio(a, b)
	return c
}

func stringSet(xs []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		out[x] = true
	}
	return out
}

func union(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func pairSet(xs [][2]string) map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, x := range xs {
		out[x] = true
	}
	return out
}

// levenshteinRatio is python-Levenshtein's ratio (the rapidfuzz-based one,
// which accepts lists): 1 − Indel distance / (len(a) + len(b)), where the
// Indel distance counts insertions and deletions only (a substitution is
// one of each); 1 for two empty sequences. With a longest common
// subsequence of length l, the distance is len(a) + len(b) − 2l.
func levenshteinRatio(a, b []string) float64 {
	total := len(a) + len(b)
	if total == 0 {
		return 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	lcs := prev[len(b)]
	return 1 - float64(total-2*lcs)/float64(total)
}

// TBMetrics are TaskBench's metrics over a set of samples, as
// evaluate.py computes them: node and link F1 micro-averaged (sklearn's
// precision_recall_fscore_support), ed = 1 − the mean Levenshtein ratio.
// Samples without a prediction are not in them (evaluate.py scores only
// the ids its prediction file has); Predicted and Samples say how many
// there were.
type TBMetrics struct {
	// Samples counts the runs considered; Predicted those that produced
	// a prediction TaskBench could read.
	Samples   int `json:"samples"`
	Predicted int `json:"predicted"`
	NodeF1    F1  `json:"node_f1"`
	LinkF1    F1  `json:"link_f1"`
	// ED is TaskBench's edit distance, 0 best; meaningless (and left
	// out of the table) when nothing was predicted.
	ED float64 `json:"ed"`
	// Counts are the pooled counts (Ratio: the sum of the ratios).
	Counts TBCounts `json:"counts"`
}

// TBAggregate pools per-sample counts into TaskBench's metrics; nil
// entries are samples without a prediction.
func TBAggregate(samples []*TBCounts) TBMetrics {
	m := TBMetrics{Samples: len(samples)}
	var sum TBCounts
	for _, c := range samples {
		if c == nil {
			continue
		}
		m.Predicted++
		sum.NodeTP += c.NodeTP
		sum.NodeFP += c.NodeFP
		sum.NodeFN += c.NodeFN
		sum.LinkTP += c.LinkTP
		sum.LinkFP += c.LinkFP
		sum.LinkFN += c.LinkFN
		sum.Ratio += c.Ratio
	}
	if m.Predicted == 0 {
		return m
	}
	m.Counts = sum
	m.NodeF1 = sklearnF1(sum.NodeTP, sum.NodeFP, sum.NodeFN)
	m.LinkF1 = sklearnF1(sum.LinkTP, sum.LinkFP, sum.LinkFN)
	m.ED = 1 - sum.Ratio/float64(m.Predicted)
	return m
}

// sklearnF1 is precision_recall_fscore_support's arithmetic (scikit-learn
// 1.2): a ratio with a zero denominator is 0, and F1 = 2·P·R / (P + R), 0
// when both are 0.
func sklearnF1(tp, fp, fn int) F1 {
	f := F1{Defined: true}
	if tp+fp > 0 {
		f.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		f.Recall = float64(tp) / float64(tp+fn)
	}
	if f.Precision+f.Recall > 0 {
		f.F1 = 2 * f.Precision * f.Recall / (f.Precision + f.Recall)
	}
	return f
}

// TBReadReply reads a controller's reply as TaskBench's inference.py does
// before anything is scored: newlines removed, "\_" read as "_", every
// backslash removed, what follows "RESULT #:" if that occurs, and then the
// text from the first "{" to the last "}" decoded as JSON. A reply that
// does not decode gives no prediction (ok false): inference.py writes
// none for it, and evaluate.py scores only the predictions it has.
func TBReadReply(reply string) (map[string]json.RawMessage, bool) {
	s := strings.ReplaceAll(reply, "\n", "")
	s = strings.ReplaceAll(s, `\_`, "_")
	s = strings.ReplaceAll(s, `\`, "")
	if i := strings.Index(s, "RESULT #:"); i >= 0 {
		s = s[i+len("RESULT #:"):]
	}
	s = pySlice(s, strings.Index(s, "{"), strings.LastIndex(s, "}")+1)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// pySlice is Python's s[i:j] for the indexes find/rfind give (i may be
// -1, counting from the end).
func pySlice(s string, i, j int) string {
	n := len(s)
	norm := func(k int) int {
		if k < 0 {
			k += n
		}
		return min(max(k, 0), n)
	}
	i, j = norm(i), norm(j)
	if j <= i {
		return ""
	}
	return s[i:j]
}

// TBPrediction turns a decoded reply into the plan TaskBench scores. A
// Chorus plan ({"tasks": [{"task", "id", "dep", "args"}]}) gives its
// tasks as nodes and a link for every dependency it states — an id in
// dep, or a "<resource>-N" reference in an argument — the way TaskBench's
// links come from "<node-j>" references; a TaskBench result
// ({"task_nodes": [{"task", "arguments"}]}) is read exactly as
// evaluate.py reads it. name maps a task name as written onto the suite's
// names. ok is false where evaluate.py would drop the sample (no task
// list, a task that is not an object or has no name).
func TBPrediction(obj map[string]json.RawMessage, name func(string) string) (TBPlan, bool) {
	if raw, ok := obj["tasks"]; ok {
		return tbChorusPlan(raw, name)
	}
	if raw, ok := obj["task_nodes"]; ok {
		return TBNodes(raw, true, name)
	}
	return TBPlan{}, false
}

// tbChorusPlan reads a Chorus task list strictly: only what was written
// counts, nothing is repaired.
func tbChorusPlan(raw json.RawMessage, name func(string) string) (TBPlan, bool) {
	var tasks []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tasks); err != nil {
		return TBPlan{}, false
	}
	var p TBPlan
	byID := map[int]int{}
	type ref struct{ from, to int }
	var refs []ref
	for i, t := range tasks {
		if t == nil {
			return TBPlan{}, false
		}
		n, ok := jsonString(t["task"])
		if !ok {
			return TBPlan{}, false
		}
		p.Nodes = append(p.Nodes, name(strings.ReplaceAll(n, "_", " ")))
		var id float64
		if json.Unmarshal(t["id"], &id) == nil && t["id"] != nil {
			if _, dup := byID[int(id)]; !dup && id == float64(int(id)) {
				byID[int(id)] = i
			}
		}
		var deps []float64
		if json.Unmarshal(t["dep"], &deps) == nil {
			for _, d := range deps {
				if d == float64(int(d)) {
					refs = append(refs, ref{int(d), i})
				}
			}
		}
		var args map[string]any
		if json.Unmarshal(t["args"], &args) == nil {
			for _, v := range args {
				if s, ok := v.(string); ok {
					for _, d := range pipeline.Refs(s) {
						refs = append(refs, ref{d, i})
					}
				}
			}
		}
	}
	for _, r := range refs {
		from, ok := byID[r.from]
		if !ok || from == r.to {
			continue
		}
		l := [2]string{p.Nodes[from], p.Nodes[r.to]}
		if !slices.Contains(p.Links, l) {
			p.Links = append(p.Links, l)
		}
	}
	return p, true
}

// TBNodes reads TaskBench task_nodes as evaluate.py does with resource
// dependencies. Names have "_" read as " " (then pass through name); a
// link comes from each argument holding "<node-j>": its source is node j
// (Python's indexing, so -1 is the last node; a j out of range gives
// none; a node's reference to itself is skipped), its target the node's
// name as written — evaluate.py does not replace "_" there. The index is
// read between the first "<node-" and the first ">" of the argument. An
// argument that is an object counts by its first value, a list of strings
// joined by spaces. pred is evaluate.py's leniency for predictions (a
// node without "arguments" has none); a gold node without them, like
// anything evaluate.py cannot iterate, drops the sample (ok false).
func TBNodes(raw json.RawMessage, pred bool, name func(string) string) (TBPlan, bool) {
	nodes, links, ok := tbNodes(raw, pred)
	if !ok {
		return TBPlan{}, false
	}
	p := TBPlan{}
	for _, n := range nodes {
		p.Nodes = append(p.Nodes, name(strings.ReplaceAll(n, "_", " ")))
	}
	for _, l := range links {
		// The target keeps its "_": evaluate.py uses node["task"] there.
		p.Links = append(p.Links, [2]string{p.Nodes[l[0]], name(nodes[l[1]])})
	}
	return p, true
}

// tbNodes reads task_nodes into the names as written and the links as
// [source, target] node indexes, in evaluate.py's order.
func tbNodes(raw json.RawMessage, pred bool) ([]string, [][2]int, bool) {
	var nodes []json.RawMessage
	if err := json.Unmarshal(raw, &nodes); err != nil || nodes == nil {
		// An empty object or string iterates as nothing in Python.
		t := bytes.TrimSpace(raw)
		if string(t) == "{}" || string(t) == `""` {
			return nil, nil, true
		}
		return nil, nil, false
	}
	var names []string
	var args [][]json.RawMessage
	for _, raw := range nodes {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, nil, false
		}
		n, ok := jsonString(obj["task"])
		if !ok {
			return nil, nil, false
		}
		a, ok := obj["arguments"]
		if !ok && !pred {
			return nil, nil, false
		}
		var list []json.RawMessage
		if ok {
			if list, ok = pyIterate(a); !ok {
				return nil, nil, false
			}
		}
		names = append(names, n)
		args = append(args, list)
	}
	var links [][2]int
	for inx := range names {
		for _, a := range args[inx] {
			s, ok := tbArgument(a)
			if !ok || !strings.Contains(s, "<node-") || !strings.Contains(s, ">") {
				continue
			}
			j, ok := pyInt(pySlice(s, strings.Index(s, "<node-")+6, strings.Index(s, ">")))
			if !ok || j == inx {
				continue
			}
			if j < 0 {
				j += len(names)
			}
			if j < 0 || j >= len(names) {
				continue
			}
			links = append(links, [2]int{j, inx})
		}
	}
	return names, links, true
}

// pyIterate lists what Python's `for x in value` gives for a JSON value
// whose elements can hold a reference: a list's elements, an object's
// keys (as strings), a string's characters (none can hold "<node-j>", so
// none are kept). A number, true, false or null cannot be iterated.
func pyIterate(raw json.RawMessage) ([]json.RawMessage, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && list != nil {
		return list, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		var keys []json.RawMessage
		for k := range obj {
			b, _ := json.Marshal(k)
			keys = append(keys, b)
		}
		return keys, true
	}
	if _, ok := jsonString(raw); ok {
		return nil, true
	}
	return nil, false
}

// tbArgument is an argument as evaluate.py tests it for "<node-": an
// object's first value, a list of strings joined by spaces, a string as
// it is. Anything else cannot hold a reference.
func tbArgument(raw json.RawMessage) (string, bool) {
	if first, ok := firstValue(raw); ok {
		raw = first
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil && list != nil {
		parts := make([]string, 0, len(list))
		for _, e := range list {
			s, ok := jsonString(e)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), true
	}
	return jsonString(raw)
}

// jsonString decodes a JSON string; null, a missing value or any other
// kind is not one.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '"' || json.Unmarshal(t, &s) != nil {
		return "", false
	}
	return s, true
}

// firstValue returns the first value of a JSON object, in written order.
func firstValue(raw json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	if _, err := dec.Token(); err != nil { // the key
		return nil, false
	}
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// pyInt is Python's int(s) for a decimal string: surrounding whitespace,
// a sign, and single underscores between digits allowed.
func pyInt(s string) (int, bool) {
	s = strings.TrimFunc(s, unicode.IsSpace)
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || strings.HasPrefix(digits, "_") || strings.HasSuffix(digits, "_") || strings.Contains(digits, "__") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
	return n, err == nil
}

// TBGold is a Chorus plan (a gold, or the plan after repair) as TaskBench
// sees it: its tasks as nodes, a link for each dependency.
func TBGold(tasks []pipeline.Task) TBPlan {
	g := GraphOf(tasks)
	p := TBPlan{Nodes: slices.Clone(g.Nodes)}
	for _, e := range g.Edges {
		l := [2]string{g.Nodes[e[0]], g.Nodes[e[1]]}
		if !slices.Contains(p.Links, l) {
			p.Links = append(p.Links, l)
		}
	}
	return p
}
