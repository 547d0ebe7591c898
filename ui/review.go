package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

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
	case k.String() == "r" || m.keys.Matches(k, theme.ActDialogConfirm):
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
	case k.String() == "c" || m.keys.Matches(k, theme.ActCloseDialog):
		d.answer(pipeline.Plan{}, turnview.ErrPlanRejected)
		m.dialog = nil
	}
	return nil
}

// updateEditor edits the plan JSON inline: ctrl+d applies, esc goes back.
func (d *reviewDialog) updateEditor(m *Model, msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case m.keys.Matches(k, theme.ActCloseDialog):
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
	var errLines []string
	if d.err != "" {
		// The parser's message says where the JSON breaks: wrap it, up to
		// three lines, rather than cut it at the box's edge.
		for _, l := range chat.WrapPlain(d.err, max(w, 10)) {
			if len(errLines) == 3 {
				errLines[2] = ansi.Truncate(errLines[2], max(w-1, 1), "") + "…"
				break
			}
			errLines = append(errLines, l)
		}
		for i, l := range errLines {
			errLines[i] = st.Fail.Render(l)
		}
	}
	if d.editor != nil {
		// Fit the editor to the box now, so a resize while editing keeps
		// the cursor line in view.
		d.editor.SetWidth(max(w, 10))
		d.editor.SetHeight(max(1, h-len(errLines)))
		lines := append(strings.Split(d.editor.View(), "\n"), errLines...)
		return "Edit the plan (JSON)", lines, "ctrl+d runs the edited plan (validated again) · esc back"
	}
	pc := turnview.RenderContext{Styles: &st, Width: w, Now: m.now()}
	t := turnview.NewTurn(0, "", nil, "", time.Time{})
	pe := pipeline.PlanEvent{Tasks: d.req.plan.Tasks, Constraints: d.req.plan.Constraints, Notes: d.req.plan.Notes}
	t.Apply(pe, m.now())
	pc.Turn = t
	lines := turnview.PlanLines(pc)
	if len(errLines) > 0 {
		errLines = append([]string{""}, errLines...)
	}
	if room := max(1, h-len(errLines)); len(lines) > room {
		lines = append(lines[:room-1], st.Dim.Render("… (e shows it all)"))
	}
	lines = append(lines, errLines...)
	return fmt.Sprintf("Run this plan? (%s)", chat.Count(len(d.req.plan.Tasks), "task")), lines,
		"r/enter run · e edit in $EDITOR · i edit inline · c/esc cancel the turn"
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

// editorDone comes back from $EDITOR with the edited text.
type editorDone struct {
	d    *reviewDialog
	text string
	err  error
}

// planEditor is the tea.ExecCommand that edits the plan in $EDITOR: it
// writes the JSON to a temporary file, runs the editor on the terminal
// Bubble Tea released, and reads the file back. All of that is I/O, so it
// happens here, outside Update.
type planEditor struct {
	editor         []string
	json           string
	text           string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (e *planEditor) SetStdin(r io.Reader)  { e.stdin = r }
func (e *planEditor) SetStdout(w io.Writer) { e.stdout = w }
func (e *planEditor) SetStderr(w io.Writer) { e.stderr = w }

func (e *planEditor) Run() error {
	bin, err := exec.LookPath(e.editor[0])
	if err != nil {
		return fmt.Errorf("editor %q not found — set $EDITOR, or press i to edit inline", e.editor[0])
	}
	f, err := os.CreateTemp("", "chorus-plan-*.json")
	if err != nil {
		return fmt.Errorf("cannot write the plan for the editor: %w", err)
	}
	name := f.Name()
	defer os.Remove(name)
	_, werr := f.WriteString(e.json + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("cannot write the plan for the editor: %w", err)
	}
	c := exec.Command(bin, append(e.editor[1:], name)...)
	c.Stdin, c.Stdout, c.Stderr = e.stdin, e.stdout, e.stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("the editor failed: %w", err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("cannot read the edited plan: %w", err)
	}
	e.text = string(b)
	return nil
}

// openEditor opens $VISUAL or $EDITOR (vi if neither is set) on the plan,
// suspending the TUI meanwhile.
func (d *reviewDialog) openEditor(m *Model) tea.Cmd {
	ed := m.opts.Getenv("VISUAL")
	if ed == "" {
		ed = m.opts.Getenv("EDITOR")
	}
	if ed == "" {
		ed = "vi"
	}
	pe := &planEditor{editor: strings.Fields(ed), json: planJSON(d.req.plan)}
	return tea.Exec(pe, func(err error) tea.Msg { return editorDone{d: d, text: pe.text, err: err} })
}

// onEditorDone runs the edited plan, or reopens the review with the error.
func (m *Model) onEditorDone(msg editorDone) tea.Cmd {
	d := msg.d
	if d.answered {
		return nil // the turn ended (cancelled) while the editor was open
	}
	if msg.err != nil {
		d.err = msg.err.Error()
		m.dialog = d
		return nil
	}
	plan, err := parsePlanJSON(msg.text)
	if err != nil {
		d.err = err.Error()
		m.dialog = d
		return nil
	}
	d.answer(plan, nil)
	if m.dialog == d {
		m.dialog = nil
	}
	m.flashWhile("running the edited plan (validated again)", turnActivity)
	return nil
}
