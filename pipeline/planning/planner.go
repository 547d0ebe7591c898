package planning

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Planner plans one turn: HuggingGPT's first stage, and the revision
// after tasks failed for good (LLMCompiler's replanning), which is a plan
// asked again. It is given what a plan may use — the request and what came
// with it, the files the turn gives, the standing constraints, what the
// turn may read — and the turn's transcript, which the planning call
// starts and every later call continues. Every plan it returns is
// validated (Validate): what cannot run is repaired or dropped, with a
// note saying so.
type Planner struct {
	Catalog    *skills.Catalog
	Controller *controller.Controller
	// Script is the turn's controller conversation; Emit where its events
	// go.
	Script *flow.Transcript
	Emit   flow.Emit
	// Scope is what the turn may read: a plan naming a path outside it
	// drops its task. Reader is how a skill's models read their
	// arguments' paths (a tool's folders); nil, as Chorus's own experts do.
	Scope  *scope.Scope
	Reader func(*skills.Skill) scope.Reader
	// MaxTasks caps a plan; ResultBudget bounds, in bytes, the results a
	// revision is shown.
	MaxTasks     int
	ResultBudget int
	// Request, Input, Attachments, History and Constraints are the turn's
	// (pipeline.Turn): what the user wrote and passed, the files attached
	// (and named), the chat log, the standing constraints.
	Request     string
	Input       string
	Attachments []string
	History     []flow.Message
	Constraints flow.Constraints
}

// Schema returns the JSON schema the planning reply must follow. Task
// names are an enum so a grammar-constrained model cannot invent one.
// Every token the controller decodes is time the user waits for (20 ms on
// a GPU, 50–60 ms on a laptop CPU), so the schema asks for nothing that
// carries nothing: no property is required but a task's name, and what is
// left out has a meaning the parser and validator give it.
//
//   - "constraints" may be left out (a plan whose first key is "tasks" has
//     none) but, when present, comes before "tasks", so a model under the
//     schema says what limits the models before it writes a task and each
//     task can start the moment its object closes (streaming dispatch).
//     Both are optional so that llama.cpp's grammar, which writes required
//     properties before optional ones, keeps this order; {} is a plan with
//     no task (chat).
//   - A task has no "id": tasks are numbered 1, 2, … in the order written
//     (parseTask), which is what the ids said.
//   - "dep" is left out when it would only repeat the tasks its
//     <resource>-N arguments name (the validator adds those); when
//     present it is not empty and names tasks from 1, so neither [] nor
//     HuggingGPT's [-1] can be spelled.
//   - "args" may be left out, and an image, audio or video argument that
//     is the turn's only file of its kind is filled in by the validator.
//
// Whitespace between tokens cannot be ruled out through a schema (the
// grammar's "space" rule allows it); the head's examples are written
// without any, and models copy them.
func Schema(cat *skills.Catalog) json.RawMessage {
	argProps := map[string]any{}
	for _, s := range cat.All() {
		for _, a := range s.Args {
			argProps[a.Name] = map[string]any{"type": "string"}
		}
	}
	taskProps := flow.Object{
		{Key: "task", Value: map[string]any{"type": "string", "enum": cat.Names()}},
		{Key: "dep", Value: map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"type": "integer", "minimum": 1}}},
		{Key: "args", Value: map[string]any{"type": "object", "properties": argProps, "additionalProperties": false}},
	}
	props := flow.Object{
		{Key: "constraints", Value: map[string]any{
			"type": "object",
			"properties": flow.Object{
				{Key: "licenses", Value: map[string]any{"type": "array", "items": map[string]any{"type": "string"}}},
				{Key: "max_size", Value: map[string]any{"type": "string"}},
				{Key: "local_only", Value: map[string]any{"type": "boolean"}},
				{Key: "prefer", Value: map[string]any{"type": "string", "enum": []string{flow.PreferSmallest, flow.PreferBest}}},
				{Key: "benchmark", Value: map[string]any{"type": "string"}},
			},
			"additionalProperties": false,
		}},
		{Key: "tasks", Value: map[string]any{
			"type":     "array",
			"minItems": 1,
			"items":    flow.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: taskProps}, {Key: "required", Value: []string{"task"}}, {Key: "additionalProperties", Value: false}},
		}},
	}
	b, _ := json.Marshal(flow.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: props}, {Key: "additionalProperties", Value: false}})
	return b
}

// Message is the planning stage's message: the attachments, then the
// request. A vision controller also gets the turn's images.
func (p *Planner) Message(ctx context.Context) controller.Message {
	var b strings.Builder
	if len(p.Attachments) > 0 {
		b.WriteString("Attached files:\n")
		for _, a := range p.Attachments {
			if st, err := os.Stat(a); err == nil && st.IsDir() {
				fmt.Fprintf(&b, "- %s (folder; a tool that takes a path may list it and read the files in it)\n", a)
				continue
			}
			m := flow.ModalityOf(a)
			if m == "" {
				m = "file"
			}
			note := ""
			if m == skills.Text {
				note = "; pass its path as a text argument and the task gets its contents"
			}
			fmt.Fprintf(&b, "- %s (%s%s)\n", a, m, note)
		}
	}
	b.WriteString("Request: " + p.Request)
	b.WriteString(flow.PassedInput(p.Input))
	msg := flow.StageMessage(flow.MarkPlan, b.String())
	if p.Controller.CanSee(ctx) {
		msg.Images = p.images()
	}
	return msg
}

// images are the images the controller should see this turn: the
// attachments, then the chat log's newest images, at most four — of the
// files the turn may read: a session's other files are neither opened
// (not even to tell what they hold) nor given a place.
func (p *Planner) images() [][]byte {
	var paths []string
	add := func(f string) {
		if len(paths) < 4 && !slices.Contains(paths, f) && p.Scope.Allowed(f) && flow.ModalityOf(f) == skills.Image {
			paths = append(paths, f)
		}
	}
	for _, a := range p.Attachments {
		add(a)
	}
	for i := len(p.History) - 1; i >= 0; i-- {
		for _, r := range p.History[i].Resources {
			add(r)
		}
	}
	return flow.ReadImages(p.Scope, paths)
}

// Plan runs the planning stage: one controller call, a second one if the
// reply was cut off or did not parse, then validation. A reply that still
// cannot be used becomes an empty plan — plain chat — with a note saying why.
// stream, when set, reads the first reply while it streams, so its tasks
// can start before it ends (the engine's dispatcher settles them with the plan
// returned here); trace, when set, keeps every reply (PlanOnly).
func (p *Planner) Plan(ctx context.Context, trace *Trace, stream *Stream) (flow.Plan, error) {
	script, emit := p.Script, p.Emit
	if trace == nil {
		trace = &Trace{}
	}
	var tail []controller.Message
	tail = append(tail, p.Message(ctx))
	schema := Schema(p.Catalog)
	var lastProblem string
	for attempt := 0; attempt < 2; attempt++ {
		msgs := flow.Fit(script.With(tail...), p.Controller.Options().PromptBytes())
		// What was sent is what later calls continue after.
		tail = msgs[len(msgs)-len(tail):]
		emit(flow.DebugEvent{Stage: flow.StagePlanning, Kind: "prompt", Content: flow.DebugPrompt(tail[len(tail)-1])})
		start := time.Now()
		call := controller.ChatCall{Messages: msgs, Format: schema, NumPredict: p.Controller.Options().PlanTokens}
		if stream != nil && attempt == 0 {
			call.OnToken = stream.Write
		}
		reply, err := flow.Call(ctx, p.Controller, call)
		if err != nil {
			return flow.Plan{}, err
		}
		script.Record(flow.StagePlanning, reply, time.Since(start), emit)
		emit(flow.DebugEvent{Stage: flow.StagePlanning, Kind: "reply", Content: reply.Content})
		raw, perr := parsePlan(reply.Content)
		trace.reply(reply, raw, perr)
		switch {
		case reply.Truncated() && (perr != nil || attempt == 0 && len(raw.Tasks) == 0):
			lastProblem = fmt.Sprintf("the plan was cut off at the %d-token limit (controller.plan_tokens)", p.Controller.Options().PlanTokens)
			tail = append(tail, controller.Message{Role: "assistant", Content: reply.Content},
				flow.StageMessage(flow.MarkPlan, "Your plan was cut off by the length limit. Reply again with a much shorter plan: fewer tasks, short argument values, JSON only."))
			continue
		case perr != nil:
			lastProblem = "the plan could not be read: " + perr.Error()
			tail = append(tail, controller.Message{Role: "assistant", Content: reply.Content},
				flow.StageMessage(flow.MarkPlan, "That reply is not a valid plan ("+perr.Error()+"). Reply with the JSON object only, in the format described."))
			continue
		}
		// Later stages continue after the plan: the server still holds it.
		script.Add(append(tail, controller.Message{Role: "assistant", Content: reply.Content})...)
		plan := p.Validate(raw.Tasks, raw.Constraints, raw.Notes)
		trace.accepted(raw)
		if len(raw.Tasks) > 0 && len(plan.Tasks) == 0 {
			plan.Notes = append(plan.Notes, "no task of the plan could run, so the controller answers directly")
		}
		return plan, nil
	}
	msg := lastProblem + " (after one re-ask); answering without expert models"
	emit(flow.ErrorEvent{Stage: flow.StagePlanning, Message: msg})
	// The failed exchange stays out of the conversation: the answer
	// should not be written after two broken plans.
	return flow.Plan{Tasks: []flow.Task{}, Constraints: p.Constraints, Notes: []string{msg}}, nil
}
