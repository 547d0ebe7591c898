package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// planSystem is HuggingGPT's task-planning instruction, extended with the
// constraint extraction HIVE adds and the visual prompts LLaVA-Plus uses.
const planSystem = `#1 Task Planning Stage
You are the planner of Chorus, an assistant that solves requests by running expert models.
Parse the user's request into a JSON object {"tasks": [...], "constraints": {...}}.
Each task is {"task": task_name, "id": task_id, "dep": [ids of prerequisite tasks], "args": {...}}.
- "task" MUST be one of the available tasks listed below. There may be several tasks of the same type.
- "id" is a unique integer starting at 1.
- "args" uses only the argument names the task lists. Text arguments hold text; image, audio and video
  arguments hold a file path from the request or the chat log, or "<resource>-N" for the file or text
  produced by task N. Points are "x,y" and boxes "x1,y1,x2,y2" in image pixels.
- "<resource>-N" may only refer to a task N that produces that kind of output, and N MUST be in "dep".
- "dep" lists the ids of the tasks whose outputs this task uses; [] when it uses none.
- Use as few tasks as possible while fully solving the request; mind the order and the dependencies.
- If the request needs no expert model (greetings, chit-chat, questions you can answer from knowledge or the
  chat log alone), reply {"tasks": []}.
- "constraints" records the user's limits on which models may be used, only when the request states them:
  "licenses" (allowed licence ids such as "apache-2.0", "mit"), "max_size" (e.g. "1GB" or "500M" parameters),
  "local_only" (true to keep everything on this machine), "prefer" ("smallest", or "best" with "benchmark"
  naming the dataset and metric, e.g. "common_voice wer"). Leave it empty otherwise.
Reply with the JSON object only.

Available tasks (name: what it does; args; output):
%s`

// planDemos are worked examples, in the chat format the controller sees.
var planDemos = []struct{ user, plan string }{
	{
		user: "Look at /home/ann/photos/e1.jpg. What does it show, and can you read the caption aloud?",
		plan: `{"tasks": [{"task": "image-to-text", "id": 1, "dep": [], "args": {"image": "/home/ann/photos/e1.jpg"}}, {"task": "text-to-speech", "id": 2, "dep": [1], "args": {"text": "<resource>-1"}}], "constraints": {}}`,
	},
	{
		user: "Generate a picture of a red fox in the snow, then tell me how many foxes the picture contains and write an Instagram post about it.",
		plan: `{"tasks": [{"task": "text-to-image", "id": 1, "dep": [], "args": {"text": "a red fox in the snow"}}, {"task": "object-detection", "id": 2, "dep": [1], "args": {"image": "<resource>-1"}}, {"task": "image-to-text", "id": 3, "dep": [1], "args": {"image": "<resource>-1"}}, {"task": "social-media-post", "id": 4, "dep": [3], "args": {"text": "<resource>-3"}}], "constraints": {}}`,
	},
	{
		user: "Transcribe /tmp/meeting.wav, using only Apache-2.0 models, and the best one on Common Voice WER.",
		plan: `{"tasks": [{"task": "automatic-speech-recognition", "id": 1, "dep": [], "args": {"audio": "/tmp/meeting.wav"}}], "constraints": {"licenses": ["apache-2.0"], "prefer": "best", "benchmark": "common_voice wer"}}`,
	},
	{
		user: "Hi! What can you do?",
		plan: `{"tasks": [], "constraints": {}}`,
	},
}

// planSchema returns the JSON schema the planning reply must follow. Task
// names are an enum so a grammar-constrained model cannot invent one.
func planSchema(cat *skills.Catalog) json.RawMessage {
	argProps := map[string]any{}
	for _, s := range cat.All() {
		for _, a := range s.Args {
			argProps[a.Name] = map[string]any{"type": "string"}
		}
	}
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"tasks": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"task": map[string]any{"type": "string", "enum": cat.Names()},
						"id":   map[string]any{"type": "integer"},
						"dep":  map[string]any{"type": "array", "items": map[string]any{"type": "integer"}},
						"args": map[string]any{"type": "object", "properties": argProps, "additionalProperties": false},
					},
					"required": []string{"task", "id", "dep", "args"},
				},
			},
			"constraints": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"licenses":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"max_size":   map[string]any{"type": "string"},
					"local_only": map[string]any{"type": "boolean"},
					"prefer":     map[string]any{"type": "string", "enum": []string{"", PreferSmallest, PreferBest}},
					"benchmark":  map[string]any{"type": "string"},
				},
			},
		},
		"required": []string{"tasks"},
	}
	b, _ := json.Marshal(schema)
	return b
}

// skillList renders the catalog for the planning prompt.
func skillList(cat *skills.Catalog) string {
	var b strings.Builder
	for _, s := range cat.All() {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			opt := ""
			if a.Optional {
				opt = "?"
			}
			args[i] = fmt.Sprintf("%s%s:%s", a.Name, opt, a.Type)
		}
		desc := briefDescription(s.Description)
		fmt.Fprintf(&b, "- %s: %s args {%s}; output %s\n", s.Name, desc, strings.Join(args, ", "), joinModalities(s.Outputs))
	}
	return b.String()
}

// briefDescription keeps the first two sentences of a skill description,
// at most 240 bytes: the planning prompt lists every skill and must leave
// room in the context for the chat log and the plan.
func briefDescription(d string) string {
	d = strings.Join(strings.Fields(d), " ")
	end := 0
	for n := 0; n < 2; n++ {
		i := strings.Index(d[end:], ". ")
		if i < 0 {
			end = len(d)
			break
		}
		end += i + 1
	}
	out := strings.TrimSpace(d[:end])
	if len(out) > 240 {
		cut := 240
		for cut > 0 && out[cut]&0xC0 == 0x80 {
			cut--
		}
		out = strings.TrimSpace(out[:cut]) + "…"
	}
	return out
}

// chatLog renders earlier turns for the planner so "the image above"
// resolves to a path. Only the most recent turns fit.
func chatLog(history []Message, budget int) string {
	var parts []string
	used := 0
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		line := fmt.Sprintf("%s: %s", m.Role, text.OneLine(m.Content, 600))
		if len(m.Resources) > 0 {
			line += " [files: " + strings.Join(m.Resources, ", ") + "]"
		}
		if used+len(line) > budget && len(parts) > 0 {
			break
		}
		used += len(line)
		parts = append(parts, line)
	}
	slices.Reverse(parts)
	return strings.Join(parts, "\n")
}

// planMessages builds the planning conversation.
func (e *Engine) planMessages(ctx context.Context, t Turn) []controller.Message {
	msgs := []controller.Message{{Role: "system", Content: fmt.Sprintf(planSystem, skillList(e.cat))}}
	for _, d := range planDemos {
		msgs = append(msgs, controller.Message{Role: "user", Content: d.user}, controller.Message{Role: "assistant", Content: d.plan})
	}
	var b strings.Builder
	if log := chatLog(t.History, 4000); log != "" {
		fmt.Fprintf(&b, "The chat log below may contain the resources I mention:\n%s\n\n", log)
	}
	if len(t.Attachments) > 0 {
		b.WriteString("Attached files:\n")
		for _, a := range t.Attachments {
			m := ModalityOf(a)
			if m == "" {
				m = "file"
			}
			note := ""
			if m == skills.Text {
				note = "; pass its path as a text argument and the task gets its contents"
			}
			fmt.Fprintf(&b, "- %s (%s%s)\n", a, m, note)
		}
		b.WriteString("\n")
	}
	b.WriteString("Request: " + t.Request)
	user := controller.Message{Role: "user", Content: b.String()}
	if e.ctl.CanSee(ctx) {
		user.Images = turnImages(t)
	}
	return append(msgs, user)
}

// turnImages are the images the controller should see this turn: the
// attachments, then the chat log's newest images, at most four.
func turnImages(t Turn) [][]byte {
	var paths []string
	add := func(p string) {
		if ModalityOf(p) == skills.Image && !slices.Contains(paths, p) && len(paths) < 4 {
			paths = append(paths, p)
		}
	}
	for _, a := range t.Attachments {
		add(a)
	}
	for i := len(t.History) - 1; i >= 0; i-- {
		for _, r := range t.History[i].Resources {
			add(r)
		}
	}
	return readImages(paths)
}

// maxControllerImage bounds an image file shown to a vision controller.
const maxControllerImage = 20 << 20

func readImages(paths []string) [][]byte {
	var out [][]byte
	for _, p := range paths {
		// Stat first: a huge file must not be read only to be skipped, and
		// a FIFO must not be opened at all.
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || st.Size() == 0 || st.Size() > maxControllerImage {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 || len(b) > maxControllerImage {
			continue
		}
		out = append(out, b)
	}
	return out
}

// plan runs the planning stage: one controller call, a second one if the
// reply was cut off or did not parse, then validation. A reply that still
// cannot be used becomes an empty plan — plain chat — with a note saying why.
func (e *Engine) plan(ctx context.Context, t Turn, emit Emit) (Plan, error) {
	msgs := e.planMessages(ctx, t)
	schema := planSchema(e.cat)
	var lastProblem string
	for attempt := 0; attempt < 2; attempt++ {
		emit(DebugEvent{Stage: StagePlanning, Kind: "prompt", Content: msgs[len(msgs)-1].Content})
		reply, err := e.ctl.Chat(ctx, controller.ChatCall{Messages: msgs, Format: schema, NumPredict: e.ctl.Options().PlanTokens})
		if err != nil {
			return Plan{}, err
		}
		emit(DebugEvent{Stage: StagePlanning, Kind: "reply", Content: reply.Content})
		raw, perr := parsePlan(reply.Content)
		switch {
		case reply.Truncated() && (perr != nil || attempt == 0 && len(raw.Tasks) == 0):
			lastProblem = fmt.Sprintf("the plan was cut off at the %d-token limit (controller.plan_tokens)", e.ctl.Options().PlanTokens)
			msgs = append(msgs, controller.Message{Role: "assistant", Content: reply.Content},
				controller.Message{Role: "user", Content: "Your plan was cut off by the length limit. Reply again with a much shorter plan: fewer tasks, short argument values, JSON only."})
			continue
		case perr != nil:
			lastProblem = "the plan could not be read: " + perr.Error()
			msgs = append(msgs, controller.Message{Role: "assistant", Content: reply.Content},
				controller.Message{Role: "user", Content: "That reply is not a valid plan (" + perr.Error() + "). Reply with the JSON object only, in the format described."})
			continue
		}
		p := e.validate(raw.Tasks, raw.Constraints, t, raw.Notes)
		if len(raw.Tasks) > 0 && len(p.Tasks) == 0 {
			p.Notes = append(p.Notes, "no task of the plan could run, so the controller answers directly")
		}
		return p, nil
	}
	msg := lastProblem + " (after one re-ask); answering without expert models"
	emit(ErrorEvent{Stage: StagePlanning, Message: msg})
	return Plan{Tasks: []Task{}, Constraints: t.Constraints, Notes: []string{msg}}, nil
}
