package demogif

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
)

// Result says what [Play] made.
type Result struct {
	Path     string        // the GIF written
	Frames   int           // frames in it
	Duration time.Duration // how long it plays
	Bytes    int64         // its size
	Cols     int           // the terminal's size
	Rows     int
	// Unhandled counts the control sequences the screen ignored, for a
	// renderer to report when a frame looks wrong.
	Unhandled map[string]int
	// Missing lists the characters the fonts lack, drawn as hollow boxes.
	Missing []rune
}

// Options tune [Play].
type Options struct {
	// Dir is the directory the shell starts in and relative Output paths
	// resolve against; "" is the current directory.
	Dir string
	// Log receives one line per command played; nil discards them.
	Log io.Writer
	// Output overrides the tape's Output path when set.
	Output string
	// Transcript, when set, receives every byte the programs wrote to the
	// terminal: the input of the screen's golden tests.
	Transcript io.Writer
}

// Play runs the tape: it starts the tape's shell in a pseudo-terminal of
// the tape's size, plays the commands at the tape's pace, records the
// screen about Framerate times a second while it is shown and changing,
// and writes the GIF.
func Play(ctx context.Context, t *Tape, opts Options) (*Result, error) {
	logf := func(format string, a ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, format+"\n", a...)
		}
	}
	for _, prog := range t.Require {
		if _, err := exec.LookPath(prog); err != nil {
			return nil, fmt.Errorf("the tape requires %s, which is not on PATH — build it and put its directory on PATH (go tool task demo:gif does both for chorus)", prog)
		}
	}
	frames, err := NewFrames(t.Settings)
	if err != nil {
		return nil, err
	}
	cols, rows := frames.Size()
	out := t.Output
	if opts.Output != "" {
		out = opts.Output
	}
	if !filepath.IsAbs(out) && opts.Dir != "" {
		out = filepath.Join(opts.Dir, out)
	}

	cmd, err := shellCommand(t.Settings.Shell)
	if err != nil {
		return nil, err
	}
	cmd.Dir = opts.Dir
	cmd.Env = append(environ(),
		"TERM=xterm-256color",
		"COLUMNS="+strconv.Itoa(cols), "LINES="+strconv.Itoa(rows),
		// VHS's prompt: a coloured "> " that Wait's default pattern matches.
		`PS1=\[\e[38;2;90;86;224m\]> \[\e[0m\]`,
		"HISTFILE=/dev/null",
	)
	cmd.Env = append(cmd.Env, t.Env...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{
		Rows: uint16(rows), Cols: uint16(cols),
		X: uint16(t.Settings.Width), Y: uint16(t.Settings.Height),
	})
	if err != nil {
		return nil, fmt.Errorf("start %s in a pseudo-terminal: %w", t.Settings.Shell, err)
	}
	p := &player{
		screen: NewScreen(cols, rows, ptmx),
		frames: frames,
		pty:    ptmx,
		tee:    opts.Transcript,
		shown:  true,
		start:  time.Now(),
	}
	th := themes[t.Settings.Theme]
	p.screen.SetDefaultColors([3]uint8{th.Foreground.R, th.Foreground.G, th.Foreground.B},
		[3]uint8{th.Background.R, th.Background.G, th.Background.B})

	readDone := make(chan struct{})
	go p.read(readDone)
	// Like VHS, start once the shell has drawn its prompt and gone quiet:
	// the first keys do not echo before it, and the wait is not recorded.
	playErr := p.settle(ctx, 5*time.Second)
	p.mu.Lock()
	p.start = time.Now()
	p.mu.Unlock()
	stopTick := make(chan struct{})
	tickDone := make(chan struct{})
	go p.tick(time.Second/time.Duration(t.Settings.Framerate), stopTick, tickDone)

	if playErr == nil {
		playErr = p.play(ctx, t, logf)
	}

	close(stopTick)
	<-tickDone
	p.mu.Lock()
	p.snapshot()
	end := p.clock()
	unhandled := p.screen.Unhandled()
	// What the programs write from here on (their goodbyes as they hang
	// up) is not part of the recording.
	p.stopped = true
	p.mu.Unlock()

	hangUp(ptmx, cmd)
	<-readDone
	_ = p.screen.Close()
	if playErr != nil {
		return nil, playErr
	}

	if dir := filepath.Dir(out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("make the GIF's directory: %w", err)
		}
	}
	tmp := out + ".tmp"
	file, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("write the GIF: %w", err)
	}
	encErr := frames.Encode(file, end)
	closeErr := file.Close()
	if err := errors.Join(encErr, closeErr); err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return nil, fmt.Errorf("write %s: %w", out, err)
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil, err
	}
	return &Result{Path: out, Frames: frames.Len(), Duration: end, Bytes: st.Size(), Cols: cols, Rows: rows, Unhandled: unhandled, Missing: frames.Missing()}, nil
}

// environ is the renderer's environment without what would make the
// recording depend on the machine it runs on: the user's colour opt-outs
// and terminal multiplexers.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TERM", "COLUMNS", "LINES", "PS1", "PROMPT_COMMAND", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
			"TMUX", "STY", "TERM_PROGRAM", "COLORTERM", "HISTFILE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// shellCommand starts the tape's shell without the user's start-up files,
// as VHS does, so the recording does not depend on them.
func shellCommand(shell string) (*exec.Cmd, error) {
	switch shell {
	case "bash":
		return exec.Command("bash", "--noprofile", "--norc", "+o", "history"), nil
	case "sh":
		return exec.Command("sh"), nil
	}
	return nil, fmt.Errorf("Set Shell %q: this renderer starts bash or sh — use one of them or render with VHS (go tool task demo)", shell)
}

// player plays one tape; mu guards the screen, the frames and the clock.
type player struct {
	mu     sync.Mutex
	screen *Screen
	frames *Frames
	pty    *os.File
	tee    io.Writer

	shown      bool
	start      time.Time     // when the current shown stretch began
	shownTotal time.Duration // shown time before it
	syncSince  time.Time     // when a synchronized update began
	lastWrite  time.Time     // when the program last wrote
	stopped    bool          // the recording is over
}

// clock is the recording's time: how long the tape has been shown, so
// hidden stretches take no time in the GIF.
func (p *player) clock() time.Duration {
	if !p.shown {
		return p.shownTotal
	}
	return p.shownTotal + time.Since(p.start)
}

// settle waits until the screen shows something and nothing has been
// written for a moment, or until limit passes.
func (p *player) settle(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		ready := p.screen.String() != "" && time.Since(p.lastWrite) > 200*time.Millisecond
		p.mu.Unlock()
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

func (p *player) read(done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 32*1024)
	for {
		n, err := p.pty.Read(buf)
		if n > 0 {
			p.mu.Lock()
			if p.stopped {
				p.mu.Unlock()
				continue
			}
			_, _ = p.screen.Write(buf[:n])
			if p.tee != nil {
				_, _ = p.tee.Write(buf[:n])
			}
			p.lastWrite = time.Now()
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// maxSync is how long a synchronized update may hold back frames: a
// program that never ends one still gets recorded.
const maxSync = 500 * time.Millisecond

func (p *player) tick(every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.screen.Synchronizing() {
				if p.syncSince.IsZero() {
					p.syncSince = time.Now()
				}
				if time.Since(p.syncSince) < maxSync {
					p.mu.Unlock()
					continue
				}
			} else {
				p.syncSince = time.Time{}
			}
			p.snapshot()
			p.mu.Unlock()
		}
	}
}

// snapshot records the screen as a frame when it is shown; mu is held.
func (p *player) snapshot() {
	if !p.shown {
		return
	}
	x, y, vis := p.screen.Cursor()
	p.frames.Add(p.screen.Snapshot(), x, y, vis, p.clock())
}

func (p *player) play(ctx context.Context, t *Tape, logf func(string, ...any)) error {
	speed := t.Settings.TypingSpeed
	sleep := func(d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}
	send := func(s string) error {
		_, err := io.WriteString(p.pty, s)
		if err != nil {
			return fmt.Errorf("type into the terminal: %w", err)
		}
		return nil
	}
	for _, c := range t.Commands {
		pace := speed
		if c.Speed > 0 {
			pace = c.Speed
		}
		switch c.Kind {
		case CmdType:
			logf("line %d: Type %q", c.Line, c.Text)
			for _, r := range c.Text {
				if err := send(string(r)); err != nil {
					return err
				}
				if err := sleep(pace); err != nil {
					return err
				}
			}
		case CmdKey:
			logf("line %d: %s ×%d", c.Line, c.Name, c.Repeat)
			for range c.Repeat {
				if err := send(c.Keys); err != nil {
					return err
				}
				if err := sleep(pace); err != nil {
					return err
				}
			}
		case CmdSleep:
			logf("line %d: Sleep %s", c.Line, c.Duration)
			if err := sleep(c.Duration); err != nil {
				return err
			}
		case CmdTypingSpeed:
			speed = c.Duration
		case CmdHide, CmdShow:
			p.mu.Lock()
			show := c.Kind == CmdShow
			switch {
			case show && !p.shown:
				p.shown, p.start = true, time.Now()
				p.snapshot()
			case !show && p.shown:
				p.snapshot()
				p.shownTotal += time.Since(p.start)
				p.shown = false
			}
			p.mu.Unlock()
		case CmdWait:
			logf("line %d: Wait for /%s/", c.Line, c.Pattern)
			if err := p.wait(ctx, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// wait polls the screen until the command's pattern matches it (or its
// last non-empty line) or the command's timeout passes.
func (p *player) wait(ctx context.Context, c Command) error {
	deadline := time.Now().Add(c.Duration)
	for {
		p.mu.Lock()
		text := p.screen.String()
		p.mu.Unlock()
		target := text
		if !c.Screen {
			lines := strings.Split(strings.TrimRight(text, "\n "), "\n")
			target = lines[len(lines)-1]
		}
		if c.Pattern.MatchString(target) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("line %d: /%s/ did not appear on the screen within %s; the screen was:\n%s", c.Line, c.Pattern, c.Duration, text)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
