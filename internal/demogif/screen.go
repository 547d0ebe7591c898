package demogif

import (
	"fmt"
	"image/color"
	"io"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Screen is what a terminal shows for what the programs write: Charm's
// terminal emulator (github.com/charmbracelet/x/vt), read back as the
// [Cell]s the GIF's frames are drawn from. It answers the programs'
// queries (cursor position, colours, modes) through reply and tells a
// synchronized update (mode 2026) in progress, so no frame catches half a
// redraw. It is not safe for concurrent use.
type Screen struct {
	emu        *vt.Emulator
	cols, rows int
	sync       bool
	alt        bool
	unhandled  map[string]int
	replies    chan struct{} // closed when the replies are all passed on
}

// NewScreen returns a cols×rows screen. Answers to the programs' queries go
// to reply (nil discards them).
func NewScreen(cols, rows int, reply io.Writer) *Screen {
	s := &Screen{emu: vt.NewEmulator(cols, rows), cols: cols, rows: rows, unhandled: map[string]int{}, replies: make(chan struct{})}
	s.emu.SetLogger(s)
	s.emu.SetCallbacks(vt.Callbacks{
		AltScreen: func(on bool) { s.alt = on },
		EnableMode: func(m ansi.Mode) {
			if m == ansi.ModeSynchronizedOutput {
				s.sync = true
			}
		},
		DisableMode: func(m ansi.Mode) {
			if m == ansi.ModeSynchronizedOutput {
				s.sync = false
			}
		},
	})
	// Two sequences take time in proportion to their count, not to the
	// screen: a garbled stream asking for 999999999 would hold the renderer
	// for minutes. Their counts are cut to what changes the screen the same
	// way, and the emulator's own handler runs (a handler that answers
	// false passes the sequence on).
	s.emu.RegisterCsiHandler('b', func(params ansi.Params) bool {
		// REP prints the last character n times: past a screenful, n and
		// n+cols leave the same screen.
		if n, _, _ := params.Param(0, 1); len(params) > 0 && n > cols*rows {
			params[0] = ansi.Param(cols*rows + (n-cols*rows)%cols)
		}
		return false
	})
	s.emu.RegisterCsiHandler('X', func(params ansi.Params) bool {
		// ECH erases n cells from the cursor, on its line.
		if n, _, _ := params.Param(0, 1); len(params) > 0 && n > cols {
			params[0] = ansi.Param(cols)
		}
		return false
	})
	if reply == nil {
		reply = io.Discard
	}
	// The emulator writes its answers into a pipe, and a write waits for
	// them to be read: pass them on as they come, and keep reading when
	// reply fails (a program gone), or the next query would block the
	// screen.
	go func() {
		defer close(s.replies)
		buf := make([]byte, 4096)
		for {
			n, err := s.emu.Read(buf)
			if n > 0 {
				_, _ = reply.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	// Known and off: a program asking (DECRQM) learns that the screen
	// honours synchronized output, as the old emulator told Bubble Tea.
	_, _ = s.emu.WriteString(ansi.ResetModeSynchronizedOutput)
	return s
}

// Close stops passing answers on, once those already given are passed.
func (s *Screen) Close() error {
	// Closing the answers' pipe ends the reader. Not Emulator.Close: it
	// marks the emulator closed without a lock while Read looks.
	var err error
	if c, ok := s.emu.InputPipe().(io.Closer); ok {
		err = c.Close()
	}
	<-s.replies
	return err
}

// Printf counts the sequences the emulator ignored ([vt.Logger]).
func (s *Screen) Printf(format string, a ...any) {
	if msg, ok := strings.CutPrefix(fmt.Sprintf(format, a...), "unhandled sequence: "); ok && len(s.unhandled) < 256 {
		s.unhandled[msg]++
	}
}

// SetDefaultColors sets the colours a program asking for the terminal's
// foreground and background (OSC 10 and 11) is told.
func (s *Screen) SetDefaultColors(fg, bg [3]uint8) {
	s.emu.SetDefaultForegroundColor(color.RGBA{fg[0], fg[1], fg[2], 0xff})
	s.emu.SetDefaultBackgroundColor(color.RGBA{bg[0], bg[1], bg[2], 0xff})
}

// Write feeds what a program wrote to the terminal.
func (s *Screen) Write(b []byte) (int, error) { return s.emu.Write(b) }

// Size returns the screen's size in cells.
func (s *Screen) Size() (cols, rows int) { return s.cols, s.rows }

// Cell returns the cell at column x, row y.
func (s *Screen) Cell(x, y int) Cell { return cellOf(s.emu.CellAt(x, y)) }

// Cursor returns the cursor's cell and whether it is shown.
func (s *Screen) Cursor() (x, y int, visible bool) {
	p := s.emu.CursorPosition()
	return p.X, p.Y, !s.emu.CursorHidden()
}

// AltScreen reports whether the alternate screen is shown.
func (s *Screen) AltScreen() bool { return s.alt }

// Synchronizing reports whether a program is in the middle of a
// synchronized update (mode 2026): the screen is not ready to be shown.
func (s *Screen) Synchronizing() bool { return s.sync }

// Unhandled returns the control sequences the screen ignored and how often,
// so a renderer can say why a frame looks wrong.
func (s *Screen) Unhandled() map[string]int { return s.unhandled }

// Snapshot copies the visible cells, row by row.
func (s *Screen) Snapshot() [][]Cell {
	out := make([][]Cell, s.rows)
	for y := range out {
		out[y] = make([]Cell, s.cols)
		for x := range out[y] {
			out[y][x] = s.Cell(x, y)
		}
	}
	return out
}

// String returns the screen's text, one line per row with trailing blanks
// trimmed and trailing empty rows dropped: what a reader would see, and
// what a tape's Wait matches against.
func (s *Screen) String() string { return ScreenText(s.Snapshot()) }

// cellOf reads an emulator cell as the frames draw it.
func cellOf(c *uv.Cell) Cell {
	if c == nil {
		return Cell{}
	}
	var out Cell
	switch {
	case c.Width == 0 && c.Content == "":
		out.Cont = true // the second half of a wide character
	case c.Content != "":
		out.Rune, _ = utf8.DecodeRuneInString(c.Content)
		out.Wide = c.Width > 1
	}
	if out.Rune == ' ' {
		out.Rune = 0
	}
	out.FG, out.BG = colorOf(c.Style.Fg), colorOf(c.Style.Bg)
	for _, a := range []struct {
		uv   uint8
		attr Attr
	}{
		{uv.AttrBold, AttrBold}, {uv.AttrFaint, AttrFaint}, {uv.AttrItalic, AttrItalic},
		{uv.AttrReverse, AttrReverse}, {uv.AttrConceal, AttrInvisible}, {uv.AttrStrikethrough, AttrStrike},
	} {
		if c.Style.Attrs&a.uv != 0 {
			out.Attr |= a.attr
		}
	}
	if c.Style.Underline != uv.UnderlineNone {
		out.Attr |= AttrUnderline
	}
	return out
}

// colorOf reads an emulator colour: nil is the default, the 16 base and
// 256 palette colours are indexed, anything else is 24-bit.
func colorOf(c color.Color) Color {
	switch c := c.(type) {
	case nil:
		return 0
	case ansi.BasicColor:
		return Indexed(uint8(c))
	case ansi.IndexedColor:
		return Indexed(uint8(c))
	}
	r, g, b, _ := c.RGBA()
	return RGB(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}
