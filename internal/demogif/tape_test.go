package demogif

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseTheDemoTape(t *testing.T) {
	f, err := os.Open("../../docs/demo.tape")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tape, err := ParseTape("docs/demo.tape", f)
	if err != nil {
		t.Fatalf("the shipped tape does not parse: %v", err)
	}
	if tape.Output != "docs/demo.gif" || len(tape.Require) != 1 || tape.Require[0] != "chorus" {
		t.Errorf("output %q, require %q", tape.Output, tape.Require)
	}
	s := tape.Settings
	if s.FontSize != 15 || s.Width != 1440 || s.Height != 900 || s.Padding != 12 ||
		s.TypingSpeed != 40*time.Millisecond || s.Theme != "Catppuccin Mocha" || s.Shell != "bash" {
		t.Errorf("settings %+v", s)
	}
	var waits int
	for _, c := range tape.Commands {
		if c.Kind == CmdWait {
			waits++
			if !c.Screen || c.Pattern == nil {
				t.Errorf("line %d: %+v, want a screen wait with a pattern", c.Line, c)
			}
		}
	}
	if waits != 2 {
		t.Errorf("%d waits, want 2", waits)
	}
}

// TestParseTheFixtureTapes: the tapes the screen's recordings were made
// with are tapes VHS reads.
func TestParseTheFixtureTapes(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.tape")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture tapes: %v", err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseTape(p, f)
		f.Close()
		if err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestParseTape(t *testing.T) {
	src := `# a comment
Output out.gif
Set FontSize 20
Set TypingSpeed 10ms
Env GREETING "hi there"

Type "echo 'a b'"
Type@5ms ` + "`x`" + `
Enter
Backspace 3
Ctrl+C
Alt+t
Shift+Tab
Ctrl+Alt+x
Sleep 1.5
Sleep 600ms
Hide
Show
Wait
Wait+Line@2s /\$ $/
Wait+Screen /done/
Set TypingSpeed 1ms
`
	tape, err := ParseTape("t.tape", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if tape.Settings.FontSize != 20 || tape.Settings.TypingSpeed != 10*time.Millisecond {
		t.Errorf("settings %+v", tape.Settings)
	}
	if len(tape.Env) != 1 || tape.Env[0] != "GREETING=hi there" {
		t.Errorf("env %q", tape.Env)
	}
	type want struct {
		kind  CommandKind
		line  int
		check func(Command) bool
	}
	wants := []want{
		{CmdType, 7, func(c Command) bool { return c.Text == "echo 'a b'" && c.Speed == 0 }},
		{CmdType, 8, func(c Command) bool { return c.Text == "x" && c.Speed == 5*time.Millisecond }},
		{CmdKey, 9, func(c Command) bool { return c.Keys == "\r" && c.Repeat == 1 }},
		{CmdKey, 10, func(c Command) bool { return c.Keys == "\x7f" && c.Repeat == 3 }},
		{CmdKey, 11, func(c Command) bool { return c.Keys == "\x03" }},
		{CmdKey, 12, func(c Command) bool { return c.Keys == "\x1bt" }},
		{CmdKey, 13, func(c Command) bool { return c.Keys == "\x1b[Z" }},
		{CmdKey, 14, func(c Command) bool { return c.Keys == "\x1b\x18" }},
		{CmdSleep, 15, func(c Command) bool { return c.Duration == 1500*time.Millisecond }},
		{CmdSleep, 16, func(c Command) bool { return c.Duration == 600*time.Millisecond }},
		{CmdHide, 17, nil},
		{CmdShow, 18, nil},
		{CmdWait, 19, func(c Command) bool {
			return !c.Screen && c.Pattern.String() == ">$" && c.Duration == 15*time.Second
		}},
		{CmdWait, 20, func(c Command) bool {
			return !c.Screen && c.Pattern.MatchString("x $ ") && c.Duration == 2*time.Second
		}},
		{CmdWait, 21, func(c Command) bool { return c.Screen && c.Pattern.MatchString("all done") }},
		{CmdTypingSpeed, 22, func(c Command) bool { return c.Duration == time.Millisecond }},
	}
	if len(tape.Commands) != len(wants) {
		t.Fatalf("%d commands, want %d: %+v", len(tape.Commands), len(wants), tape.Commands)
	}
	for i, w := range wants {
		c := tape.Commands[i]
		if c.Kind != w.kind || c.Line != w.line || w.check != nil && !w.check(c) {
			t.Errorf("command %d = %+v, want kind %d on line %d", i, c, w.kind, w.line)
		}
	}
}

// TestParseTapeErrors: what this renderer cannot play is refused with the
// line and the way out (VHS itself, or leaving the line out).
func TestParseTapeErrors(t *testing.T) {
	tests := []struct {
		src  string
		line int
		want string
	}{
		{"Output a.gif\nScreenshot x.png", 2, "does not play"},
		{"Output a.mp4", 1, "only GIFs"},
		{"Output a.gif\nSet Theme \"Dracula\"", 2, "knows only"},
		{"Output a.gif\nSet FontFamily \"Iosevka\"", 2, "does not support"},
		{"Output a.gif\nType \"x\"\nSet FontSize 20", 3, "move it to the top"},
		{"Output a.gif\nSet Width wide", 2, "whole number"},
		{"Output a.gif\nSet Framerate 5000000000", 2, "Framerate"},
		{"Output a.gif\nSet LineHeight 9", 2, "between 0.5 and 3"},
		{"Type \"x\"", 1, "names no GIF"},
		{"Type \"x\"\n", 1, "names no GIF"},
	}
	for _, tc := range tests {
		_, err := ParseTape("t.tape", strings.NewReader(tc.src))
		var te *TapeError
		if !errors.As(err, &te) {
			t.Errorf("%q: error %v, want a TapeError", tc.src, err)
			continue
		}
		if te.Line != tc.line || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "t.tape:") {
			t.Errorf("%q: %v, want line %d and %q", tc.src, err, tc.line, tc.want)
		}
	}
}

// TestParseTapeRejectsWhatVHSRejects: the tape goes through VHS's own
// parser, so a tape VHS would refuse is refused here too, on its line and
// in VHS's words — an unquoted absolute Output path (VHS reads "/tmp/" as
// a regular expression), a command or setting VHS does not have, a key
// with no key, a Wait on neither Line nor Screen. The hand-written parser
// played all of these.
func TestParseTapeRejectsWhatVHSRejects(t *testing.T) {
	tests := []struct {
		src  string
		line int
		want string
	}{
		{"Output /tmp/demo.gif", 1, "Expected file path after output"},
		{"Output a.gif\nFrobnicate 3", 2, "Invalid command: Frobnicate"},
		{"Output a.gif\nSet Colour red", 2, "Unknown setting: Colour"},
		{"Output a.gif\n\nSleep soon", 3, "Expected time after Sleep"},
		{"Output a.gif\nEnter twice", 2, "Invalid command: twice"},
		{"Output a.gif\nCtrl+F1", 2, "Not a valid modifier"},
		{"Output a.gif\nWait+Pixel /x/", 2, "Wait+ expects Line or Screen"},
		{"Output a.gif\nWait+Screen /(/", 2, "Invalid regular expression"},
		{"Output a.gif\nType", 2, "Type expects string"},
	}
	for _, tc := range tests {
		_, err := ParseTape("t.tape", strings.NewReader(tc.src))
		var te *TapeError
		if !errors.As(err, &te) || te.Line != tc.line || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "VHS") {
			t.Errorf("%q: %v, want a TapeError on line %d with VHS's %q", tc.src, err, tc.line, tc.want)
		}
	}
	// The quoted path is what VHS reads.
	if tape, err := ParseTape("t.tape", strings.NewReader(`Output "/tmp/demo.gif"`)); err != nil || tape.Output != "/tmp/demo.gif" {
		t.Errorf("quoted output: %v", err)
	}
}
