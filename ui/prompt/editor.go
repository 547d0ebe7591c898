package prompt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Composed comes back from the external editor with the prompt's new
// text; Err says why there is none (the text is then the old one).
type Composed struct {
	Text string
	Err  error
}

// Compose edits text in the external editor (editor is the command line:
// $VISUAL, $EDITOR or vi, with its arguments) on the terminal Bubble Tea
// releases meanwhile, for prompts too long to write in six rows. The file
// ends in .md, so editors highlight the Markdown.
func Compose(editor []string, text string) tea.Cmd {
	c := &composer{editor: editor, text: text}
	return tea.Exec(c, func(err error) tea.Msg {
		if err != nil {
			return Composed{Text: text, Err: err}
		}
		return Composed{Text: c.text}
	})
}

// composer is the tea.ExecCommand behind Compose: writing the temporary
// file, running the editor and reading the file back are I/O, so they run
// here, outside Update.
type composer struct {
	editor         []string
	text           string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (c *composer) SetStdin(r io.Reader)  { c.stdin = r }
func (c *composer) SetStdout(w io.Writer) { c.stdout = w }
func (c *composer) SetStderr(w io.Writer) { c.stderr = w }

func (c *composer) Run() error {
	if len(c.editor) == 0 {
		return errors.New("no editor — set $EDITOR")
	}
	bin, err := exec.LookPath(c.editor[0])
	if err != nil {
		return fmt.Errorf("editor %q not found — set $EDITOR", c.editor[0])
	}
	f, err := os.CreateTemp("", "chorus-prompt-*.md")
	if err != nil {
		return fmt.Errorf("cannot write the prompt for the editor: %w", err)
	}
	name := f.Name()
	defer os.Remove(name)
	_, werr := f.WriteString(c.text)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("cannot write the prompt for the editor: %w", err)
	}
	cmd := exec.Command(bin, append(c.editor[1:], name)...) //nolint:noctx // the user's editor runs until the user leaves it
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the editor failed: %w", err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("cannot read the prompt back: %w", err)
	}
	// Editors end files with a newline the user did not mean to send.
	c.text = strings.TrimRight(string(b), "\n")
	return nil
}
