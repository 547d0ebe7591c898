package turnview

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/chat"
)

// ExecLines is the live execution log: per task its status, elapsed time,
// progress (with a countdown while a model loads), one line per failed hop
// of a fallback, a short result, the files it made as links, and its errors.
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
		clock := st.Dim.Render(HumanDuration(el))
		if ts.waiting() {
			clock = st.Warn.Render(waitingForYou)
		}
		head := pc.taskGlyph(ts) + " " + st.Bold.Render(fmt.Sprintf("#%d %s", ts.Task.ID, ts.Task.Task)) + " " + clock
		if ts.Status == TaskCancelled {
			head += " " + st.Skipped.Render("cancelled")
		}
		if ts.Model != "" {
			head += st.Dim.Render(" " + ts.Model)
		}
		out = append(out, head)
		for i, l := range ts.Log {
			if ts.Status == TaskCancelled && l.Text == "cancelled" && i == len(ts.Log)-1 {
				continue // the head says it
			}
			style := st.Dim.Render
			switch {
			case l.Err:
				style = st.Fail.Render
			case l.Warn:
				style = st.Warn.Render
			}
			if l.Warn {
				out = append(out, "   "+style(fitHop(l.Text, pc.Width-3)))
				continue
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
			out = append(out, "   "+st.OK.Render("→ ")+chat.Clip(text.ShowRefs(ts.Result), 200))
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

// fitHop keeps a failed hop's line (pipeline.HopLine, "X: why → Y") to one
// line of width w: the reason gives way, the models on either side stay.
func fitHop(line string, w int) string {
	if ansi.StringWidth(line) <= w {
		return line
	}
	i := strings.LastIndex(line, " → ")
	if i < 0 {
		return chat.Clip(line, w)
	}
	head, tail := line[:i], line[i:]
	if room := w - ansi.StringWidth(tail); room >= 12 {
		return chat.Clip(head, room) + tail
	}
	return chat.Clip(line, w)
}
