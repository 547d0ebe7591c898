package planning

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/chorusai/chorus/pipeline/flow"
)

// JSON writes plan as the planning schema asks the controller to write
// it for the planner's turn: the shortest reply that reads back — parsePlan, then
// validation in the turn — as the same plan. Tasks are numbered by their place
// (no ids); a dependency that a <resource>-N argument already states is
// not repeated, nor an empty one; an image, audio or video argument that
// is the turn's only file of its kind is left out (validation fills it
// in); constraints only when there are any, before the tasks; {} for a
// plan with no task. Keys follow the schema's order, the order a
// grammar-constrained model writes them in, with no whitespace.
//
// The head's examples are written in this form, and it is what the
// decoded-token counts of docs/speed.md measure: every byte of it is a
// token or a part of one the controller decodes before a task can start.
func (p *Planner) JSON(plan flow.Plan) string {
	pos := make(map[int]int, len(plan.Tasks))
	for i, task := range plan.Tasks {
		pos[task.ID] = i + 1
	}
	var b bytes.Buffer
	b.WriteByte('{')
	if !plan.Constraints.IsZero() {
		b.WriteString(`"constraints":`)
		b.Write(constraintsJSON(plan.Constraints))
	}
	if len(plan.Tasks) > 0 {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"tasks":[`)
		for i, task := range plan.Tasks {
			if i > 0 {
				b.WriteByte(',')
			}
			p.taskJSON(&b, task, pos)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.String()
}

// taskJSON writes one task of PlanJSON, its ids renumbered by pos.
func (p *Planner) taskJSON(b *bytes.Buffer, task flow.Task, pos map[int]int) {
	s, _ := p.Catalog.Skill(task.Task)
	args := map[string]string{}
	var refs []int
	for k, v := range task.Args {
		refs = append(refs, flow.Refs(v)...)
		if s != nil {
			if a, ok := s.Arg(k); ok && a.Type.Media() && len(flow.Refs(v)) == 0 && slices.Equal(p.resources(a.Type), []string{v}) {
				continue // the validator fills it in
			}
		}
		args[k] = flow.ReplaceRefs(v, func(_ string, n int, _ bool) string { return flow.RefString(pos[n]) })
	}
	var dep []int
	for _, d := range task.Dep {
		if !slices.Contains(refs, d) {
			dep = append(dep, pos[d])
		}
	}
	slices.Sort(dep)
	name := rawJSON(task.Task)
	b.WriteString(`{"task":`)
	b.Write(name)
	if len(dep) > 0 {
		b.WriteString(`,"dep":[`)
		for i, d := range dep {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(d))
		}
		b.WriteByte(']')
	}
	if len(args) > 0 {
		// encoding/json writes a map's keys sorted, as the schema lists
		// the argument names.
		a := rawJSON(args)
		b.WriteString(`,"args":`)
		b.Write(a)
	}
	b.WriteByte('}')
}

// constraintsJSON writes c as the schema's constraints object, its keys in
// the schema's order, without the ones it does not set.
func constraintsJSON(c flow.Constraints) []byte {
	o := flow.Object{}
	if len(c.Licenses) > 0 {
		o = append(o, flow.Field{Key: "licenses", Value: c.Licenses})
	}
	if !c.MaxSize.IsZero() {
		o = append(o, flow.Field{Key: "max_size", Value: c.MaxSize.String()})
	}
	if c.LocalOnly {
		o = append(o, flow.Field{Key: "local_only", Value: true})
	}
	if c.Prefer != "" {
		o = append(o, flow.Field{Key: "prefer", Value: c.Prefer})
	}
	if c.Benchmark != "" {
		o = append(o, flow.Field{Key: "benchmark", Value: c.Benchmark})
	}
	return rawJSON(o)
}

// rawJSON encodes v as a model writes it: "<resource>-1" as it is, not
// with its angle brackets escaped (\u003c), which json.Marshal does for
// HTML and would cost a model five more tokens.
func rawJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
