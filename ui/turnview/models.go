package turnview

import (
	"fmt"
	"strings"

	"github.com/chorusai/chorus/pipeline"
)

// ModelLines shows, per task, the chosen model, the endpoint kind, why it
// was chosen, and the other candidates and exclusions.
func ModelLines(pc RenderContext) []string {
	st, t := pc.Styles, pc.Turn
	if t == nil || t.Plan == nil {
		return []string{st.Dim.Render("No model choices yet.")}
	}
	if len(t.Tasks) == 0 {
		return []string{st.Dim.Render("No tasks, so no expert models.")}
	}
	var out []string
	waiting := true
	for _, ts := range t.Tasks {
		c := ts.Choice
		if c == nil {
			continue
		}
		waiting = false
		name := c.Model
		switch {
		case c.Endpoint == pipeline.EndpointController:
			name = "the controller (" + t.Model + ")"
		case name == "":
			name = st.Fail.Render("no model")
		}
		out = append(out, st.Bold.Render(fmt.Sprintf("#%d %s", c.ID, c.Task))+" → "+st.Accent.Render(name))
		where := pipeline.Where(c.Endpoint, c.Provider)
		if where == "" {
			where = "—"
		}
		out = append(out, "   "+st.Dim.Render(where+" · "+c.Decided))
		if c.Reason != "" {
			out = append(out, wrapIndent(c.Reason, pc.Width, "   ", st.Faint.Render)...)
		}
		var others []string
		for _, cand := range c.Candidates {
			if cand.ID != c.Model {
				others = append(others, cand.ID)
			}
		}
		if len(others) > 0 {
			out = append(out, wrapIndent("also: "+strings.Join(others, ", "), pc.Width, "   ", st.Dim.Render)...)
		}
		for i, ex := range c.Excluded {
			if i == 3 {
				out = append(out, "   "+st.Dim.Render(fmt.Sprintf("+%d more excluded (/models %s)", len(c.Excluded)-3, c.Task)))
				break
			}
			out = append(out, wrapIndent("✗ "+ex.ID+": "+ex.Reason, pc.Width, "   ", st.Dim.Render)...)
		}
	}
	if waiting {
		if t.Done {
			return []string{st.Dim.Render("No model was chosen this turn.")}
		}
		return []string{st.Run.Render(spinnerAt(pc.Now)) + " choosing models…"}
	}
	return fit(out, pc.Width)
}
