package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// stdioTransport starts the server's program and speaks newline-delimited
// JSON-RPC on its standard input and output. Chorus starts the process
// itself (rather than the SDK's CommandTransport) to give it a minimal
// environment, its own process group, a bounded reader that tells a
// message over the bound and output that is not JSON-RPC from a crash, and
// the tail of its standard error for messages.
type stdioTransport struct {
	srv   *server
	ended *endReason
	proc  *process
}

// startErr is a start failure already explained for the user.
type startErr struct{ err error }

func (e *startErr) Error() string { return e.err.Error() }

// Connect implements sdk.Transport.
func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	p, err := startProcess(t.srv.cfg, t.ended, t.srv.opts.MaxMessage, t.srv.asked)
	if err != nil {
		return nil, &startErr{err}
	}
	t.proc = p
	return (&sdk.IOTransport{Reader: p.out, Writer: p, MaxLineLength: -1}).Connect(ctx)
}

// stop ends a process whose handshake failed.
func (t *stdioTransport) stop() {
	if t.proc != nil {
		_ = t.proc.Close()
	}
}

// process is a started stdio server. Close (the SDK's way to end the
// session) closes its standard input, then signals its process group.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	out    *lineReader
	stderr *tailBuffer
	// stderrDone closes when standard error has been read to its end.
	stderrDone chan struct{}
	exited     chan struct{}
	// exitErr is cmd.Wait's result, read after exited closes.
	exitErr error
	ended   *endReason
	once    sync.Once
}

// Environ returns the environment of a stdio server: PATH, HOME, the user
// and the locale (LANG, LC_*) from Chorus's own, then the server's env —
// the allow-list every program Chorus starts gets (endpoints.ChildEnv).
func Environ(own []string, extra map[string]string) []string {
	return endpoints.ChildEnv(own, extra)
}

func startProcess(cfg Server, ended *endReason, maxMessage int, asked *rootsAsk) (*process, error) {
	env := Environ(os.Environ(), cfg.Env)
	path, err := lookPath(cfg.Command, env)
	if err != nil {
		return nil, failf(endpoints.ErrUnreachable, "the MCP server %s cannot start: %s is not installed or not on PATH — install it, or fix %s.command", cfg.Name, cfg.Command, cfg.key())
	}
	cmd := exec.Command(path, cfg.Args...) //nolint:noctx // the server lives until Close, which stops it gently (process.Close), not when a call's context ends
	cmd.Args[0] = cfg.Command
	cmd.Env = env
	cmd.Dir = cfg.Dir
	cmd.SysProcAttr = procAttr()
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child has its copies; the parent keeps only its ends, so the
	// server's exit closes its output.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, failf(endpoints.ErrUnreachable, "the MCP server %s cannot start %s: %v — fix %s.command", cfg.Name, cfg.Command, err, cfg.key())
	}
	p := &process{cmd: cmd, stdin: inW, stderr: &tailBuffer{max: 4 << 10, lines: asked.logged}, stderrDone: make(chan struct{}), exited: make(chan struct{}), ended: ended}
	p.out = &lineReader{r: bufio.NewReaderSize(outR, 64<<10), f: outR, max: maxMessage, ended: ended, name: cfg.Name, proc: p, asked: asked}
	go func() {
		_, _ = io.Copy(p.stderr, errR)
		errR.Close()
		close(p.stderrDone)
	}()
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// lookPath finds the program on the server's PATH (the same as Chorus's).
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range strings.Split(v, ":") {
				if dir == "" {
					dir = "."
				}
				p := dir + "/" + name
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
					return p, nil
				}
			}
		}
	}
	return "", exec.ErrNotFound
}

// Write sends to the server's standard input.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the server as MCP asks of a client: standard input closed,
// then SIGTERM, then SIGKILL, to its whole process group (npx's node
// too).
func (p *process) Close() error {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(2 * time.Second):
			signalGroup(p.cmd, false)
			select {
			case <-p.exited:
			case <-time.After(2 * time.Second):
				signalGroup(p.cmd, true)
				<-p.exited
			}
		}
		// A child the server left behind holding the group.
		signalGroup(p.cmd, true)
	})
	return nil
}

// exitReason says how the process ended, with the tail of its standard
// error, once it has.
func (p *process) exitReason() error {
	// Its output ended: it is exiting. A loaded machine may take a
	// moment to tell.
	select {
	case <-p.exited:
	case <-time.After(3 * time.Second):
		return nil
	}
	// Its last words, unless something it started still holds the pipe.
	select {
	case <-p.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	status := "it exited"
	if p.exitErr != nil {
		status = "it exited (" + p.exitErr.Error() + ")"
	}
	if tail := p.stderr.tail(); tail != "" {
		return fmt.Errorf("%s; its last words: %s", status, tail)
	}
	return errors.New(status)
}

// lineReader hands the SDK one JSON-RPC message per line, each checked:
// a line over the bound, or one that is not JSON, ends the session with
// that cause (recorded in ended) instead of a bare "connection closed".
type lineReader struct {
	r       *bufio.Reader
	f       *os.File
	max     int
	pending []byte
	ended   *endReason
	name    string
	proc    *process
	// asked counts the server's requests for the roots (roots.go).
	asked *rootsAsk
}

func (l *lineReader) Read(b []byte) (int, error) {
	for len(l.pending) == 0 {
		line, err := l.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if why := l.proc.exitReason(); why != nil {
					l.ended.set(why)
				}
			}
			return 0, err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if !json.Valid(trimmed) {
			err := fmt.Errorf("it wrote something that is not MCP (JSON-RPC) on its standard output: %q", text.Clip(text.Clean(string(trimmed)), 120))
			l.ended.set(err)
			return 0, err
		}
		if l.asked != nil && bytes.Contains(trimmed, []byte(`"roots/list"`)) {
			l.asked.ask()
		}
		l.pending = append(trimmed, '\n')
	}
	n := copy(b, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// readLine reads one line, refusing one longer than max.
func (l *lineReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(line)+len(chunk) > l.max {
			err := fmt.Errorf("it sent a message over %s (the limit for one message) — the call was stopped", skills.HumanBytes(int64(l.max)))
			l.ended.set(err)
			return nil, err
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(line) > 0 && errors.Is(err, io.EOF):
			return line, nil
		default:
			return nil, err
		}
	}
}

// Close closes the reading end.
func (l *lineReader) Close() error { return l.f.Close() }

// tailBuffer keeps the last bytes written to it: a server's standard
// error, shown (cleaned) when it fails. It is never logged.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
	// lines, when set, is told of every line written (roots.go).
	lines func(n int)
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	if t.lines != nil {
		defer t.lines(bytes.Count(b, []byte{'\n'}))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = slices.Clone(t.buf[len(t.buf)-t.max:])
	}
	return len(b), nil
}

// tail is the last lines, cleaned, on one line.
func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(text.Clean(string(t.buf))), "\n")
	if len(lines) > 4 {
		lines = lines[len(lines)-4:]
	}
	s := strings.Join(strings.Fields(strings.Join(lines, " ")), " ")
	if r := []rune(s); len(r) > 300 {
		s = "…" + string(r[len(r)-299:])
	}
	return s
}

// stderrHint adds the tail of a stdio server's standard error to a start
// failure.
func stderrHint(t *stdioTransport) string {
	if t == nil || t.proc == nil {
		return ""
	}
	if tail := t.proc.stderr.tail(); tail != "" {
		return "; its standard error says: " + tail
	}
	return ""
}
