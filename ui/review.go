package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
)

// errPlanRejected cancels a turn whose plan the user turned down.
var errPlanRejected = errors.New("the plan was cancelled in review")

// reviewDialog shows a validated plan before anything runs and waits for
// run, edit (in $EDITOR or inline) or cancel. The pipeline goroutine waits
// on the request's reply channel; every way out answers it exactly once.
type reviewDialog struct {
	req      reviewRequest
	answered bool
	err      string // why the last edit was refused
	editor   *textarea.Model
}

func newReviewDialog(req reviewRequest) *reviewDialog { return &reviewDialog{req: req} }

func (d *reviewDialog) answer(plan pipeline.Plan, err error) {
	if d.answered {
		return
	}
	d.answered = true
	d.req.reply <- reviewReply{plan: plan, err: err} // buffered: never blocks
}

func (d *reviewDialog) update(m *Model, msg tea.Msg) tea.Cmd {
	if d.editor != nil {
		return d.updateEditor(m, msg)
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case k.String() == "r" || m.keys.Matches(k, ActDialogConfirm):
		d.answer(d.req.plan, nil)
		m.dialog = nil
	case k.String() == "e":
		return d.openEditor(m)
	case k.String() == "i":
		ta := textarea.New()
		ta.ShowLineNumbers = true
		ta.SetWidth(min(m.width-10, 90))
		ta.SetHeight(max(5, m.height-m.fixedHeight()-12))
		ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("enter", "ctrl+j"))
		ta.SetValue(planJSON(d.req.plan))
		ta.MoveToBegin()
		ta.Focus()
		d.editor = &ta
	case k.String() == "c" || m.keys.Matches(k, ActCloseDialog):
		d.answer(pipeline.Plan{}, errPlanRejected)
		m.dialog = nil
	}
	return nil
}

// updateEditor edits the plan JSON inline: ctrl+d applies, esc goes back.
func (d *reviewDialog) updateEditor(m *Model, msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case m.keys.Matches(k, ActCloseDialog):
			d.editor = nil
			return nil
		case k.String() == "ctrl+d":
			plan, err := parsePlanJSON(d.editor.Value())
			if err != nil {
				d.err = err.Error()
				return nil
			}
			d.answer(plan, nil)
			m.dialog = nil
			return nil
		}
	}
	var cmd tea.Cmd
	*d.editor, cmd = d.editor.Update(msg)
	return cmd
}

func (d *reviewDialog) view(m *Model, w, h int, _ time.Time) (string, []string, string) {
	st := m.st
	if d.editor != nil {
		lines := strings.Split(d.editor.View(), "\n")
		if d.err != "" {
			lines = append(lines, st.fail.Render(ansiClip(d.err, w)))
		}
		return "Edit the plan (JSON)", lines, "ctrl+d runs the edited plan (validated again) · esc back"
	}
	pc := paneCtx{st: &st, width: w, now: m.now()}
	t := &turnState{byID: map[int]*taskState{}}
	pe := pipeline.PlanEvent{Tasks: d.req.plan.Tasks, Constraints: d.req.plan.Constraints, Notes: d.req.plan.Notes}
	t.apply(pe, m.now())
	pc.turn = t
	lines := planLines(pc)
	if len(lines) > h-2 {
		lines = append(lines[:h-3], st.dim.Render("… (e shows it all)"))
	}
	if d.err != "" {
		lines = append(lines, "", st.fail.Render(ansiClip(d.err, w)))
	}
	return fmt.Sprintf("Run this plan? (%d tasks)", len(d.req.plan.Tasks)), lines,
		"r/enter run · e edit in $EDITOR · i edit inline · c/esc cancel the turn"
}

func ansiClip(s string, w int) string {
	if len([]rune(s)) > w*3 {
		return string([]rune(s)[:w*3]) + "…"
	}
	return s
}

// planJSON is the editable form of a plan.
func planJSON(p pipeline.Plan) string {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "{}"
	}
	return string(b)
}

// parsePlanJSON reads an edited plan; either the plan object or a bare
// task list is accepted.
func parsePlanJSON(s string) (pipeline.Plan, error) {
	s = strings.TrimSpace(s)
	var p pipeline.Plan
	if strings.HasPrefix(s, "[") {
		if err := json.Unmarshal([]byte(s), &p.Tasks); err != nil {
			return p, fmt.Errorf("the edited plan is not valid JSON: %v", err)
		}
		return p, nil
	}
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("the edited plan is not valid JSON: %v", err)
	}
	return p, nil
}

// editorDone comes back from $EDITOR.
type editorDone struct {
	d    *reviewDialog
	file string
	err  error
}

// openEditor writes the plan to a temporary file and opens $VISUAL or
// $EDITOR (vi if neither is set) on it, suspending the TUI meanwhile.
func (d *reviewDialog) openEditor(m *Model) tea.Cmd {
	f, err := os.CreateTemp("", "chorus-plan-*.json")
	if err != nil {
		d.err = "cannot write the plan for the editor: " + err.Error()
		return nil
	}
	_, werr := f.WriteString(planJSON(d.req.plan) + "\n")
	cerr := f.Close()
	if werr != nil || cerr != nil {
		d.err = "cannot write the plan for the editor: " + errors.Join(werr, cerr).Error()
		return nil
	}
	ed := m.opts.Getenv("VISUAL")
	if ed == "" {
		ed = m.opts.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	parts := strings.Fields(ed)
	if _, err := exec.LookPath(parts[0]); err != nil {
		d.err = fmt.Sprintf("editor %q not found — set $EDITOR, or press i to edit inline", parts[0])
		os.Remove(f.Name())
		return nil
	}
	c := exec.Command(parts[0], append(parts[1:], f.Name())...)
	name := f.Name()
	return tea.ExecProcess(c, func(err error) tea.Msg { return editorDone{d: d, file: name, err: err} })
}

// onEditorDone reads the edited plan back.
func (m *Model) onEditorDone(msg editorDone) tea.Cmd {
	defer os.Remove(msg.file)
	d := msg.d
	if d.answered {
		return nil // the turn ended (cancelled) while the editor was open
	}
	if msg.err != nil {
		d.err = "the editor failed: " + msg.err.Error()
		m.dialog = d
		return nil
	}
	b, err := os.ReadFile(msg.file)
	if err != nil {
		d.err = "cannot read the edited plan: " + err.Error()
		m.dialog = d
		return nil
	}
	plan, err := parsePlanJSON(string(b))
	if err != nil {
		d.err = err.Error()
		m.dialog = d
		return nil
	}
	d.answer(plan, nil)
	if m.dialog == d {
		m.dialog = nil
	}
	m.flash("running the edited plan (validated again)", false)
	return nil
}
