package sessions

import (
	"strings"

	"github.com/chorusai/chorus/pipeline"
)

// History returns the session as the planner's chat log, oldest first: for
// each turn a user message carrying the request with its attachments as
// Resources, then an assistant message carrying the answer with the files
// the turn generated as Resources. Turns that ended without an answer say
// why (cancelled, failed, plan only), so the planner does not take an
// unanswered request for an answered one.
func (s *Session) History() []pipeline.Message {
	if s == nil {
		return nil
	}
	out := make([]pipeline.Message, 0, 2*len(s.Turns))
	for _, t := range s.Turns {
		out = append(out, pipeline.Message{Role: "user", Content: t.Request, Input: t.Input, Resources: t.UserFiles()})
		gen := t.Generated()
		content := t.Answer
		if content == "" {
			content = t.outcome()
		}
		if content == "" && len(gen) == 0 {
			continue
		}
		out = append(out, pipeline.Message{Role: "assistant", Content: content, Resources: gen})
	}
	return out
}

// outcome describes a turn that has no answer.
func (t Record) outcome() string {
	switch {
	case t.Cancelled:
		return "(cancelled by the user before an answer)"
	case t.Error != "":
		return "(failed: " + t.Error + ")"
	case len(t.Plan) > 0:
		names := make([]string, len(t.Plan))
		for i, p := range t.Plan {
			names[i] = p.Task
		}
		return "(planned, not run: " + strings.Join(names, ", ") + ")"
	}
	return ""
}
