package ui

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/media"
)

// termMedia is the mediaPreviewer backed by ui/media: half-block cells in
// the chat, the best graphics protocol the terminal speaks for the full
// view, and the first audio player found on PATH.
type termMedia struct {
	proto  media.Protocol
	getenv func(string) string
}

func newTermMedia(getenv func(string) string) mediaPreviewer {
	return &termMedia{proto: media.Detect(getenv), getenv: getenv}
}

// Thumb renders half-blocks: text cells survive the cell renderer, tmux and
// ssh, unlike graphics escapes. Under NO_COLOR (protocol None) there are no
// previews; the file line names the image instead.
func (t *termMedia) Thumb(path string, cols, rows int) (string, error) {
	if t.proto == media.None {
		return "", nil
	}
	return media.Render(path, media.HalfBlocks, cols, rows)
}

// Full renders for the full-screen viewer, wrapped for tmux passthrough
// when the user enabled graphics inside tmux with CHORUS_IMAGES.
func (t *termMedia) Full(path string, cols, rows int) (string, error) {
	s, err := media.Render(path, t.proto, cols, rows)
	if err != nil {
		return "", err
	}
	return media.Passthrough(s, t.getenv), nil
}

func (t *termMedia) Protocol() string { return t.proto.String() }

func (t *termMedia) Player() (string, bool) {
	name, _, ok := media.Player(exec.LookPath)
	return filepath.Base(name), ok
}

func (t *termMedia) Play(ctx context.Context, path string) error { return media.Play(ctx, path) }

// imageViewer shows one image on the whole terminal while Bubble Tea has
// released it (tea.Exec): graphics sequences go straight to the terminal,
// not through the cell renderer, so kitty, iTerm2 and sixel images draw
// intact. Any key returns to the chat.
type imageViewer struct {
	mp         mediaPreviewer
	path       string
	cols, rows int
	stdin      io.Reader
	stdout     io.Writer
}

func (v *imageViewer) SetStdin(r io.Reader)  { v.stdin = r }
func (v *imageViewer) SetStdout(w io.Writer) { v.stdout = w }
func (v *imageViewer) SetStderr(io.Writer)   {}

func (v *imageViewer) Run() error {
	out := v.stdout
	if out == nil {
		out = os.Stdout
	}
	img, err := v.mp.Full(v.path, v.cols, v.rows-2)
	if err != nil {
		return err
	}
	// Clear the screen, home the cursor, draw, then wait for a key.
	fmt.Fprint(out, "\x1b[2J\x1b[H", img, "\r\n\r\n", v.path, " — press any key to return")
	in := v.stdin
	if in == nil {
		in = os.Stdin
	}
	if f, ok := in.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if st, err := term.MakeRaw(f.Fd()); err == nil {
			defer term.Restore(f.Fd(), st) //nolint:errcheck // best effort on the way out
		}
	}
	buf := make([]byte, 64)
	_, _ = in.Read(buf)
	// Kitty keeps images until deleted; leave no picture behind the chat.
	fmt.Fprint(out, "\x1b_Ga=d\x1b\\\x1b[2J\x1b[H")
	return nil
}

// viewImage returns the command that shows path full size.
func (m *Model) viewImage(path string) tea.Cmd {
	v := &imageViewer{mp: m.media, path: path, cols: m.width, rows: m.height}
	return tea.Exec(v, func(err error) tea.Msg { return viewerDone{err: err} })
}

// viewerDone reports the end of the image viewer.
type viewerDone struct{ err error }

// viewLastImage shows the newest image of the chat full screen.
func (m *Model) viewLastImage() tea.Cmd {
	p := m.chat.LastFile(skills.Image)
	if p == "" {
		m.flash("no image in this chat yet", true)
		return nil
	}
	return m.viewImage(p)
}

// onViewerDone reports an image the viewer could not show.
func (m *Model) onViewerDone(msg viewerDone) tea.Cmd {
	if msg.err != nil {
		m.flash("cannot show the image: "+msg.err.Error(), true)
	}
	return nil
}
