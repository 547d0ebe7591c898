package demogif

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/vhs/lexer"
	"github.com/charmbracelet/vhs/parser"
	"github.com/charmbracelet/vhs/token"
)

// Tape is a parsed VHS tape: where the GIF goes, how the terminal looks, and
// the commands to play.
type Tape struct {
	// Output is the GIF's path as the tape names it (relative paths are
	// relative to the directory the tape runs in).
	Output string
	// Require lists the programs that must be on PATH.
	Require []string
	// Env holds the variables the tape sets (Env KEY "value"), in order.
	Env []string
	// Settings are the tape's Set lines that shape the terminal.
	Settings Settings
	// Commands are what the tape does, in order.
	Commands []Command
}

// Settings are the terminal and recording settings a tape can Set before
// its first command. [DefaultSettings] gives VHS's defaults where this
// renderer follows them.
type Settings struct {
	Shell       string
	FontSize    int
	Width       int // pixels, padding included
	Height      int
	Padding     int
	LineHeight  float64
	Theme       string
	Framerate   int
	TypingSpeed time.Duration
	WaitTimeout time.Duration
	WaitPattern *regexp.Regexp
}

// DefaultSettings returns the settings of a tape that sets nothing: VHS's
// defaults, but a frame rate of 10 — a terminal rarely changes faster, and
// fewer frames make a smaller GIF.
func DefaultSettings() Settings {
	return Settings{
		Shell:       "bash",
		FontSize:    22,
		Width:       1200,
		Height:      600,
		Padding:     60,
		LineHeight:  1.0,
		Theme:       "",
		Framerate:   10,
		TypingSpeed: 50 * time.Millisecond,
		WaitTimeout: 15 * time.Second,
		WaitPattern: regexp.MustCompile(`>$`),
	}
}

// CommandKind says what a [Command] does.
type CommandKind int

// The command kinds a tape can hold.
const (
	// CmdType types Text, one rune every Speed (the typing speed when 0).
	CmdType CommandKind = iota
	// CmdKey sends Keys (a key's bytes) Repeat times, Speed apart.
	CmdKey
	// CmdSleep waits Duration.
	CmdSleep
	// CmdHide stops recording frames; CmdShow resumes.
	CmdHide
	// CmdShow resumes recording frames.
	CmdShow
	// CmdWait waits up to Duration until Pattern matches the screen (Screen)
	// or its last non-empty line.
	CmdWait
	// CmdTypingSpeed changes the typing speed to Duration from here on.
	CmdTypingSpeed
)

// Command is one action of a tape.
type Command struct {
	Line     int // 1-based line in the tape, for errors
	Kind     CommandKind
	Text     string // CmdType
	Keys     string // CmdKey: the bytes the key sends
	Name     string // CmdKey: the key as the tape names it
	Repeat   int
	Speed    time.Duration
	Duration time.Duration
	Pattern  *regexp.Regexp
	Screen   bool // CmdWait: match the whole screen, not the last line
}

// TapeError is a tape line this renderer cannot play.
type TapeError struct {
	File string
	Line int
	Msg  string
}

func (e *TapeError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ParseTape reads a tape with VHS's own lexer and parser
// (github.com/charmbracelet/vhs), so a tape VHS rejects is rejected here
// with VHS's message, then takes what this renderer plays from it. name is
// used in errors ("docs/demo.tape:12: …").
func ParseTape(name string, r io.Reader) (*Tape, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	p := parser.New(lexer.New(string(src)))
	cmds := p.Parse()
	if errs := p.Errors(); len(errs) > 0 {
		e := errs[0]
		return nil, &TapeError{name, e.Token.Line, e.Msg + " (VHS's parser rejects the tape)"}
	}
	lines := commandLines(string(src), cmds)
	t := &Tape{Settings: DefaultSettings()}
	for i, c := range cmds {
		if err := t.add(lines[i], c); err != nil {
			return nil, &TapeError{name, lines[i], err.Error()}
		}
	}
	if t.Output == "" {
		last := strings.Count(string(src), "\n")
		if !strings.HasSuffix(string(src), "\n") {
			last++
		}
		return nil, &TapeError{name, last, `the tape names no GIF to write — add a line like: Output demo.gif`}
	}
	return t, nil
}

// commandLines returns the line of each of cmds. VHS's commands carry no
// position, so the tape is parsed again line by line: when no command runs
// over the end of its line — as in every tape VHS documents — that gives
// the same commands, each with its line. Otherwise the lines are 0,
// unknown.
func commandLines(src string, cmds []parser.Command) []int {
	lines := make([]int, 0, len(cmds))
	var each []parser.Command
	for i, l := range strings.Split(src, "\n") {
		p := parser.New(lexer.New(l))
		cs := p.Parse()
		if len(p.Errors()) > 0 {
			return make([]int, len(cmds))
		}
		for range cs {
			lines = append(lines, i+1)
		}
		each = append(each, cs...)
	}
	if !slices.Equal(each, cmds) {
		return make([]int, len(cmds))
	}
	return lines
}

// add takes one of VHS's commands into the tape.
func (t *Tape) add(line int, c parser.Command) error {
	var speed time.Duration
	if c.Options != "" && c.Type != token.OUTPUT && c.Type != token.ENV && c.Type != token.SET {
		d, err := parseDuration(c.Options)
		if err != nil {
			return fmt.Errorf("%s@%s: %w", c.Type, c.Options, err)
		}
		speed = d
	}
	switch c.Type {
	case token.OUTPUT:
		if !strings.EqualFold(c.Options, ".gif") {
			return fmt.Errorf("Output %s: this renderer writes only GIFs — render other formats with VHS (go tool task demo)", c.Args)
		}
		t.Output = c.Args
	case token.REQUIRE:
		t.Require = append(t.Require, c.Args)
	case token.ENV:
		t.Env = append(t.Env, c.Options+"="+c.Args)
	case token.SET:
		return t.set(line, c.Options, c.Args)
	case token.TYPE:
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdType, Text: c.Args, Speed: speed})
	case token.SLEEP:
		d, err := parseDuration(c.Args)
		if err != nil {
			return fmt.Errorf("Sleep: %w", err)
		}
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdSleep, Duration: d})
	case token.HIDE:
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdHide})
	case token.SHOW:
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdShow})
	case token.WAIT:
		return t.wait(line, c.Args, speed, c.Options != "")
	case token.CTRL, token.ALT, token.SHIFT:
		name := c.Type.String() + "+" + strings.ReplaceAll(c.Args, " ", "+")
		keys, ok := keySequence(name)
		if !ok {
			return fmt.Errorf("%s: this renderer does not know what the key sends — render this tape with VHS (go tool task demo)", name)
		}
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdKey, Keys: keys, Name: name, Repeat: 1})
	case token.SCREENSHOT, token.COPY, token.PASTE, token.SOURCE:
		return fmt.Errorf("%s is a VHS command this renderer does not play — render this tape with VHS (go tool task demo) or leave it out", c.Type)
	default:
		name := c.Type.String()
		keys, ok := keySequence(name)
		if !ok {
			return fmt.Errorf("%s is a VHS command this renderer does not play — render this tape with VHS (go tool task demo) or leave it out", name)
		}
		n, err := strconv.Atoi(c.Args)
		if err != nil || n < 1 {
			return fmt.Errorf("%s %s: the repeat count must be a positive number", name, c.Args)
		}
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdKey, Keys: keys, Name: name, Repeat: n, Speed: speed})
	}
	return nil
}

// set applies a Set line: before the first command, where VHS reads them,
// but for TypingSpeed, which may change on the way.
func (t *Tape) set(line int, key, val string) error {
	if key == "TypingSpeed" {
		d, err := parseDuration(val)
		if err != nil {
			return fmt.Errorf("Set TypingSpeed: %w", err)
		}
		if len(t.Commands) > 0 {
			t.Commands = append(t.Commands, Command{Line: line, Kind: CmdTypingSpeed, Duration: d})
		} else {
			t.Settings.TypingSpeed = d
		}
		return nil
	}
	if len(t.Commands) > 0 {
		return fmt.Errorf("Set %s comes after the tape's first command — move it to the top, where VHS reads it", key)
	}
	s := &t.Settings
	atoi := func(min int) (int, error) {
		n, err := strconv.Atoi(val)
		if err != nil || n < min {
			return 0, fmt.Errorf("Set %s %s: want a whole number of at least %d", key, val, min)
		}
		return n, nil
	}
	var err error
	switch key {
	case "Shell":
		s.Shell = val
	case "FontSize":
		s.FontSize, err = atoi(6)
	case "Width":
		s.Width, err = atoi(100)
	case "Height":
		s.Height, err = atoi(100)
	case "Padding":
		s.Padding, err = atoi(0)
	case "Framerate":
		s.Framerate, err = atoi(1)
		if err == nil && s.Framerate > 60 {
			return fmt.Errorf("Set Framerate %s: at most 60 — a terminal does not change faster", val)
		}
	case "LineHeight":
		s.LineHeight, err = strconv.ParseFloat(val, 64)
		if err != nil || s.LineHeight < 0.5 || s.LineHeight > 3 {
			return fmt.Errorf("Set LineHeight %s: want a number between 0.5 and 3", val)
		}
	case "Theme":
		if _, ok := themes[val]; !ok {
			return fmt.Errorf("Set Theme %q: this renderer knows only %s — pick one or render with VHS (go tool task demo)", val, themeNames())
		}
		s.Theme = val
	case "WaitTimeout":
		s.WaitTimeout, err = parseDuration(val)
	case "WaitPattern":
		s.WaitPattern, err = regexp.Compile(val)
	default:
		// VHS's parser knows every setting; these shape a browser's
		// window, which this renderer does not draw.
		return fmt.Errorf("Set %s is a VHS setting this renderer does not support — drop it or render with VHS (go tool task demo)", key)
	}
	return err
}

// wait takes a Wait line: args is what VHS's parser gives, "Line" or
// "Screen" and, after a space, the regular expression.
func (t *Tape) wait(line int, args string, timeout time.Duration, hasTimeout bool) error {
	c := Command{Line: line, Kind: CmdWait, Duration: t.Settings.WaitTimeout, Pattern: t.Settings.WaitPattern}
	scope, pattern, hasPattern := strings.Cut(args, " ")
	c.Screen = scope == "Screen"
	if hasTimeout {
		c.Duration = timeout
	}
	if hasPattern {
		re, err := regexp.Compile(pattern)
		if err != nil { // VHS's parser compiled it already
			return fmt.Errorf("Wait+%s /%s/: %w", scope, pattern, err)
		}
		c.Pattern = re
	}
	t.Commands = append(t.Commands, c)
	return nil
}

// parseDuration reads VHS durations: "2s", "600ms", or a bare number of
// seconds ("0.5").
func parseDuration(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("negative duration %s", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration — write it like 2s, 500ms or 0.5", s)
	}
	return d, nil
}

// namedKeys are the bytes an xterm sends for VHS's key names.
var namedKeys = map[string]string{
	"Enter": "\r", "Tab": "\t", "Space": " ", "Backspace": "\x7f", "Escape": "\x1b",
	"Delete": "\x1b[3~", "Insert": "\x1b[2~", "Up": "\x1b[A", "Down": "\x1b[B",
	"Right": "\x1b[C", "Left": "\x1b[D", "Home": "\x1b[H", "End": "\x1b[F",
	"PageUp": "\x1b[5~", "PageDown": "\x1b[6~",
}

// keySequence returns the bytes for a key like Enter, Ctrl+C, Alt+t,
// Shift+Tab or Ctrl+Alt+x.
func keySequence(name string) (string, bool) {
	if k, ok := namedKeys[name]; ok {
		return k, true
	}
	parts := strings.Split(name, "+")
	if len(parts) < 2 {
		return "", false
	}
	key := parts[len(parts)-1]
	var ctrl, alt, shift bool
	for _, m := range parts[:len(parts)-1] {
		switch m {
		case "Ctrl":
			ctrl = true
		case "Alt":
			alt = true
		case "Shift":
			shift = true
		default:
			return "", false
		}
	}
	var seq string
	if k, ok := namedKeys[key]; ok {
		seq = k
		if shift && key == "Tab" {
			seq = "\x1b[Z"
		}
		if ctrl && key == "Space" {
			seq = "\x00"
		}
	} else if utf8.RuneCountInString(key) == 1 {
		r, _ := utf8.DecodeRuneInString(key)
		if shift {
			r = []rune(strings.ToUpper(string(r)))[0]
		}
		seq = string(r)
		if ctrl {
			c, ok := controlByte(r)
			if !ok {
				return "", false
			}
			seq = string(rune(c))
		}
	} else {
		return "", false
	}
	if alt {
		seq = "\x1b" + seq
	}
	return seq, true
}

func controlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= 'A' && r <= 'Z':
		return byte(r-'A') + 1, true
	case r == '@' || r == ' ':
		return 0, true
	case r >= '[' && r <= '_':
		return byte(r-'[') + 0x1b, true
	}
	return 0, false
}
