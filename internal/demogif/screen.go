package demogif

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Color is a cell colour: the terminal's default, one of the 256 indexed
// colours, or a 24-bit RGB value. The zero Color is the default, so a
// cleared cell needs no initialisation.
type Color uint32

const (
	colorIndexed Color = 1 << 24
	colorRGB     Color = 2 << 24
)

// Indexed returns palette colour i (0–255).
func Indexed(i uint8) Color { return colorIndexed | Color(i) }

// RGB returns the 24-bit colour r, g, b.
func RGB(r, g, b uint8) Color { return colorRGB | Color(r)<<16 | Color(g)<<8 | Color(b) }

// IsDefault reports whether c is the terminal's default colour.
func (c Color) IsDefault() bool { return c == 0 }

// Attr is a set of SGR text attributes.
type Attr uint8

// The text attributes the renderer draws.
const (
	AttrBold Attr = 1 << iota
	AttrFaint
	AttrItalic
	AttrUnderline
	AttrReverse
	AttrInvisible
	AttrStrike
)

// Style is what SGR sets: colours and attributes.
type Style struct {
	FG, BG Color
	Attr   Attr
}

// Cell is one character cell. Wide marks the first cell of a wide rune
// and Cont the cell it covers. The zero Cell is a blank in the default
// colours; a blank has Rune 0 and draws as its background.
type Cell struct {
	Rune rune
	Wide bool
	Cont bool
	Style
}

// Screen is a minimal VT/xterm emulator: enough of what shells, readline
// and Bubble Tea v2's renderer write (cursor movement, erasing, scrolling
// regions, SGR with 256 and 24-bit colours, the alternate screen,
// synchronized output) to know what a terminal would show. It is not safe
// for concurrent use.
type Screen struct {
	cols, rows int
	main, alt  [][]Cell
	lines      [][]Cell // main or alt: the screen being shown
	altActive  bool

	x, y        int
	wrapPending bool
	pen         Style
	lastRune    rune // for REP

	autowrap      bool
	cursorVisible bool
	originMode    bool
	sync          bool
	top, bottom   int // the scrolling region, inclusive

	saved     savedCursor // DECSC/DECRC and CSI s/u
	mainSaved savedCursor // what 1049 saves on the way to the alt screen
	tabs      []bool
	parser    *ansi.Parser
	reply     io.Writer
	defaultFG [3]uint8
	defaultBG [3]uint8
	unhandled map[string]int
}

type savedCursor struct {
	x, y     int
	pen      Style
	wrapPend bool
}

// NewScreen returns a blank cols×rows screen. Answers to the program's
// queries (cursor position, device attributes, default colours) go to
// reply, normally the pseudo-terminal; reply may be nil.
func NewScreen(cols, rows int, reply io.Writer) *Screen {
	if cols < 1 {
		cols = 1
	}
	if rows < 1 {
		rows = 1
	}
	s := &Screen{cols: cols, rows: rows, reply: reply, unhandled: map[string]int{}}
	s.reset()
	p := ansi.NewParser()
	p.SetHandler(ansi.Handler{
		Print:     s.print,
		Execute:   s.execute,
		HandleCsi: s.csi,
		HandleEsc: s.esc,
		HandleOsc: s.osc,
	})
	s.parser = p
	return s
}

// SetDefaultColors sets the colours the screen reports when a program asks
// for the default foreground and background (OSC 10/11): the theme's, so a
// program that picks light or dark styles picks the right ones.
func (s *Screen) SetDefaultColors(fg, bg [3]uint8) { s.defaultFG, s.defaultBG = fg, bg }

func (s *Screen) reset() {
	s.main = newLines(s.cols, s.rows)
	s.alt = newLines(s.cols, s.rows)
	s.lines = s.main
	s.altActive = false
	s.x, s.y, s.wrapPending = 0, 0, false
	s.pen = Style{}
	s.autowrap, s.cursorVisible, s.originMode, s.sync = true, true, false, false
	s.top, s.bottom = 0, s.rows-1
	s.saved, s.mainSaved = savedCursor{}, savedCursor{}
	s.tabs = make([]bool, s.cols)
	for i := 0; i < s.cols; i += 8 {
		s.tabs[i] = true
	}
}

func newLines(cols, rows int) [][]Cell {
	lines := make([][]Cell, rows)
	for i := range lines {
		lines[i] = make([]Cell, cols)
	}
	return lines
}

// Write feeds what the program wrote to the screen. Sequences may be split
// across writes.
func (s *Screen) Write(b []byte) (int, error) {
	s.parser.Parse(b)
	return len(b), nil
}

// Size returns the screen's columns and rows.
func (s *Screen) Size() (cols, rows int) { return s.cols, s.rows }

// Cell returns the cell at column x, row y.
func (s *Screen) Cell(x, y int) Cell { return s.lines[y][x] }

// Cursor returns the cursor's column and row and whether it is shown.
func (s *Screen) Cursor() (x, y int, visible bool) { return s.x, s.y, s.cursorVisible }

// Synchronizing reports whether the program is between the start and the
// end of a synchronized update (mode 2026): a frame taken now would show
// half of it.
func (s *Screen) Synchronizing() bool { return s.sync }

// Unhandled returns the control sequences the screen ignored and how often,
// so a renderer can say why a frame looks wrong.
func (s *Screen) Unhandled() map[string]int { return s.unhandled }

// Snapshot copies the visible cells, row by row.
func (s *Screen) Snapshot() [][]Cell {
	out := make([][]Cell, s.rows)
	for i, l := range s.lines {
		out[i] = append([]Cell(nil), l...)
	}
	return out
}

// String returns the screen's text, one line per row with trailing blanks
// trimmed and trailing empty rows dropped: what a reader would see, and
// what a tape's Wait matches against.
func (s *Screen) String() string { return ScreenText(s.lines) }

// ScreenText returns the text of a snapshot the way [Screen.String] does.
func ScreenText(lines [][]Cell) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for _, c := range l {
			switch {
			case c.Cont:
			case c.Rune == 0:
				b.WriteByte(' ')
			default:
				b.WriteRune(c.Rune)
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

func (s *Screen) note(format string, a ...any) {
	if len(s.unhandled) < 256 {
		s.unhandled[fmt.Sprintf(format, a...)]++
	}
}

func (s *Screen) print(r rune) {
	w := ansi.StringWidthWc(string(r))
	if w == 0 {
		// Combining marks and variation selectors change the look of the
		// previous glyph; the fonts here cannot show that, so they go.
		return
	}
	if w > 2 {
		w = 2
	}
	if s.wrapPending {
		s.wrapPending = false
		if s.autowrap {
			s.x = 0
			s.lineFeed()
		}
	}
	if s.x+w > s.cols {
		if !s.autowrap {
			s.x = s.cols - w
		} else {
			// A wide rune that does not fit goes to the next line whole.
			s.clearCells(s.y, s.x, s.cols)
			s.x = 0
			s.lineFeed()
		}
	}
	line := s.lines[s.y]
	s.breakWide(s.y, s.x)
	if w == 2 {
		s.breakWide(s.y, s.x+1)
	}
	line[s.x] = Cell{Rune: r, Wide: w == 2, Style: s.pen}
	if w == 2 {
		line[s.x+1] = Cell{Cont: true, Style: s.pen}
	}
	s.lastRune = r
	s.x += w
	if s.x >= s.cols {
		s.x = s.cols - 1
		s.wrapPending = true
	}
}

// breakWide blanks the other half of a wide rune when x overwrites one
// half, as terminals do.
func (s *Screen) breakWide(y, x int) {
	if x < 0 || x >= s.cols {
		return
	}
	line := s.lines[y]
	switch c := line[x]; {
	case c.Wide && x+1 < s.cols:
		line[x+1] = Cell{Style: Style{BG: line[x+1].BG}}
	case c.Cont && x > 0:
		line[x-1] = Cell{Style: Style{BG: line[x-1].BG}}
	}
}

// blank is an erased cell: erasing paints the pen's background (xterm's
// "background colour erase").
func (s *Screen) blank() Cell { return Cell{Style: Style{BG: s.pen.BG}} }

func (s *Screen) clearCells(y, from, to int) {
	from, to = max(from, 0), min(to, s.cols)
	if from >= to {
		return
	}
	s.breakWide(y, from)
	s.breakWide(y, to-1)
	b := s.blank()
	line := s.lines[y]
	for x := from; x < to; x++ {
		line[x] = b
	}
}

func (s *Screen) clearLine(y int) { s.clearCells(y, 0, s.cols) }

func (s *Screen) execute(b byte) {
	switch b {
	case '\r':
		s.x, s.wrapPending = 0, false
	case '\n', '\v', '\f':
		s.wrapPending = false
		s.lineFeed()
	case '\b':
		s.wrapPending = false
		if s.x > 0 {
			s.x--
		}
	case '\t':
		s.tab(1)
	case 0x07, 0x0e, 0x0f, 0x00:
		// Bell and charset shifts: nothing to show.
	default:
		s.note("C0 %#02x", b)
	}
}

func (s *Screen) tab(n int) {
	for ; n > 0; n-- {
		x := s.x + 1
		for x < s.cols-1 && !s.tabs[x] {
			x++
		}
		s.x = min(x, s.cols-1)
	}
	s.wrapPending = false
}

// lineFeed moves down a row, scrolling the region when at its bottom.
func (s *Screen) lineFeed() {
	switch {
	case s.y == s.bottom:
		s.scrollUp(s.top, s.bottom, 1)
	case s.y < s.rows-1:
		s.y++
	}
}

func (s *Screen) reverseIndex() {
	switch {
	case s.y == s.top:
		s.scrollDown(s.top, s.bottom, 1)
	case s.y > 0:
		s.y--
	}
}

// scrollUp moves rows top+n…bottom up by n and blanks the rows freed.
func (s *Screen) scrollUp(top, bottom, n int) {
	n = min(n, bottom-top+1)
	for i := top; i <= bottom; i++ {
		if i+n <= bottom {
			copy(s.lines[i], s.lines[i+n])
		} else {
			s.clearLine(i)
		}
	}
}

func (s *Screen) scrollDown(top, bottom, n int) {
	n = min(n, bottom-top+1)
	for i := bottom; i >= top; i-- {
		if i-n >= top {
			copy(s.lines[i], s.lines[i-n])
		} else {
			s.clearLine(i)
		}
	}
}

func (s *Screen) moveTo(x, y int) {
	s.x = min(max(x, 0), s.cols-1)
	minY, maxY := 0, s.rows-1
	if s.originMode {
		y += s.top
		minY, maxY = s.top, s.bottom
	}
	s.y = min(max(y, minY), maxY)
	s.wrapPending = false
}

// moveRows moves the cursor up or down, stopping at the scrolling region's
// edge when it starts inside the region, as VT100s do.
func (s *Screen) moveRows(n int) {
	top, bottom := 0, s.rows-1
	if s.y >= s.top && s.y <= s.bottom {
		top, bottom = s.top, s.bottom
	}
	s.y = min(max(s.y+n, top), bottom)
	s.wrapPending = false
}

func (s *Screen) esc(cmd ansi.Cmd) {
	if cmd.Intermediate() != 0 {
		// Charset designations (ESC ( B) and the like: nothing to show.
		return
	}
	switch cmd.Final() {
	case '7':
		s.saveCursor(&s.saved)
	case '8':
		s.restoreCursor(&s.saved)
	case 'D':
		s.wrapPending = false
		s.lineFeed()
	case 'E':
		s.x, s.wrapPending = 0, false
		s.lineFeed()
	case 'M':
		s.wrapPending = false
		s.reverseIndex()
	case 'H':
		if s.x < s.cols {
			s.tabs[s.x] = true
		}
	case 'c':
		s.reset()
	case '=', '>', '\\':
		// Keypad modes and a stray string terminator.
	default:
		s.note("ESC %c", cmd.Final())
	}
}

func (s *Screen) saveCursor(c *savedCursor) {
	*c = savedCursor{x: s.x, y: s.y, pen: s.pen, wrapPend: s.wrapPending}
}

func (s *Screen) restoreCursor(c *savedCursor) {
	s.x, s.y, s.pen, s.wrapPending = min(c.x, s.cols-1), min(c.y, s.rows-1), c.pen, c.wrapPend
}

func (s *Screen) csi(cmd ansi.Cmd, params ansi.Params) {
	p := func(i, def int) int {
		v, _, _ := params.Param(i, def)
		if v == 0 && def > 0 {
			return def
		}
		return v
	}
	switch cmd.Prefix() {
	case '?':
		s.privateCSI(cmd, params)
		return
	case 0:
	default:
		// CSI > … (modifyOtherKeys, XTVERSION), CSI < … (kitty keyboard
		// pop), CSI = …: terminal features a picture does not need.
		return
	}
	if i := cmd.Intermediate(); i != 0 {
		switch {
		case i == ' ' && cmd.Final() == 'q': // DECSCUSR: cursor shape
		case i == '$' && cmd.Final() == 'p': // DECRQM for an ANSI mode
			s.answer(fmt.Sprintf("\x1b[%d;0$y", p(0, 0)))
		case i == '!' && cmd.Final() == 'p': // DECSTR soft reset
			s.pen, s.originMode, s.autowrap, s.cursorVisible = Style{}, false, true, true
			s.top, s.bottom = 0, s.rows-1
		default:
			s.note("CSI %c%c", i, cmd.Final())
		}
		return
	}
	switch cmd.Final() {
	case 'A':
		s.moveRows(-p(0, 1))
	case 'B', 'e':
		s.moveRows(p(0, 1))
	case 'C', 'a':
		s.x, s.wrapPending = min(s.x+p(0, 1), s.cols-1), false
	case 'D':
		s.x, s.wrapPending = max(s.x-p(0, 1), 0), false
	case 'E':
		s.moveRows(p(0, 1))
		s.x = 0
	case 'F':
		s.moveRows(-p(0, 1))
		s.x = 0
	case 'G', '`':
		s.x, s.wrapPending = min(max(p(0, 1)-1, 0), s.cols-1), false
	case 'd':
		row := p(0, 1) - 1
		if !s.originMode {
			s.y, s.wrapPending = min(max(row, 0), s.rows-1), false
		} else {
			s.moveTo(s.x, row)
		}
	case 'H', 'f':
		s.moveTo(p(1, 1)-1, p(0, 1)-1)
	case 'I':
		s.tab(p(0, 1))
	case 'Z':
		for n := p(0, 1); n > 0 && s.x > 0; n-- {
			s.x--
			for s.x > 0 && !s.tabs[s.x] {
				s.x--
			}
		}
		s.wrapPending = false
	case 'g':
		switch p(0, 0) {
		case 0:
			s.tabs[s.x] = false
		case 3:
			clear(s.tabs)
		}
	case 'J':
		s.eraseDisplay(p(0, 0))
	case 'K':
		switch p(0, 0) {
		case 0:
			s.clearCells(s.y, s.x, s.cols)
		case 1:
			s.clearCells(s.y, 0, s.x+1)
		case 2:
			s.clearLine(s.y)
		}
		s.wrapPending = false
	case 'X':
		s.clearCells(s.y, s.x, s.x+p(0, 1))
		s.wrapPending = false
	case 'P':
		s.deleteChars(p(0, 1))
	case '@':
		s.insertChars(p(0, 1))
	case 'L':
		if s.y >= s.top && s.y <= s.bottom {
			s.scrollDown(s.y, s.bottom, p(0, 1))
			s.x, s.wrapPending = 0, false
		}
	case 'M':
		if s.y >= s.top && s.y <= s.bottom {
			s.scrollUp(s.y, s.bottom, p(0, 1))
			s.x, s.wrapPending = 0, false
		}
	case 'S':
		s.scrollUp(s.top, s.bottom, p(0, 1))
	case 'T':
		s.scrollDown(s.top, s.bottom, p(0, 1))
	case 'b':
		if s.lastRune != 0 {
			// More than a screenful repeats nothing that stays visible.
			for n := min(p(0, 1), s.cols*s.rows); n > 0; n-- {
				s.print(s.lastRune)
			}
		}
	case 'r':
		top, bottom := p(0, 1)-1, p(1, s.rows)-1
		if bottom >= s.rows {
			bottom = s.rows - 1
		}
		if top < bottom {
			s.top, s.bottom = top, bottom
			s.moveTo(0, 0)
		}
	case 'm':
		s.sgr(params)
	case 's':
		s.saveCursor(&s.saved)
	case 'u':
		s.restoreCursor(&s.saved)
	case 'h', 'l':
		// ANSI modes (insert, newline): neither is used by the programs
		// this renders.
	case 'n':
		switch p(0, 0) {
		case 5:
			s.answer("\x1b[0n")
		case 6:
			s.answer(fmt.Sprintf("\x1b[%d;%dR", s.y+1, s.x+1))
		}
	case 'c':
		// Primary device attributes: a VT220 with ANSI colour, as xterm.js
		// answers. Programs send it after other queries to learn that the
		// answers (or their absence) are complete.
		s.answer("\x1b[?62;22c")
	case 't', 'q':
		// Window manipulation and LED reports.
	default:
		s.note("CSI %c", cmd.Final())
	}
}

func (s *Screen) answer(a string) {
	if s.reply != nil {
		_, _ = io.WriteString(s.reply, a)
	}
}

func (s *Screen) eraseDisplay(mode int) {
	switch mode {
	case 0:
		s.clearCells(s.y, s.x, s.cols)
		for y := s.y + 1; y < s.rows; y++ {
			s.clearLine(y)
		}
	case 1:
		s.clearCells(s.y, 0, s.x+1)
		for y := 0; y < s.y; y++ {
			s.clearLine(y)
		}
	case 2, 3:
		for y := range s.rows {
			s.clearLine(y)
		}
	}
	s.wrapPending = false
}

func (s *Screen) deleteChars(n int) {
	line := s.lines[s.y]
	n = min(n, s.cols-s.x)
	s.breakWide(s.y, s.x)
	copy(line[s.x:], line[s.x+n:])
	s.clearCells(s.y, s.cols-n, s.cols)
	s.wrapPending = false
}

func (s *Screen) insertChars(n int) {
	line := s.lines[s.y]
	n = min(n, s.cols-s.x)
	s.breakWide(s.y, s.x)
	copy(line[s.x+n:], line[s.x:s.cols-n])
	s.clearCells(s.y, s.x, s.x+n)
	s.wrapPending = false
}

func (s *Screen) privateCSI(cmd ansi.Cmd, params ansi.Params) {
	final := cmd.Final()
	if cmd.Intermediate() == '$' && final == 'p' {
		// DECRQM: answer for the modes the screen keeps, "not
		// recognised" for the rest, so a program does not wait for an
		// answer nor count on a feature.
		mode, _, _ := params.Param(0, 0)
		state := 0
		switch mode {
		case 25, 7, 6, 1049, 47, 1047, 2026:
			state = 2
			if s.mode(mode) {
				state = 1
			}
		}
		s.answer(fmt.Sprintf("\x1b[?%d;%d$y", mode, state))
		return
	}
	if cmd.Intermediate() != 0 {
		return
	}
	switch final {
	case 'h', 'l':
		on := final == 'h'
		for i := range params {
			s.setMode(params[i].Param(0), on)
		}
	case 'J':
		s.eraseDisplay(func() int { v, _, _ := params.Param(0, 0); return v }())
	case 'K':
		v, _, _ := params.Param(0, 0)
		switch v {
		case 0:
			s.clearCells(s.y, s.x, s.cols)
		case 1:
			s.clearCells(s.y, 0, s.x+1)
		case 2:
			s.clearLine(s.y)
		}
	case 'W':
		// DECST8C: tab stops back to every eight columns.
		if v, _, _ := params.Param(0, 0); v == 5 {
			clear(s.tabs)
			for i := 0; i < s.cols; i += 8 {
				s.tabs[i] = true
			}
		}
	case 'u', 'n', 'm', 's', 'r':
		// Kitty keyboard query, private DSR, XTQMODKEYS, save/restore of
		// private modes: nothing to show and no answer expected.
	default:
		s.note("CSI ? %c", final)
	}
}

func (s *Screen) mode(m int) bool {
	switch m {
	case 25:
		return s.cursorVisible
	case 7:
		return s.autowrap
	case 6:
		return s.originMode
	case 1049, 47, 1047:
		return s.altActive
	case 2026:
		return s.sync
	}
	return false
}

func (s *Screen) setMode(m int, on bool) {
	switch m {
	case 25:
		s.cursorVisible = on
	case 7:
		s.autowrap = on
	case 6:
		s.originMode = on
		s.moveTo(0, 0)
	case 2026:
		s.sync = on
	case 1049, 47, 1047:
		if on == s.altActive {
			return
		}
		if on {
			if m == 1049 {
				s.saveCursor(&s.mainSaved)
			}
			s.alt = newLines(s.cols, s.rows)
			s.lines, s.altActive = s.alt, true
		} else {
			s.lines, s.altActive = s.main, false
			if m == 1049 {
				s.restoreCursor(&s.mainSaved)
			}
		}
		s.wrapPending = false
	default:
		// Mouse reporting, bracketed paste, focus events, application
		// cursor keys, grapheme clustering: they change what the terminal
		// sends, not what it shows.
	}
}

func (s *Screen) osc(cmd int, data []byte) {
	// data is "cmd;payload".
	_, payload, _ := strings.Cut(string(data), ";")
	switch cmd {
	case 10, 11:
		if payload == "?" {
			c := s.defaultFG
			if cmd == 11 {
				c = s.defaultBG
			}
			s.answer(fmt.Sprintf("\x1b]%d;rgb:%02x%02x/%02x%02x/%02x%02x\x1b\\", cmd, c[0], c[0], c[1], c[1], c[2], c[2]))
		}
	default:
		// Titles, hyperlinks, clipboard, notifications, working directory:
		// nothing a picture of the screen shows.
	}
}

// sgr applies Select Graphic Rendition parameters to the pen.
func (s *Screen) sgr(params ansi.Params) {
	if len(params) == 0 {
		s.pen = Style{}
		return
	}
	for i := 0; i < len(params); i++ {
		v := params[i].Param(0)
		switch {
		case v == 0:
			s.pen = Style{}
		case v == 1:
			s.pen.Attr |= AttrBold
		case v == 2:
			s.pen.Attr |= AttrFaint
		case v == 3:
			s.pen.Attr |= AttrItalic
		case v == 4:
			s.pen.Attr |= AttrUnderline
			if params[i].HasMore() && i+1 < len(params) {
				// 4:0 is "no underline"; 4:1…4:5 are its styles.
				i++
				if params[i].Param(1) == 0 {
					s.pen.Attr &^= AttrUnderline
				}
				for params[i].HasMore() && i+1 < len(params) {
					i++
				}
			}
		case v == 7:
			s.pen.Attr |= AttrReverse
		case v == 8:
			s.pen.Attr |= AttrInvisible
		case v == 9:
			s.pen.Attr |= AttrStrike
		case v == 21:
			s.pen.Attr |= AttrUnderline
		case v == 22:
			s.pen.Attr &^= AttrBold | AttrFaint
		case v == 23:
			s.pen.Attr &^= AttrItalic
		case v == 24:
			s.pen.Attr &^= AttrUnderline
		case v == 27:
			s.pen.Attr &^= AttrReverse
		case v == 28:
			s.pen.Attr &^= AttrInvisible
		case v == 29:
			s.pen.Attr &^= AttrStrike
		case v >= 30 && v <= 37:
			s.pen.FG = Indexed(uint8(v - 30))
		case v == 39:
			s.pen.FG = 0
		case v >= 40 && v <= 47:
			s.pen.BG = Indexed(uint8(v - 40))
		case v == 49:
			s.pen.BG = 0
		case v >= 90 && v <= 97:
			s.pen.FG = Indexed(uint8(v - 90 + 8))
		case v >= 100 && v <= 107:
			s.pen.BG = Indexed(uint8(v - 100 + 8))
		case v == 38 || v == 48 || v == 58:
			c, next := extendedColor(params, i)
			i = next
			switch v {
			case 38:
				s.pen.FG = c
			case 48:
				s.pen.BG = c
			}
		default:
			// Blink, fonts, overline, underline colour reset: not drawn.
			for params[i].HasMore() && i+1 < len(params) {
				i++
			}
		}
	}
}

// extendedColor reads the colour after a 38, 48 or 58 at params[i] in its
// semicolon form (38;5;n, 38;2;r;g;b) or its colon form (38:5:n,
// 38:2::r:g:b, 38:2:r:g:b) and returns it and the index of its last
// parameter.
func extendedColor(params ansi.Params, i int) (Color, int) {
	if i+1 >= len(params) {
		return 0, i
	}
	colon := params[i].HasMore()
	kind := params[i+1].Param(0)
	switch kind {
	case 5:
		if i+2 >= len(params) {
			return 0, len(params) - 1
		}
		return Indexed(uint8(params[i+2].Param(0))), i + 2
	case 2:
		if colon {
			// Collect the colon group: 2, [colourspace,] r, g, b.
			end := i + 1
			for end < len(params)-1 && params[end].HasMore() {
				end++
			}
			vals := []int{}
			for j := i + 2; j <= end; j++ {
				vals = append(vals, params[j].Param(0))
			}
			if len(vals) >= 4 {
				vals = vals[len(vals)-3:]
			}
			if len(vals) < 3 {
				return 0, end
			}
			return RGB(uint8(vals[0]), uint8(vals[1]), uint8(vals[2])), end
		}
		if i+4 >= len(params) {
			return 0, len(params) - 1
		}
		return RGB(uint8(params[i+2].Param(0)), uint8(params[i+3].Param(0)), uint8(params[i+4].Param(0))), i + 4
	}
	return 0, i + 1
}
