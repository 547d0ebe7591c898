package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/eval"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// planForm is how a plan reply is written: which of the tokens that carry
// nothing it still spells out. The zero value is the plan schema's
// shortest form (pipeline.Engine.PlanJSON); all true is the form the
// schema required before issue 29.
type planForm struct {
	constraints bool // "constraints":{} even when there are none
	ids         bool // "id":N on every task
	deps        bool // "dep":[…] on every task, [] and the deps <resource>-N states included
	mediaArgs   bool // an image/audio/video argument that is the turn's only file of its kind
}

// write writes a gold plan (ids from 1, in order) in form f.
func (f planForm) write(cat *skills.Catalog, tasks []map[string]any, cons map[string]any, turn pipeline.Turn) string {
	var b strings.Builder
	b.WriteByte('{')
	if f.constraints || len(cons) > 0 {
		c, _ := json.Marshal(orderedConstraints(cons))
		b.WriteString(`"constraints":` + string(c))
	}
	if len(tasks) > 0 || f.constraints {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"tasks":[`)
		for i, t := range tasks {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"task":%q`, t["task"])
			if f.ids {
				fmt.Fprintf(&b, `,"id":%d`, t["id"])
			}
			args := t["args"].(map[string]string)
			var refs []int
			for _, v := range args {
				refs = append(refs, pipeline.Refs(v)...)
			}
			dep := t["dep"].([]int)
			if !f.deps {
				dep = slices.DeleteFunc(slices.Clone(dep), func(d int) bool { return slices.Contains(refs, d) })
			}
			if f.deps || len(dep) > 0 {
				d, _ := json.Marshal(append([]int{}, dep...))
				b.WriteString(`,"dep":` + string(d))
			}
			kept := map[string]string{}
			s, _ := cat.Skill(t["task"].(string))
			for k, v := range args {
				a, _ := s.Arg(k)
				if !f.mediaArgs && a.Type.Media() && onlyFileOfKind(turn, a.Type, v) {
					continue
				}
				kept[k] = v
			}
			if f.ids || len(kept) > 0 {
				b.WriteString(`,"args":` + rawJSON(kept))
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

func rawJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// orderedConstraints is a constraints object in the schema's key order.
func orderedConstraints(c map[string]any) json.RawMessage {
	var parts []string
	for _, k := range []string{"licenses", "max_size", "local_only", "prefer", "benchmark"} {
		if v, ok := c[k]; ok {
			b, _ := json.Marshal(v)
			parts = append(parts, fmt.Sprintf("%q:%s", k, b))
		}
	}
	return json.RawMessage("{" + strings.Join(parts, ",") + "}")
}

// onlyFileOfKind: p is the turn's one file of modality m, attached or in
// the chat log — what the validator fills in for a left-out argument.
func onlyFileOfKind(t pipeline.Turn, m skills.Modality, p string) bool {
	all := slices.Clone(t.Attachments)
	for _, h := range t.History {
		all = append(all, h.Resources...)
	}
	var of []string
	for _, f := range all {
		if pipeline.ModalityOf(f) == m && !slices.Contains(of, f) {
			of = append(of, f)
		}
	}
	return len(of) == 1 && of[0] == p
}

// tokens counts a reply's decoded tokens as the fake Ollama does: four
// bytes each. The real Ollama serving internal/tinygguf's model, whose
// vocabulary is one token per byte, decodes len(s).
func tokens(s string) int { return (len(s) + 3) / 4 }

// TestEmbeddedSuitePlanTokens writes every request's gold plan of the
// embedded suite as the schema required before issue 29 and in the
// schema's shortest form, one lever at a time, and counts the tokens the
// controller decodes for each: the shortest form is shorter for every
// request, equals Engine.PlanJSON, and a controller that answers with it
// scores as perfectly as the gold (valid as written, no repair, every
// argument right). The figures (go test ./eval -run PlanTokens -v) are
// docs/speed.md's.
func TestEmbeddedSuitePlanTokens(t *testing.T) {
	suite, err := eval.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	levers := []struct {
		name string
		form planForm
	}{
		{"before: constraints, ids, deps, every argument", planForm{true, true, true, true}},
		{"constraints only when there are some", planForm{false, true, true, true}},
		{"no ids: the order numbers the tasks", planForm{false, false, true, true}},
		{"no empty dep, none <resource>-N states", planForm{false, false, false, true}},
		{"after: no argument the turn fills in", planForm{}},
	}
	counts := make([][2]int, len(levers)) // tokens, bytes
	byRequest := map[string]string{}
	var eng *pipeline.Engine
	eng, _ = engine(t, func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		for k, plan := range byRequest {
			if strings.HasSuffix(last, k) {
				return fakeollama.Reply{Content: plan}
			}
		}
		return fakeollama.Reply{Content: `{}`}
	})
	for _, c := range suite.Cases {
		turn, err := c.Turn(dir)
		if err != nil {
			t.Fatal(err)
		}
		tasks := oraclePlan(t, cat, dir, c.Gold, turn.Attachments)
		var cons map[string]any
		if c.Constraints != "" {
			cons = replyConstraints(t, c.Constraints)
		}
		var plan pipeline.Plan
		for _, task := range tasks {
			plan.Tasks = append(plan.Tasks, pipeline.Task{ID: task["id"].(int), Task: task["task"].(string), Dep: task["dep"].([]int), Args: task["args"].(map[string]string)})
		}
		plan.Constraints, _ = pipeline.ParseConstraints(c.Constraints)
		var prev string
		for i, l := range levers {
			s := l.form.write(cat, tasks, cons, turn)
			if err := fakeollama.Validate(eng.PlanSchema(), []byte(s)); err != nil && i == len(levers)-1 {
				t.Errorf("%s: %s does not satisfy the plan schema: %v", c.ID, s, err)
			}
			counts[i][0] += tokens(s)
			counts[i][1] += len(s)
			prev = s
		}
		if want := eng.PlanJSON(plan, turn); prev != want {
			t.Errorf("%s: shortest form\n%s\nis not PlanJSON's\n%s", c.ID, prev, want)
		}
		before := levers[0].form.write(cat, tasks, cons, turn)
		if tokens(prev) >= tokens(before) {
			t.Errorf("%s: %d tokens after, %d before", c.ID, tokens(prev), tokens(before))
		}
		byRequest["Request: "+turn.Request] = prev
		if out := os.Getenv("CHORUS_PLAN_FORMS"); out != "" {
			appendLine(t, out+".before", before)
			appendLine(t, out+".after", prev)
		}
	}
	rs, err := eval.Run(context.Background(), eng, "ctl", suite, eval.Options{Dir: dir, Tools: cat.Names()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !r.ValidAsWritten || !r.Score.FoT || r.Arguments.Hits != r.Arguments.Of || len(r.Notes) > 0 {
			t.Errorf("%s in the shortest form: valid as written %v, FoT %v, arguments %v, notes %q", r.Case, r.ValidAsWritten, r.Score.FoT, r.Arguments, r.Notes)
		}
	}
	n := len(suite.Cases)
	t.Logf("%d requests; decoded plan tokens per request (fake: 4 bytes a token; tiny model: 1 byte a token)", n)
	for i, l := range levers {
		t.Logf("%-48s %6.1f tokens  %6.1f bytes", l.name, float64(counts[i][0])/float64(n), float64(counts[i][1])/float64(n))
	}
}

func appendLine(t *testing.T, path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
