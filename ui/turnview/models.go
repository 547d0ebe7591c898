package turnview

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
)

// ModelLines shows every task's choice first, one line each — task →
// model · endpoint · why — so a plan of several tasks fits even a small
// pane; the models selection left out are collapsed to a count. With
// pc.Expanded (the expand key) the details follow: each task's full
// reason, the other candidates, and every excluded model with why.
func ModelLines(pc RenderContext) []string {
	st, t := pc.Styles, pc.Turn
	if t == nil || t.Plan == nil {
		return []string{st.Dim.Render("No model choices yet.")}
	}
	if len(t.Tasks) == 0 {
		return []string{st.Dim.Render("No tasks, so no expert models.")}
	}
	var out []string
	excluded, chosen := 0, 0
	for _, ts := range t.Tasks {
		head := st.Bold.Render(fmt.Sprintf("#%d %s", ts.Task.ID, ts.Task.Task)) + " → "
		c := ts.Choice
		switch {
		case c == nil && t.Done:
			out = append(out, head+st.Dim.Render("—"))
			continue
		case c == nil:
			out = append(out, head+st.Run.Render(spinnerAt(pc.Now))+st.Dim.Render(" choosing…"))
			continue
		}
		chosen++
		excluded += len(c.Excluded)
		// The controller's reason says most; "only candidate" or the
		// constraint that decided says it in fewer words than the reason.
		why := c.Reason
		if why == "" || strings.HasPrefix(c.Decided, "only") || strings.HasPrefix(c.Decided, "constraint") {
			why = c.Decided
		}
		if c.Unmet != "" {
			// Said first, so a narrow pane does not clip it away.
			why = "constraint not applied · " + why
		}
		switch fb := ts.Fallback(); {
		case fb != "":
			// What ran, not what was chosen first; and, on a line of its
			// own so that a long model id does not clip it away, after what.
			out = append(out, pc.choiceLines(head, ts.Model, pipeline.Where(ts.Endpoint, ts.Provider), "")...)
			out = append(out, "   "+st.Warn.Render(chat.Clip(fb, max(pc.Width-3, 1))))
		case c.Endpoint == pipeline.EndpointController:
			out = append(out, head+st.Accent.Render("the controller")+st.Dim.Render(" · "+cmpOr(c.Model, t.Model)+" · "+c.Decided))
		case c.Model == "":
			out = append(out, head+st.Fail.Render("no model")+st.Dim.Render(" · "+oneLine(why)))
		default:
			out = append(out, pc.choiceLines(head, c.Model, pipeline.Where(c.Endpoint, c.Provider), oneLine(why))...)
		}
	}
	if !pc.Expanded {
		if excluded > 0 {
			out = append(out, st.Dim.Render(fmt.Sprintf("%s excluded · %s shows why", chat.Count(excluded, "model"), keyOr(pc.ExpandKey))))
		} else if chosen > 0 {
			out = append(out, st.Dim.Render(keyOr(pc.ExpandKey)+" shows the reasons and candidates"))
		}
		return fit(out, pc.Width)
	}
	for _, ts := range t.Tasks {
		c := ts.Choice
		if c == nil {
			continue
		}
		if ts.Fallback() != "" {
			out = append(out, "", st.Bold.Render(fmt.Sprintf("#%d %s", c.ID, c.Task))+st.Dim.Render(" · fallback"))
			out = append(out, wrapIndent("ran "+ts.Model+" on "+pipeline.Where(ts.Endpoint, ts.Provider)+" after:", pc.Width, "   ", st.Dim.Render)...)
			n := len(ts.Attempts)
			for _, a := range ts.Attempts[:n-1] {
				out = append(out, wrapIndent("✗ "+pipeline.ShortModel(a.Model)+": "+a.Reason(), pc.Width, "   ", st.Warn.Render)...)
			}
			out = append(out, wrapIndent("selected "+c.Model+" ("+c.Decided+")", pc.Width, "   ", st.Dim.Render)...)
		} else {
			out = append(out, "", st.Bold.Render(fmt.Sprintf("#%d %s", c.ID, c.Task))+st.Dim.Render(" · "+c.Decided))
		}
		if c.Reason != "" {
			out = append(out, wrapIndent(c.Reason, pc.Width, "   ", st.Faint.Render)...)
		}
		if c.Unmet != "" {
			out = append(out, wrapIndent("constraint not applied: "+c.Unmet, pc.Width, "   ", st.Warn.Render)...)
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
		for _, ex := range c.Excluded {
			out = append(out, wrapIndent("✗ "+ex.ID+": "+ex.Reason, pc.Width, "   ", st.Dim.Render)...)
		}
	}
	out = append(out, "", st.Dim.Render(keyOr(pc.ExpandKey)+" collapses the details"))
	return fit(out, pc.Width)
}

// choiceLines are a task's chosen model — head, model · where it runs ·
// why — on one line, the reason clipped at the pane's edge. Where it runs
// never clips away: when the line cannot hold it, it leads a second line,
// with the reason; the model id gives way only when it does not fit
// alone, to its name without the owner, clipped.
func (pc RenderContext) choiceLines(head, model, where, why string) []string {
	st := pc.Styles
	w := ansi.StringWidth
	if why != "" {
		why = " · " + why
	}
	if first := head + st.Accent.Render(model) + st.Dim.Render(" · "+where); w(first) <= pc.Width {
		return []string{first + st.Dim.Render(why)} // fit clips the reason
	}
	if w(head)+w(model) > pc.Width {
		model = chat.Clip(pipeline.ShortModel(model), max(pc.Width-w(head), 1))
	}
	return []string{head + st.Accent.Render(model), "   " + st.Dim.Render(chat.Clip(where+why, max(pc.Width-3, 1)))}
}

// oneLine keeps the first line of s: the rest is a key away.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// keyOr names the expand key in hints; tests that do not set one get a
// generic word.
func keyOr(k string) string {
	if k == "" {
		return "the expand key"
	}
	return k
}
