package execution

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
)

// Reports turns runs into the turn's execution record. An argument
// is kept to the result cap as a result is: it holds what another task
// returned, or a file's contents, which the record has elsewhere.
func Reports(runs []*flow.TaskRun, limit int) []flow.TaskReport {
	out := make([]flow.TaskReport, 0, len(runs))
	for _, r := range runs {
		tr := flow.TaskReport{TaskEndEvent: r.EndEvent(), Dep: slices.Clone(r.Task.Dep), Args: r.Args}
		if tr.Args == nil {
			tr.Args = r.Task.Args
		}
		tr.Args = cappedArgs(tr.Args, limit)
		if r.Choice != nil {
			tr.Decided, tr.Reason, tr.Unmet = r.Choice.Decided, r.Choice.Why(), r.Choice.Unmet
		}
		if r.Promised {
			tr.Early, tr.Correction = r.Fixed, r.Correction
		}
		out = append(out, tr)
	}
	return out
}

// cappedArgs is args with each value kept to limit bytes; args itself
// (shared with the run) when none is longer.
func cappedArgs(args map[string]string, limit int) map[string]string {
	var out map[string]string
	for k, v := range args {
		if len(v) <= limit {
			continue
		}
		if out == nil {
			out = maps.Clone(args)
		}
		out[k] = flow.Budgeted(v, limit)
	}
	if out == nil {
		return args
	}
	return out
}

// Files are the files runs made, in order: the report's.
func Files(runs []*flow.TaskRun) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Files...)
	}
	return out
}

// compactData keeps structured results small enough for events, reports and
// prompts: long strings inside them (base64 masks, embedded images) are
// replaced by a note of their size. The full data was already used to
// annotate and write files.
func compactData(d json.RawMessage) json.RawMessage {
	const limit = 16 << 10
	if len(d) == 0 {
		return nil
	}
	if !json.Valid(d) {
		// Events and reports are JSON: one invalid RawMessage would make
		// the whole task_end and report events unencodable.
		b, _ := json.Marshal(flow.Budgeted(strings.ToValidUTF8(string(d), "\uFFFD"), 4<<10))
		return b
	}
	if len(d) <= limit {
		return d
	}
	var v any
	if err := json.Unmarshal(d, &v); err != nil {
		return nil
	}
	var shrink func(any) any
	shrink = func(x any) any {
		switch t := x.(type) {
		case string:
			if len(t) > 512 {
				return fmt.Sprintf("(%d bytes omitted)", len(t))
			}
		case []any:
			for i := range t {
				t[i] = shrink(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = shrink(t[k])
			}
		}
		return x
	}
	b, err := json.Marshal(shrink(v))
	if err != nil || len(b) > 4*limit {
		return nil
	}
	return b
}
