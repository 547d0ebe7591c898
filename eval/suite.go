package eval

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline"
)

// Case is one request of a suite with its gold plan.
type Case struct {
	// ID names the case in results ("chain-03", a TaskBench id, or the
	// line number of a JSONL suite).
	ID      string `json:"id"`
	Request string `json:"request"`
	// Files are the input files the request needs, by name. Inputs
	// generates each into a directory at run time; "{name}" in Request
	// becomes the file's full path, and every file is attached.
	Files []string `json:"files,omitempty"`
	// Attachments are existing files to attach as they are (a JSONL
	// suite of the user's own).
	Attachments []string `json:"attachments,omitempty"`
	// Gold is the plan a good controller writes: task names and deps
	// (ids and arguments are free; only the graph is compared).
	Gold []pipeline.Task `json:"gold"`
	// History are the earlier turns of the conversation the request
	// continues, oldest first: "the picture from before" refers to a file
	// of one of them.
	History []Exchange `json:"history,omitempty"`
	// Alternatives are other plans that are as right as Gold (a request
	// two tools answer equally well): a run is scored against the one it
	// matches best.
	Alternatives [][]pipeline.Task `json:"alternatives,omitempty"`
	// Shape is the gold's form (single, chain, graph); derived from the
	// gold when the suite does not say.
	Shape string `json:"shape,omitempty"`
	// Input is the modality of the request's input: text, image, audio,
	// video (informational, for the suite's own balance).
	Input string `json:"input,omitempty"`
	// Constraints are the limits the request puts on model selection, in
	// the /constrain syntax ("license=apache-2.0 smallest"): what the
	// plan's "constraints" must say (ConstraintsRight). Empty: the
	// request sets none, and a plan should not either.
	Constraints string `json:"constraints,omitempty"`
	// Fail names the skills whose experts fail in a failure case
	// (RunFailures): every model of them answers as a model no provider
	// serves. Serves lists the sets of skills that serve the request —
	// the turn served it when every skill of one set has a task that
	// succeeded. Planning runs ignore both.
	Fail   []string   `json:"fail,omitempty"`
	Serves [][]string `json:"serves,omitempty"`

	// tbGold is the gold as TaskBench's evaluate.py reads it, for a case
	// from TaskBench's data.json (nil: derived from Gold); tbDropped says
	// evaluate.py could not read it and skips the sample.
	tbGold    *TBPlan
	tbDropped bool
}

// Exchange is one earlier turn of a case's conversation: what the user
// asked (with the files they attached, "{name}" placeholders like a
// case's) and what Chorus answered (with the files it generated). Every
// file is generated like a case's input.
type Exchange struct {
	Request string   `json:"request"`
	Files   []string `json:"files,omitempty"`
	Answer  string   `json:"answer"`
	Outputs []string `json:"outputs,omitempty"`
}

// goldConstraints reads the case's Constraints.
func (c Case) goldConstraints() (pipeline.Constraints, error) {
	cons, err := pipeline.ParseConstraints(c.Constraints)
	if err != nil {
		return cons, fmt.Errorf("case %s: constraints %q: %w", c.ID, c.Constraints, err)
	}
	return cons, nil
}

// golds lists the gold plan and its alternatives.
func (c Case) golds() [][]pipeline.Task {
	out := [][]pipeline.Task{c.Gold}
	return append(out, c.Alternatives...)
}

// TaskBenchGold is the case's gold as TaskBench scores it; ok is false
// when TaskBench's evaluate.py would skip the sample (its task_nodes do
// not read).
func (c Case) TaskBenchGold() (TBPlan, bool) {
	if c.tbDropped {
		return TBPlan{}, false
	}
	if c.tbGold != nil {
		return *c.tbGold, true
	}
	return TBGold(c.Gold), true
}

// Suite is a named list of cases.
type Suite struct {
	Name  string `json:"name"`
	Cases []Case `json:"cases"`
	// Warnings say what a loader could not take over faithfully (a
	// TaskBench tool with no Chorus skill, a line that did not parse).
	Warnings []string `json:"-"`
}

//go:embed suites/*.json
var suites embed.FS

// Builtin returns the embedded Chorus suite: requests written for Chorus's
// task names across single, chain and graph plans and text, image, audio
// and video inputs.
func Builtin() (*Suite, error) {
	b, err := suites.ReadFile("suites/chorus.json")
	if err != nil {
		return nil, err
	}
	return parseSuite("chorus", b)
}

// Load reads a suite file, its format sniffed from the content: a JSON
// object with "cases" (the Chorus suite format), TaskBench's data.json
// (JSON lines with "user_request" and "task_nodes"), or JSON lines of
// {"request", "gold_tasks"}. Task names are passed through resolve (the
// catalog's names and aliases; nil keeps them as written).
func Load(path string, resolve func(string) (string, bool)) (*Suite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the suite: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the suite %s is empty — give a JSON suite or JSON lines of {\"request\", \"gold_tasks\"}", path)
	}
	var s *Suite
	if trimmed[0] == '{' && json.Valid(trimmed) && bytes.Contains(trimmed, []byte(`"cases"`)) {
		s, err = parseSuite(name, trimmed)
	} else {
		s, err = parseLines(name, trimmed, resolve)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

func parseSuite(name string, b []byte) (*Suite, error) {
	var s Suite
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("not a suite (a JSON object with \"cases\"): %w", err)
	}
	if s.Name == "" {
		s.Name = name
	}
	return finish(&s)
}

// finish checks every case and fills what can be derived.
func finish(s *Suite) (*Suite, error) {
	if len(s.Cases) == 0 {
		if len(s.Warnings) > 0 {
			// Every line was skipped: why is the useful part, and the
			// warnings are printed only for a suite that loads.
			return nil, fmt.Errorf("the suite has no cases (%s) — give a JSON suite with \"cases\", TaskBench's data.json, or JSON lines of {\"request\", \"gold_tasks\"}", s.Warnings[0])
		}
		return nil, errors.New("the suite has no cases")
	}
	for i := range s.Cases {
		c := &s.Cases[i]
		if c.ID == "" {
			c.ID = fmt.Sprintf("%d", i+1)
		}
		if strings.TrimSpace(c.Request) == "" {
			return nil, fmt.Errorf("case %s has no request", c.ID)
		}
		if c.Shape == "" {
			c.Shape = GraphOf(c.Gold).Shape()
		}
		if _, err := c.goldConstraints(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// jsonLine is one line of a JSONL suite, TaskBench's or the plain one.
type jsonLine struct {
	ID          any             `json:"id"`
	Request     string          `json:"request"`
	GoldTasks   []pipeline.Task `json:"gold_tasks"`
	Attachments []string        `json:"attachments"`
	Constraints string          `json:"constraints"`

	// TaskBench's data.json.
	UserRequest string          `json:"user_request"`
	Type        string          `json:"type"`
	TaskNodes   json.RawMessage `json:"task_nodes"`
}

// maxLine bounds one line of a JSONL suite.
const maxLine = 4 << 20

func parseLines(name string, b []byte, resolve func(string) (string, bool)) (*Suite, error) {
	s := &Suite{Name: name}
	unknown := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l jsonLine
		if err := json.Unmarshal(line, &l); err != nil {
			if n == 1 {
				return nil, fmt.Errorf("line 1 is not JSON (%w) — give a JSON suite with \"cases\", TaskBench's data.json, or JSON lines of {\"request\", \"gold_tasks\"}", err)
			}
			s.Warnings = append(s.Warnings, fmt.Sprintf("line %d skipped: %v", n, err))
			continue
		}
		var c Case
		switch {
		case l.UserRequest != "" && l.TaskNodes != nil:
			c = taskBenchCase(l, resolve, unknown)
			if c.tbDropped {
				s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: TaskBench's evaluate.py cannot read its task_nodes and skips it; its TaskBench metrics leave it out too", n))
			}
		case l.Request != "":
			c = Case{Request: l.Request, Gold: l.GoldTasks, Attachments: l.Attachments, Constraints: l.Constraints}
			c.Request, c.Files = fileRefs(c.Request)
			for i := range c.Gold {
				c.Gold[i].Task = resolveName(c.Gold[i].Task, resolve, unknown)
			}
		default:
			s.Warnings = append(s.Warnings, fmt.Sprintf("line %d skipped: neither {\"request\", \"gold_tasks\"} nor TaskBench's {\"user_request\", \"task_nodes\"}", n))
			continue
		}
		c.ID = idString(l.ID, n)
		s.Cases = append(s.Cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for u := range unknown {
		s.Warnings = append(s.Warnings, fmt.Sprintf("gold task %q is no Chorus skill: a plan cannot match it", u))
	}
	return finish(s)
}

func idString(v any, line int) string {
	switch x := v.(type) {
	case string:
		if x != "" {
			return x
		}
	case float64:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("line %d", line)
}

// taskBenchCase reads one sample of TaskBench's data.json (resource
// dependencies, as data_huggingface and data_multimedia have them): nodes
// are task_nodes in order, and an edge joins node j to each node with a
// "<node-j>" argument — exactly the links evaluate.py scores. (task_links
// name tools, not nodes, so they cannot say which of two nodes of one
// tool a link leaves from; they are not read.) Its requests refer to
// files such as 'example.jpg' that do not exist: they are generated like
// a Chorus suite's files.
func taskBenchCase(l jsonLine, resolve func(string) (string, bool), unknown map[string]bool) Case {
	c := Case{Request: l.UserRequest}
	name := func(n string) string { return resolveName(n, resolve, unknown) }
	names, links, ok := tbNodes(l.TaskNodes, false)
	if !ok {
		// evaluate.py skips the sample; Chorus's own metrics still take
		// what can be read.
		c.tbDropped = true
		names, links, _ = tbNodes(l.TaskNodes, true)
	} else {
		tb, _ := TBNodes(l.TaskNodes, false, name)
		c.tbGold = &tb
	}
	for i, n := range names {
		c.Gold = append(c.Gold, pipeline.Task{ID: i + 1, Task: name(strings.ReplaceAll(n, "_", " ")), Dep: []int{}})
	}
	for _, e := range links {
		from, to := e[0]+1, &c.Gold[e[1]]
		if !slices.Contains(to.Dep, from) {
			to.Dep = append(to.Dep, from)
		}
	}
	switch l.Type {
	case "node", "single":
		c.Shape = ShapeSingle
	case "chain":
		c.Shape = ShapeChain
	case "dag":
		c.Shape = ShapeGraph
	}
	c.Request, c.Files = fileRefs(c.Request)
	return c
}

// resolveName maps a task name onto Chorus's: as the catalog resolves it,
// else TaskBench's spelling ("Image Classification", "Image-to-Text")
// lower-cased with spaces as hyphens, resolved again. A name that does
// not resolve is kept and remembered in unknown.
func resolveName(name string, resolve func(string) (string, bool), unknown map[string]bool) string {
	if resolve == nil {
		return name
	}
	if r, ok := resolve(name); ok {
		return r
	}
	norm := taskBenchSpelling(name)
	if r, ok := resolve(norm); ok {
		return r
	}
	unknown[name] = true
	return norm
}

// taskBenchSpelling writes a TaskBench tool name the way Chorus names
// tasks: "Image Classification" → image-classification.
func taskBenchSpelling(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(name, "_", " ")), "-"))
}
