package dialog

import (
	"encoding/json"
	"fmt"
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

// Review shows a validated plan before anything runs and asks: run it
// (Approve), edit it in $EDITOR or inline (then Approve the edit), or
// cancel the turn (Reject). The parent answers the pipeline, which waits.
type Review struct {
	keys theme.KeyMap
	st   *theme.Styles
	now  func() time.Time
	plan pipeline.Plan
	// editorCmd runs the external editor: $VISUAL, $EDITOR or vi, with
	// its arguments.
	editorCmd []string
	err       string // why the last edit was refused
	// unchanged: the editor gave the plan back as it was, and err asks
	// what to do rather than reports a fault.
	unchanged bool
	editor    *textarea.Model
	// w and h are the size of the box at the last View: the inline editor
	// opens at that size.
	w, h int
}

// NewReview returns the review of plan (editor nil: no external editor,
// only the inline one). editor is the external editor's
// command line; now is the clock the plan's tree is drawn with.
func NewReview(keys theme.KeyMap, st *theme.Styles, plan pipeline.Plan, editor []string, now func() time.Time) *Review {
	return &Review{keys: keys, st: st, plan: plan, editorCmd: editor, now: now, w: 10, h: 5}
}

// Update runs (r, enter), edits (e in $EDITOR, i inline) or cancels (c,
// esc); while the inline editor is open, keys go to it.
func (d *Review) Update(msg tea.Msg) (Action, tea.Cmd) {
	if d.editor != nil {
		return d.updateEditor(msg)
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	switch {
	case k.String() == "r" || d.keys.Matches(k, theme.ActDialogConfirm):
		return Approve{Plan: d.plan}, nil
	case k.String() == "e":
		if len(d.editorCmd) == 0 {
			// A chat served over ssh runs no program on the server for
			// its user: an editor is a shell one command away.
			d.err = "no external editor here (the chat runs on another machine) — i edits the plan inline"
			return nil, nil
		}
		return nil, d.openEditor()
	case k.String() == "i":
		ta := textarea.New()
		ta.ShowLineNumbers = true
		ta.SetWidth(d.w)
		ta.SetHeight(d.h)
		ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("enter", "ctrl+j"))
		ta.SetValue(PlanJSON(d.plan))
		ta.MoveToBegin()
		ta.Focus()
		d.editor = &ta
	case k.String() == "c" || d.keys.Matches(k, theme.ActCloseDialog):
		return Reject{}, nil
	}
	return nil, nil
}

// updateEditor edits the plan JSON inline: ctrl+d applies, esc goes back.
func (d *Review) updateEditor(msg tea.Msg) (Action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case d.keys.Matches(k, theme.ActCloseDialog):
			d.editor = nil
			return nil, nil
		case k.String() == "ctrl+d":
			plan, err := parsePlanJSON(d.editor.Value())
			if err != nil {
				d.err = err.Error()
				return nil, nil
			}
			return Approve{Plan: plan}, nil
		}
	}
	var cmd tea.Cmd
	*d.editor, cmd = d.editor.Update(msg)
	return nil, cmd
}

// View shows the plan as the Plan pane draws it, or the inline editor,
// with the reason the last edit was refused.
func (d *Review) View(w, h int) (string, []string, string) {
	st := d.st
	d.w, d.h = max(w, 10), max(1, h)
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
		style := st.Fail.Render
		if d.unchanged {
			style = st.Warn.Render
		}
		for i, l := range errLines {
			errLines[i] = style(l)
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
	pc := turnview.RenderContext{Styles: st, Width: w, Now: d.now()}
	t := turnview.NewTurnState(0, "", nil, "", time.Time{})
	pe := pipeline.PlanEvent{Tasks: d.plan.Tasks, Constraints: d.plan.Constraints, Notes: d.plan.Notes}
	t.Apply(pe, d.now())
	pc.Turn = t
	lines := turnview.PlanLines(pc)
	if len(errLines) > 0 {
		errLines = append([]string{""}, errLines...)
	}
	if room := max(1, h-len(errLines)); len(lines) > room {
		lines = append(lines[:room-1], st.Dim.Render("… (e shows it all)"))
	}
	lines = append(lines, errLines...)
	hint := "r/enter run · e edit in $EDITOR · i edit inline · c/esc cancel the turn"
	if len(d.editorCmd) == 0 {
		hint = "r/enter run · i edit inline · c/esc cancel the turn"
	}
	return fmt.Sprintf("Run this plan? (%s)", chat.Count(len(d.plan.Tasks), "task")), lines, hint
}

// EditorReturned takes what the external editor gave back (EditorDone
// carries it to the parent): the edited plan to run, or — when the editor
// failed or the JSON does not parse — nil, with the reason shown in the
// dialog.
func (d *Review) EditorReturned(msg EditorDone) Action {
	d.unchanged = false
	if msg.Err != nil {
		d.err = msg.Err.Error()
		return nil
	}
	if strings.TrimSpace(msg.Text) == strings.TrimSpace(PlanJSON(d.plan)) {
		// Leaving the editor without a change may mean "never mind" as
		// much as "run it": ask rather than run.
		d.err = "the plan came back unchanged — r runs it as it is, e edits it again, c cancels the turn"
		d.unchanged = true
		return nil
	}
	plan, err := parsePlanJSON(msg.Text)
	if err != nil {
		d.err = err.Error()
		return nil
	}
	return Approve{Plan: plan}
}

// Editing reports whether the inline editor is open.
func (d *Review) Editing() bool { return d.editor != nil }

// EditorText is the inline editor's text ("" when it is closed).
func (d *Review) EditorText() string {
	if d.editor == nil {
		return ""
	}
	return d.editor.Value()
}

// SetEditorText replaces the inline editor's text, as typing would.
func (d *Review) SetEditorText(s string) {
	if d.editor != nil {
		d.editor.SetValue(s)
	}
}

// PlanJSON is the editable form of a plan, as both editors and /plan show
// it. It is for a person: "<resource>-1" stays as written, not escaped to
// "\u003cresource\u003e-1" as encoding/json does for HTML pages.
func PlanJSON(p pipeline.Plan) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return "{}"
	}
	return strings.TrimRight(b.String(), "\n")
}

// parsePlanJSON reads an edited plan; either the plan object or a bare
// task list is accepted.
func parsePlanJSON(s string) (pipeline.Plan, error) {
	s = strings.TrimSpace(s)
	var p pipeline.Plan
	if strings.HasPrefix(s, "[") {
		if err := json.Unmarshal([]byte(s), &p.Tasks); err != nil {
			return p, fmt.Errorf("the edited plan is not valid JSON: %w", err)
		}
		return p, nil
	}
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return p, fmt.Errorf("the edited plan is not valid JSON: %w", err)
	}
	return p, nil
}
