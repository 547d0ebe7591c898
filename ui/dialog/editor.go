package dialog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	tea "charm.land/bubbletea/v2"
)

// EditorDone comes back from the external editor with the edited text. The
// parent hands it to the Review that opened the editor (EditorReturned),
// if that review is still waiting for an answer.
type EditorDone struct {
	Review *Review
	Text   string
	Err    error
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
	c := exec.Command(bin, append(e.editor[1:], name)...) //nolint:noctx // the user's editor runs until the user leaves it
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

// openEditor opens the external editor on the plan, suspending the TUI
// meanwhile.
func (d *Review) openEditor() tea.Cmd {
	pe := &planEditor{editor: d.editorCmd, json: PlanJSON(d.plan)}
	return tea.Exec(pe, func(err error) tea.Msg { return EditorDone{Review: d, Text: pe.text, Err: err} })
}
