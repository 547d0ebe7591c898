package demogif

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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

func (e *TapeError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// unsupported are VHS commands this renderer knows but does not play.
var unsupported = map[string]bool{
	"Screenshot": true, "Copy": true, "Paste": true, "Source": true,
	"ScrollUp": true, "ScrollDown": true,
}

// ParseTape reads a tape. name is used in errors ("docs/demo.tape:12: …").
func ParseTape(name string, r io.Reader) (*Tape, error) {
	t := &Tape{Settings: DefaultSettings()}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		toks, err := lex(text)
		if err != nil {
			return nil, &TapeError{name, line, err.Error()}
		}
		if err := t.parseLine(line, toks); err != nil {
			return nil, &TapeError{name, line, err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if t.Output == "" {
		return nil, &TapeError{name, line, `the tape names no GIF to write — add a line like: Output demo.gif`}
	}
	return t, nil
}

// token is a word, a quoted string or a /regex/ of a tape line.
type token struct {
	text   string
	quoted bool
	regex  bool
}

func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '"' || c == '\'' || c == '`':
			end := strings.IndexByte(s[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("unterminated string %s — close it with %c", s[i:], c)
			}
			toks = append(toks, token{text: s[i+1 : i+1+end], quoted: true})
			i += end + 2
		case c == '/' && len(toks) > 0 && strings.HasPrefix(toks[0].text, "Wait"):
			j := i + 1
			for ; j < len(s) && s[j] != '/'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated regular expression %s — close it with /", s[i:])
			}
			toks = append(toks, token{text: s[i+1 : j], regex: true})
			i = j + 1
		default:
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			toks = append(toks, token{text: s[i:j]})
			i = j
		}
	}
	return toks, nil
}

func (t *Tape) parseLine(line int, toks []token) error {
	word := toks[0].text
	args := toks[1:]
	name, speedText, hasSpeed := strings.Cut(word, "@")
	var speed time.Duration
	if hasSpeed {
		d, err := parseDuration(speedText)
		if err != nil {
			return fmt.Errorf("%s: %w", word, err)
		}
		speed = d
	}
	switch name {
	case "Output":
		if len(args) != 1 {
			return fmt.Errorf("Output takes one path, like: Output demo.gif")
		}
		if !strings.HasSuffix(strings.ToLower(args[0].text), ".gif") {
			return fmt.Errorf("Output %s: this renderer writes only GIFs — render other formats with VHS (go tool task demo)", args[0].text)
		}
		t.Output = args[0].text
		return nil
	case "Require":
		if len(args) != 1 {
			return fmt.Errorf("Require takes one program, like: Require chorus")
		}
		t.Require = append(t.Require, args[0].text)
		return nil
	case "Env":
		if len(args) != 2 {
			return fmt.Errorf(`Env takes a name and a value, like: Env NO_COLOR "1"`)
		}
		t.Env = append(t.Env, args[0].text+"="+args[1].text)
		return nil
	case "Set":
		return t.parseSet(line, args)
	case "Type":
		if len(args) == 0 {
			return fmt.Errorf(`Type takes a string, like: Type "echo hi"`)
		}
		var b strings.Builder
		for i, a := range args {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(a.text)
		}
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdType, Text: b.String(), Speed: speed})
		return nil
	case "Sleep":
		if len(args) != 1 {
			return fmt.Errorf("Sleep takes a duration, like: Sleep 2s")
		}
		d, err := parseDuration(args[0].text)
		if err != nil {
			return fmt.Errorf("Sleep: %w", err)
		}
		t.Commands = append(t.Commands, Command{Line: line, Kind: CmdSleep, Duration: d})
		return nil
	case "Hide", "Show":
		if len(args) != 0 {
			return fmt.Errorf("%s takes no arguments", name)
		}
		kind := CmdHide
		if name == "Show" {
			kind = CmdShow
		}
		t.Commands = append(t.Commands, Command{Line: line, Kind: kind})
		return nil
	}
	if name == "Wait" || strings.HasPrefix(name, "Wait+") {
		return t.parseWait(line, name, speed, hasSpeed, args)
	}
	if keys, ok := keySequence(name); ok {
		c := Command{Line: line, Kind: CmdKey, Keys: keys, Name: name, Repeat: 1, Speed: speed}
		if len(args) > 1 || len(args) == 1 && args[0].quoted {
			return fmt.Errorf("%s takes at most a repeat count, like: %s 3", name, name)
		}
		if len(args) == 1 {
			n, err := strconv.Atoi(args[0].text)
			if err != nil || n < 1 {
				return fmt.Errorf("%s %s: the repeat count must be a positive number", name, args[0].text)
			}
			c.Repeat = n
		}
		t.Commands = append(t.Commands, c)
		return nil
	}
	if unsupported[name] {
		return fmt.Errorf("%s is a VHS command this renderer does not play — render this tape with VHS (go tool task demo) or leave it out", name)
	}
	return fmt.Errorf("unknown command %q — this renderer plays Output, Require, Env, Set, Type, Sleep, Hide, Show, Wait and keys (Enter, Tab, Space, Backspace, Escape, arrows, Ctrl+X, Alt+X)", word)
}

func (t *Tape) parseSet(line int, args []token) error {
	if len(args) < 2 {
		return fmt.Errorf("Set takes a setting and a value, like: Set FontSize 15")
	}
	key, val := args[0].text, args[1].text
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
	case "FontFamily", "LetterSpacing", "CursorBlink", "WindowBar", "WindowBarSize",
		"BorderRadius", "Margin", "MarginFill", "LoopOffset", "PlaybackSpeed":
		return fmt.Errorf("Set %s is a VHS setting this renderer does not support — drop it or render with VHS (go tool task demo)", key)
	default:
		return fmt.Errorf("unknown setting %q", key)
	}
	return err
}

func (t *Tape) parseWait(line int, name string, timeout time.Duration, hasTimeout bool, args []token) error {
	c := Command{Line: line, Kind: CmdWait, Duration: t.Settings.WaitTimeout, Pattern: t.Settings.WaitPattern}
	switch name {
	case "Wait", "Wait+Line":
	case "Wait+Screen":
		c.Screen = true
	default:
		return fmt.Errorf("%s: Wait watches the Line or the Screen (Wait+Line, Wait+Screen)", name)
	}
	if hasTimeout {
		c.Duration = timeout
	}
	if len(args) > 1 || len(args) == 1 && !args[0].regex {
		return fmt.Errorf("%s takes at most a /regular expression/", name)
	}
	if len(args) == 1 {
		re, err := regexp.Compile(args[0].text)
		if err != nil {
			return fmt.Errorf("%s /%s/: %w", name, args[0].text, err)
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
