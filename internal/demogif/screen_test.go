package demogif

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// feed returns a cols×rows screen after the program wrote out.
func feed(t *testing.T, cols, rows int, out string) *Screen {
	t.Helper()
	s := NewScreen(cols, rows, nil)
	if _, err := s.Write([]byte(out)); err != nil {
		t.Fatal(err)
	}
	return s
}

func wantText(t *testing.T, s *Screen, want string) {
	t.Helper()
	if got := s.String(); got != want {
		t.Errorf("screen:\n%s\n---- want:\n%s", got, want)
	}
}

func TestScreenSequences(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		out        string
		want       string
	}{
		{"lines", 10, 3, "ab\r\ncd", "ab\ncd"},
		{"a bare line feed keeps the column", 10, 3, "ab\ncd", "ab\n  cd"},
		{"wrap at the margin, not before", 4, 3, "abcd", "abcd"},
		{"wrap on the next character", 4, 3, "abcdef", "abcd\nef"},
		{"carriage return cancels the pending wrap", 4, 3, "abcd\rX", "Xbcd"},
		{"scroll at the bottom", 5, 2, "1\r\n2\r\n3", "2\n3"},
		{"CUP is 1-based and overwrites", 6, 3, "hello\x1b[1;2HA\x1b[3;4HB", "hAllo\n\n   B"},
		{"relative moves", 6, 3, "\x1b[2B\x1b[3Cx\x1b[A\x1b[2Dy\x1b[Gz", "\nz y\n   x"},
		{"moves stop at the edges", 4, 2, "\x1b[9A\x1b[9Dx\x1b[9B\x1b[9Cy", "x\n   y"},
		{"CHA and VPA", 6, 3, "\x1b[3dA\x1b[5GB", "\n\nA   B"},
		{"EL to the end, to the start, whole line", 6, 3,
			"abcdef\r\nabcdef\r\nabcdef\x1b[1;3H\x1b[K\x1b[2;3H\x1b[1K\x1b[3;3H\x1b[2K", "ab\n   def"},
		{"ED below and whole", 4, 3, "aaaa\r\nbbbb\r\ncccc\x1b[2;2H\x1b[J", "aaaa\nb"},
		{"ED all", 4, 3, "aaaa\r\nbbbb\x1b[2J", ""},
		{"ECH erases without moving", 6, 1, "abcdef\x1b[1;2H\x1b[3XZ", "aZ  ef"},
		{"DCH shifts left", 6, 1, "abcdef\x1b[1;2H\x1b[2P", "adef"},
		{"ICH shifts right", 6, 1, "abcd\x1b[1;2H\x1b[2@", "a  bcd"},
		{"REP repeats the last character", 8, 1, "x-\x1b[4b", "x-----"},
		{"backspace and tab", 20, 1, "ab\bc\tx", "ac      x"},
		{"scroll region: a line feed at its bottom scrolls only it", 4, 4,
			"top\r\n1\r\n2\r\nbot\x1b[2;3r\x1b[3;1H\n", "top\n2\n\nbot"},
		{"reverse index at the region's top scrolls it down", 4, 4,
			"top\r\n1\r\n2\r\nbot\x1b[2;3r\x1b[2;1H\x1bM", "top\n\n1\nbot"},
		{"insert and delete lines inside the region", 4, 4,
			"a\r\nb\r\nc\r\nd\x1b[2;1H\x1b[L", "a\n\nb\nc"},
		{"alternate screen hides and restores the main one", 6, 2,
			"main\x1b[?1049h\x1b[Halt\x1b[?1049lX", "mainX"},
		{"save and restore the cursor", 6, 2, "ab\x1b7\x1b[2;5Hz\x1b8c", "abc\n    z"},
		{"wide runes take two cells", 6, 1, "日本x", "日本x"},
		// x/vt v0.1.0 drops a wide rune written with one column left
		// instead of wrapping it (charmbracelet/x#975); Chorus never
		// writes one there, as TestScreenMatchesTmux shows.
		{"overwriting half a wide rune blanks the other half", 6, 1, "日本\x1b[1;2Hx", " x本"},
		{"combining marks are dropped, not given a cell", 6, 1, "e\u0301x", "ex"},
		{"OSC, charset and mode sequences draw nothing", 10, 1,
			"\x1b]0;title\x07\x1b(B\x1b[?2004h\x1b[?1000h\x1b]8;;https://x\x1b\\ok\x1b]8;;\x1b\\", "ok"},
		{"split sequences across writes", 10, 1, "\x1b[1;3Hab", "  ab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantText(t, feed(t, tc.cols, tc.rows, tc.out), tc.want)
		})
	}
}

func TestScreenSplitWrites(t *testing.T) {
	s := NewScreen(10, 2, nil)
	out := "\x1b[2;3H\x1b[38;2;1;2;3m日x"
	for i := range len(out) {
		_, _ = s.Write([]byte{out[i]})
	}
	wantText(t, s, "\n  日x")
	if c := s.Cell(2, 1); c.FG != RGB(1, 2, 3) || !c.Wide {
		t.Errorf("cell (2,1) = %+v, want a wide rune in rgb(1,2,3)", c)
	}
}

func TestScreenSGR(t *testing.T) {
	s := feed(t, 20, 1, "\x1b[1;31ma\x1b[0mb\x1b[38;5;208;48;2;10;20;30mc\x1b[38:2::1:2:3md\x1b[7;2;3;4;9me\x1b[22;23;24;27;29mf\x1b[39;49mg\x1b[94;103mh\x1b[4:0mi\x1b[mj")
	want := []Style{
		{FG: Indexed(1), Attr: AttrBold},
		{},
		{FG: Indexed(208), BG: RGB(10, 20, 30)},
		{FG: RGB(1, 2, 3), BG: RGB(10, 20, 30)},
		{FG: RGB(1, 2, 3), BG: RGB(10, 20, 30), Attr: AttrReverse | AttrFaint | AttrItalic | AttrUnderline | AttrStrike},
		{FG: RGB(1, 2, 3), BG: RGB(10, 20, 30)},
		{},
		{FG: Indexed(12), BG: Indexed(11)},
		{FG: Indexed(12), BG: Indexed(11)},
		{},
	}
	for i, w := range want {
		if got := s.Cell(i, 0).Style; got != w {
			t.Errorf("cell %d (%q): style %+v, want %+v", i, s.Cell(i, 0).Rune, got, w)
		}
	}
}

func TestScreenEraseUsesThePenBackground(t *testing.T) {
	s := feed(t, 4, 1, "\x1b[44m\x1b[2K")
	if c := s.Cell(3, 0); c.BG != Indexed(4) || c.Rune != 0 {
		t.Errorf("erased cell = %+v, want a blank on blue", c)
	}
}

func TestScreenModes(t *testing.T) {
	s := feed(t, 4, 2, "\x1b[?25l\x1b[?2026h")
	if _, _, vis := s.Cursor(); vis {
		t.Error("cursor still visible after ?25l")
	}
	if !s.Synchronizing() {
		t.Error("not synchronizing after ?2026h")
	}
	_, _ = s.Write([]byte("\x1b[?2026l\x1b[?25h"))
	if _, _, vis := s.Cursor(); !vis || s.Synchronizing() {
		t.Error("?2026l/?25h did not end the update and show the cursor")
	}
	s = feed(t, 4, 2, "\x1b[?7labcdef")
	wantText(t, s, "abcf")
}

func TestScreenAnswersQueries(t *testing.T) {
	var reply bytes.Buffer
	s := NewScreen(10, 5, &reply)
	s.SetDefaultColors([3]uint8{0xcd, 0xd6, 0xf4}, [3]uint8{0x1e, 0x1e, 0x2e})
	_, _ = s.Write([]byte("\x1b[3;4H\x1b[6n\x1b]11;?\x07\x1b[?2026$p\x1b[?2027$p\x1b[c"))
	_ = s.Close() // every answer passed on
	// Synchronized output is known (2: off), grapheme clustering (2027)
	// is not (0), so Bubble Tea brackets its redraws and no frame catches
	// half of one.
	want := "\x1b[3;4R" + "\x1b]11;rgb:1e1e/1e1e/2e2e\x07" + "\x1b[?2026;2$y" + "\x1b[?2027;0$y" + "\x1b[?62;1;6;22c"
	if reply.String() != want {
		t.Errorf("replies %q, want %q", reply.String(), want)
	}
}

// TestScreenMatchesTmux replays what Chorus wrote to a terminal and checks
// the screen against what tmux, an independent emulator, shows for the same
// bytes:
//
//   - chorus-100x30.raw: the narrow layout, recorded with
//     go run ./internal/demogif/render -transcript … testdata/chorus-100x30.tape;
//   - chorus-157x46.raw: the demo itself (docs/demo.tape, panes beside the
//     chat, scroll regions), cut at the end of the last synchronized update
//     before Chorus quits.
//
// The goldens are tmux's screens, captured with the terminal's output
// processing off, as Chorus's raw mode has it (a bare \n must not return
// the carriage):
//
//	tmux -u -f /dev/null -L g new-session -d -s g -x 100 -y 30 'sleep 60'
//	tmux -L g set -g status off
//	tmux -L g respawn-pane -k -t g 'stty -opost; cat testdata/chorus-100x30.raw; sleep 60'
//	tmux -L g display -p -t g '#{cursor_x},#{cursor_y} #{alternate_on}'
//	tmux -L g capture-pane -p -t g > testdata/chorus-100x30.tmux.txt
//	tmux -L g capture-pane -e -N -p -t g > testdata/chorus-100x30.tmux-styled.txt
//
// The styled capture (-e) carries colours and attributes, written as SGR
// sequences whose state runs on from line to line; played into a fresh
// screen it gives tmux's cells to compare with ours. The bottom-right cell
// is left out: Bubble Tea never writes it (that would scroll) and tmux's
// capture drops what erasing left there.
func TestScreenMatchesTmux(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		curX, curY int // where tmux had the cursor
	}{
		{"chorus-100x30", 100, 30, 2, 28},
		{"chorus-157x46", 157, 46, 7, 44},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/" + tc.name + ".raw")
			if err != nil {
				t.Fatal(err)
			}
			golden, err := os.ReadFile("testdata/" + tc.name + ".tmux.txt")
			if err != nil {
				t.Fatal(err)
			}
			s := NewScreen(tc.cols, tc.rows, nil)
			_, _ = s.Write(raw)
			want := strings.TrimRight(trimLines(string(golden)), "\n")
			if got := s.String(); got != want {
				gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
				for i := range max(len(gl), len(wl)) {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Errorf("row %d:\n got %q\nwant %q", i, g, w)
					}
				}
			}
			if x, y, _ := s.Cursor(); x != tc.curX || y != tc.curY {
				t.Errorf("cursor at %d,%d; tmux had it at %d,%d", x, y, tc.curX, tc.curY)
			}
			if !s.AltScreen() {
				t.Error("not on the alternate screen, where Chorus draws")
			}

			styled, err := os.ReadFile("testdata/" + tc.name + ".tmux-styled.txt")
			if err != nil {
				t.Fatal(err)
			}
			theirs := NewScreen(tc.cols, tc.rows, nil)
			lines := strings.Split(strings.TrimSuffix(string(styled), "\n"), "\n")
			_, _ = theirs.Write([]byte(strings.Join(lines, "\r\n")))
			diffs := 0
			for y := range tc.rows {
				for x := range tc.cols {
					if x == tc.cols-1 && y == tc.rows-1 {
						continue
					}
					ours, tmux := s.Cell(x, y), theirs.Cell(x, y)
					if ours.Rune == ' ' {
						ours.Rune = 0
					}
					if tmux.Rune == ' ' {
						tmux.Rune = 0
					}
					if ours != tmux {
						if diffs++; diffs <= 5 {
							t.Errorf("cell %d,%d: %+v; tmux has %+v", x, y, ours, tmux)
						}
					}
				}
			}
			if diffs > 5 {
				t.Errorf("… %d cells differ in all", diffs)
			}
		})
	}
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestScreenSurvivesGarbage feeds sequences with absurd parameters and
// random bytes: the screen must neither panic nor leave its size.
func TestScreenSurvivesGarbage(t *testing.T) {
	s := NewScreen(5, 3, nil)
	for _, seq := range []string{
		"\x1b[999999999;999999999H", "\x1b[999999999@", "\x1b[999999999P", "\x1b[999999999X",
		"\x1b[999999999L", "\x1b[999999999M", "\x1b[999999999S", "\x1b[999999999T",
		"x\x1b[999999999b", "\x1b[0;0r", "\x1b[3;1r", "\x1b[99;99r", "\x1b[38;2m", "\x1b[38;5m",
		"\x1b[48:2:1m", "\x1b[4:", "\x1b[?1049l\x1b[?1049l", "\x1b[?6h\x1b[99A", "\x1b]11;?",
		"\xff\xfe日本語\t\t\t\t\b\b\b\b\b\b", "\x1bc",
	} {
		_, _ = s.Write([]byte(seq))
		if x, y, _ := s.Cursor(); x < 0 || x >= 5 || y < 0 || y >= 3 {
			t.Fatalf("after %q the cursor is at %d,%d, off a 5×3 screen", seq, x, y)
		}
	}
	garbage := make([]byte, 1<<16)
	seed := uint32(1)
	for i := range garbage {
		seed = seed*1664525 + 1013904223
		garbage[i] = byte(seed >> 24)
		if garbage[i]&7 == 0 {
			garbage[i] = 0x1b
		}
	}
	_, _ = s.Write(garbage)
	if x, y, _ := s.Cursor(); x < 0 || x >= 5 || y < 0 || y >= 3 {
		t.Fatalf("after random bytes the cursor is at %d,%d", x, y)
	}
}

// FuzzScreen: whatever a program writes, the screen does not panic and
// keeps the cursor on it (go test -fuzz FuzzScreen ./internal/demogif).
func FuzzScreen(f *testing.F) {
	if raw, err := os.ReadFile("testdata/chorus-100x30.raw"); err == nil {
		f.Add(raw[:min(len(raw), 4096)])
	}
	f.Add([]byte("\x1b[2;3r\x1b[5S\x1b[?1049h日本\x1b[1;1H\x1b[@\x1b[P"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := NewScreen(7, 4, io.Discard)
		_, _ = s.Write(b)
		if x, y, _ := s.Cursor(); x < 0 || x >= 7 || y < 0 || y >= 4 {
			t.Fatalf("cursor at %d,%d, off a 7×4 screen", x, y)
		}
		_ = s.String()
	})
}
