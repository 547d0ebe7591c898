package turnview

import (
	"fmt"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
)

// ExecLines is the live execution log: per task its status, elapsed time,
// progress (with a countdown while a model loads), a short result, the
// files it made as links, and its errors in full.
func ExecLines(pc RenderContext) []string {
	st, t := pc.Styles, pc.Turn
	if t == nil {
		return []string{st.Dim.Render("Nothing has run yet.")}
	}
	var out []string
	for _, ts := range t.Tasks {
		if ts.Status == TaskPending && len(ts.Log) == 0 {
			continue
		}
		el := ts.Elapsed
		if ts.Status == TaskRunning {
			el = pc.Now.Sub(ts.Started)
		}
		head := pc.glyph(ts.Status) + " " + st.Bold.Render(fmt.Sprintf("#%d %s", ts.Task.ID, ts.Task.Task)) + " " + st.Dim.Render(HumanDuration(el))
		if ts.Model != "" {
			head += st.Dim.Render(" " + ts.Model)
		}
		out = append(out, head)
		for _, l := range ts.Log {
			style := st.Dim.Render
			if l.Err {
				style = st.Fail.Render
			}
			out = append(out, wrapIndent(l.Text, pc.Width, "   ", style)...)
		}
		if ts.Status == TaskRunning && !ts.WaitUntil.IsZero() {
			left := ts.WaitUntil.Sub(pc.Now).Round(time.Second)
			if left > 0 {
				out = append(out, "   "+st.Warn.Render(fmt.Sprintf("model loading — %s left", left)))
			} else {
				out = append(out, "   "+st.Warn.Render("model loading — retrying now"))
			}
		}
		if ts.Status == TaskDone && ts.Result != "" {
			out = append(out, "   "+st.OK.Render("→ ")+chat.Clip(ts.Result, 200))
		}
		if n := len(ts.Attempts); n > 1 {
			for _, a := range ts.Attempts[:n-1] {
				if a.Error != "" {
					out = append(out, wrapIndent("tried "+a.Model+" on "+pipeline.Where(a.Endpoint, a.Provider)+": "+a.Error, pc.Width, "   ", st.Warn.Render)...)
				}
			}
		}
		for _, f := range ts.Files {
			out = append(out, chat.FileLine(pc.Styles, "made", f, pc.Width, pc.Links))
		}
	}
	for _, e := range t.Errors {
		if e.Fatal && t.Canceled {
			continue
		}
		out = append(out, wrapIndent(fmt.Sprintf("%s: %s", e.Stage, e.Message), pc.Width, "", st.Fail.Render)...)
	}
	if len(out) == 0 {
		switch {
		case t.Done:
			out = append(out, st.Dim.Render("No expert model ran this turn."))
		case t.Stage == pipeline.StageResponse:
			out = append(out, st.Run.Render(spinnerAt(pc.Now))+" writing the answer…")
		default:
			out = append(out, st.Dim.Render("Waiting for the plan…"))
		}
	} else if !t.Done && t.Stage == pipeline.StageResponse {
		out = append(out, st.Run.Render(spinnerAt(pc.Now))+" writing the answer…")
	}
	return fit(out, pc.Width)
}
