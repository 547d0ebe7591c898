package selection

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

var idField = regexp.MustCompile(`"(?:model|id)"\s*:\s*"([^"]+)"`)

// maxSelectArg bounds, in characters, an argument quoted in the selection
// prompt: the controller needs to know what a task is about, not to read
// a whole document again.
const maxSelectArg = 160

// maxReason bounds, in characters, the reason the controller gives for a
// choice — about ten tokens. The reasons decode after every pick, while the
// tasks run, but the answer waits for the whole reply on a one-slot server.
const maxReason = 40

// Ask lets the controller choose for every pending task in one call,
// after the plan in the same conversation. Candidates are numbered per task
// and the reply names them by number — a digit instead of a model id keeps
// the reply, which every waiting task pays for in decode time, short. The
// reply gives every pick first and the reasons after them
// ({"picks":{…},"reasons":{…}}), and it is read while it streams: each
// task is handed to publish the moment its pick is decoded, so all of
// them start after a few tokens each and run while the reasons decode;
// each reason then arrives as a model_reason event. A task it names no
// candidate for keeps the top-ranked model, and its reason says so;
// publish is called once for every task of ask. script is the turn's
// transcript, or a branch of it (an early pick on a second slot, pipeline/earlypick.go).
func (sel *Selector) Ask(ctx context.Context, ask []*flow.Choice, script *flow.Transcript, request string, emit flow.Emit, publish func(*flow.Choice)) {
	msg, schema := sel.selectionMessage(request, ask)
	emit(flow.DebugEvent{Stage: flow.StageSelection, Kind: "prompt", Content: msg.Content})
	published := make([]bool, len(ask))
	index := func(id int) int { return slices.IndexFunc(ask, func(c *flow.Choice) bool { return c.Task.ID == id }) }
	stream := pickStream{
		onPick: func(id, pick int) {
			i := index(id)
			if i < 0 || published[i] || !sel.applyPick(ask[i], choicePick{ID: id, Pick: pick}) {
				return // the end of the reply decides for it
			}
			published[i] = true
			publish(ask[i])
		},
		onReason: func(id int, reason string) {
			if i := index(id); i >= 0 && published[i] && ask[i].Decided == "controller choice" {
				if r := text.OneLine(reason, 2*maxReason); r != "" {
					ask[i].Reason = r
					emit(flow.ModelReasonEvent{ID: id, Reason: ask[i].Why()})
				}
			}
		},
	}
	start := time.Now()
	reply, err := flow.Call(ctx, sel.Controller, controller.ChatCall{Messages: script.With(msg), Format: schema, NumPredict: 24 + 24*len(ask), OnToken: stream.write})
	// Whatever happens below, every task waiting for its choice gets one.
	defer func() {
		for i, c := range ask {
			if !published[i] {
				publish(c)
			}
		}
	}()
	if err != nil {
		for i, c := range ask {
			if !published[i] {
				fallbackPick(c, "the controller could not choose ("+err.Error()+")")
			}
		}
		return
	}
	// Picks whose reason the reply never gave (cut off) still say who chose.
	defer func() {
		for _, c := range ask {
			if c.Decided == "controller choice" && c.Reason == "" {
				c.Reason = "chosen by the controller"
			}
		}
	}()
	script.Record(flow.StageSelection, reply, time.Since(start), emit)
	script.Add(msg, controller.Message{Role: "assistant", Content: reply.Content})
	emit(flow.DebugEvent{Stage: flow.StageSelection, Kind: "reply", Content: reply.Content})
	sel.applyReply(ask, published, reply.Content)
}

// fallbackPick gives c its top-ranked candidate, saying why the
// controller's choice was not used.
func fallbackPick(c *flow.Choice, why string) {
	top := c.Ranked[0].Model.ID
	c.Decided, c.Reason = "fallback: top-ranked", fmt.Sprintf("%s; using the top-ranked candidate, %s", why, top)
}

// selectionMessage is the selection call's message for the tasks of ask —
// each task's candidates, numbered — and the schema its reply keeps to.
func (sel *Selector) selectionMessage(request string, ask []*flow.Choice) (controller.Message, []byte) {
	var b strings.Builder
	pickProps, reasonProps := flow.Object{}, flow.Object{}
	for _, c := range ask {
		args := make([]string, 0, len(c.Task.Args))
		for _, k := range slices.Sorted(maps.Keys(c.Task.Args)) {
			args = append(args, k+"="+text.OneLine(c.Task.Args[k], maxSelectArg))
		}
		fmt.Fprintf(&b, "Task %d %s (%s):\n", c.Task.ID, c.Task.Task, strings.Join(args, ", "))
		shown := c.Ranked[:min(len(c.Ranked), sel.NumCandidates)]
		numbers := make([]int, len(shown))
		for n, cd := range shown {
			numbers[n] = n + 1
			info := cd.Info()
			facts := []string{info.Endpoint}
			if info.Downloads > 0 {
				facts = append(facts, skills.HumanCount(info.Downloads)+" downloads")
			}
			if info.License != "" {
				facts = append(facts, info.License)
			}
			if info.Size != "" {
				facts = append(facts, info.Size)
			}
			fmt.Fprintf(&b, "%d. %s (%s): %s\n", n+1, info.ID, strings.Join(facts, ", "), text.OneLine(info.Description, 120))
		}
		id := strconv.Itoa(c.Task.ID)
		// Each task's own numbers: a pick out of its range cannot decode.
		pickProps = append(pickProps, flow.Field{Key: id, Value: map[string]any{"type": "integer", "enum": numbers}})
		reasonProps = append(reasonProps, flow.Field{Key: id, Value: map[string]any{"type": "string", "maxLength": maxReason}})
	}
	msg := flow.StageMessage(flow.MarkSelect, "Request: "+text.OneLine(request, 600)+"\n"+b.String()+
		`Reply {"picks":{"task id":candidate number},"reasons":{"task id":"why, in a few words"}}.`)
	props := flow.Object{
		{Key: "picks", Value: flow.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: pickProps}, {Key: "required", Value: pickProps.Keys()}, {Key: "additionalProperties", Value: false}}},
		{Key: "reasons", Value: flow.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: reasonProps}, {Key: "required", Value: reasonProps.Keys()}, {Key: "additionalProperties", Value: false}}},
	}
	schema, _ := json.Marshal(flow.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: props}, {Key: "required", Value: props.Keys()}})
	return msg, schema
}

// applyReply makes the picks of the selection reply content the choices
// of the tasks of ask not yet published; a task it names no candidate for
// keeps its top-ranked one, saying why.
func (sel *Selector) applyReply(ask []*flow.Choice, published []bool, content string) {
	got := parseChoices(content)
	for n, c := range ask {
		if published[n] {
			continue
		}
		pick, ok := got[c.Task.ID]
		switch {
		case !ok && len(ask) == 1 && len(got) == 0:
			// A reply cut off inside its reason still names the model.
			if m := idField.FindStringSubmatch(content); m != nil {
				pick, ok = choicePick{Model: m[1]}, true
			}
		case !ok && len(ask) == 1 && len(got) == 1:
			for _, p := range got { // one task asked, one answer under another id
				pick, ok = p, true
			}
		}
		switch {
		case !ok || pick.Pick <= 0 && strings.TrimSpace(pick.Model) == "":
			fallbackPick(c, "the controller's reply named no model for it")
		case !sel.applyPick(c, pick):
			what := pick.Model
			if pick.Pick > 0 {
				what = fmt.Sprintf("candidate %d of %d", pick.Pick, min(len(c.Ranked), sel.NumCandidates))
			}
			fallbackPick(c, fmt.Sprintf("the controller chose %q, which is not a candidate", text.Clip(what, 80)))
		}
	}
}

// applyPick makes the controller's pick c's choice and reports whether it
// named one of the candidates the controller was shown.
func (sel *Selector) applyPick(c *flow.Choice, pick choicePick) bool {
	shown := c.Ranked[:min(len(c.Ranked), sel.NumCandidates)]
	i := -1
	switch {
	case pick.Pick > 0:
		i = pick.Pick - 1
	case strings.TrimSpace(pick.Model) != "":
		i = slices.IndexFunc(shown, func(cd *flow.Option) bool { return strings.EqualFold(cd.Model.ID, strings.TrimSpace(pick.Model)) })
	}
	if i < 0 || i >= len(shown) {
		return false
	}
	// A pick read while the reply streams has no reason yet: it follows
	// in a model_reason event, or the end of the reply supplies one.
	choose(c, shown[i].Model.ID, text.OneLine(pick.Reason, 2*maxReason), "controller choice")
	return true
}

func isNumber(s string) bool {
	_, err := strconv.Atoi(strings.TrimSpace(s))
	return err == nil
}

// choicePick is one entry of a selection reply: a task id and the
// candidate's number (Pick, from 1) or, from a model that ignored the
// numbering, its id (Model).
type choicePick struct {
	ID     int
	Pick   int
	Model  string
	Reason string
}

// parseChoices reads a selection reply leniently: {"choices":[…]}, a bare
// list, or a single choice object; a task id written as a string; and the
// one-task form {"id": "model", "reason": …} that models trained on
// HuggingGPT's prompt write (for which the id is -1: whichever task asked).
func parseChoices(reply string) map[int]choicePick {
	out := map[int]choicePick{}
	v, err := flow.ExtractJSON(reply)
	if err != nil {
		return out
	}
	var list []any
	switch x := v.(type) {
	case map[string]any:
		if picks, ok := x["picks"].(map[string]any); ok {
			// The schema's form: every pick, then every reason, by task id.
			reasons, _ := x["reasons"].(map[string]any)
			for k, p := range picks {
				obj := map[string]any{"id": k, "pick": p, "reason": reasons[k]}
				if s, ok := p.(string); ok && strings.TrimSpace(s) != "" && !isNumber(s) {
					obj = map[string]any{"id": k, "model": s, "reason": reasons[k]}
				}
				list = append(list, obj)
			}
		} else if l, ok := x["choices"].([]any); ok {
			list = l
		} else {
			list = []any{x}
		}
	case []any:
		list = x
	}
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			continue
		}
		p := choicePick{ID: -1}
		p.Model, _ = obj["model"].(string)
		p.Reason, _ = obj["reason"].(string)
		switch n := obj["pick"].(type) {
		case float64:
			p.Pick = int(n)
		case string:
			p.Pick, _ = strconv.Atoi(strings.TrimSpace(n))
		}
		switch id := obj["id"].(type) {
		case float64:
			p.ID = int(id)
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(id)); err == nil {
				p.ID = n
			} else if p.Model == "" {
				p.Model = id
			}
		}
		if p.Model == "" && p.Pick <= 0 {
			continue
		}
		if _, seen := out[p.ID]; !seen {
			out[p.ID] = p
		}
	}
	return out
}
