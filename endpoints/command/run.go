package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// run is one process a call starts: the program, or ffmpeg converting its
// input.
type run struct {
	path  string
	args  []string
	stdin *string
	// label names the process in messages: the program's name, or ffmpeg.
	label string
	// watch is a file the process writes, bounded like its output.
	watch string
}

var (
	errOutputTooLarge = errors.New("output too large")
	errTimedOut       = errors.New("the program's time limit passed")
)

// exitError is a process that ended with a failure status: line is the
// last line of its error output, cleaned for a terminal.
type exitError struct {
	label  string
	err    error
	line   string
	tail   string
	stdout []byte
}

func (e *exitError) Error() string { return fmt.Sprintf("%s failed (%v): %s", e.label, e.err, e.line) }

func (e *exitError) Unwrap() error { return e.err }

// exec runs r in the call's scratch directory: argv as given, never a
// shell; the environment allow-list of every program Chorus starts; its
// own process group, killed whole when ctx ends (a task cancelled, the
// program's time limit) or when its output passes the limit; stdout
// returned, bounded.
func (e *Endpoint) exec(ctx context.Context, c *call, r run) ([]byte, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cmd := exec.CommandContext(ctx, r.path, r.args...)
	cmd.Dir = c.dir
	cmd.Env = endpoints.ChildEnv(e.environ(), c.prog.env)
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	cmd.WaitDelay = 2 * time.Second // do not wait forever on pipes a grandchild holds
	if r.stdin != nil {
		cmd.Stdin = strings.NewReader(*r.stdin)
	} // else /dev/null: a program that waits for input fails instead of hanging
	stdout := &boundedBuffer{max: e.opts.MaxOutputBytes, overflow: func() { cancel(errOutputTooLarge) }}
	stderr := &boundedBuffer{max: 16 << 10, keepTail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: cannot start %s: %w", endpoints.ErrUnavailable, r.path, err)
	}
	if e.opts.Started != nil {
		e.opts.Started(r.label, cmd.Process.Pid)
	}
	var watch sync.WaitGroup
	stopWatch := make(chan struct{})
	if r.watch != "" {
		watch.Go(func() { e.watchSize(ctx, r.watch, stopWatch, cancel) })
	}
	err := cmd.Wait()
	close(stopWatch)
	watch.Wait()
	killGroup(cmd) // what it left running in its group goes with it

	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errOutputTooLarge):
		return nil, fmt.Errorf("%s: %w (more than %s) — give it a shorter input", r.label, errOutputTooLarge, skills.HumanBytes(e.opts.MaxOutputBytes))
	case errors.Is(cause, errTimedOut):
		return nil, endpoints.Explain(fmt.Sprintf("%s did not finish within %s and was stopped — give it a shorter input, or raise its timeout (command.programs)",
			r.label, c.prog.TimeoutLimit()), endpoints.ErrUnavailable, context.DeadlineExceeded)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", r.label, cause)
	case err != nil:
		return nil, e.failure(c, r, err, stdout.Bytes(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// failure is the error of a process that exited with a failure status:
// its error output's last line, cleaned; the input's fault (ErrBadInput)
// when the declaration's bad_input names a phrase of it.
func (e *Endpoint) failure(c *call, r run, err error, stdout []byte, stderr string) error {
	line := lastLine(stderr)
	if line == "" {
		line = "no error message"
	}
	if r.label == c.prog.Name {
		for phrase, what := range c.prog.BadInput {
			if strings.Contains(stderr, phrase) {
				return fmt.Errorf("%w: %s: %s", endpoints.ErrBadInput, c.prog.Name, what)
			}
		}
	}
	return &exitError{label: r.label, err: err, line: line, tail: stderr, stdout: stdout}
}

// lastLine is the last non-empty line of s, cleaned of terminal controls
// and clipped: what a program's failure is told with.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(text.Clean(strings.ToValidUTF8(lines[i], "?"))); l != "" {
			return text.Clip(l, 300)
		}
	}
	return ""
}

func (e *Endpoint) environ() []string {
	if e.opts.Environ != nil {
		return e.opts.Environ
	}
	return os.Environ()
}

// watchSize kills the process (through cancel) once path is over the limit.
func (e *Endpoint) watchSize(ctx context.Context, path string, stop <-chan struct{}, cancel context.CancelCauseFunc) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			if fi, err := os.Stat(path); err == nil && fi.Size() > e.opts.MaxOutputBytes {
				cancel(errOutputTooLarge)
				return
			}
		}
	}
}

// boundedBuffer keeps at most max bytes: the head (stdout, which then
// fails the run and kills the program) or the tail (stderr, where the
// error usually is).
type boundedBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	max      int64
	keepTail bool
	// overflow is called once when a head-keeping buffer passes max.
	overflow func()
	over     bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.keepTail {
		b.buf.Write(p)
		if over := int64(b.buf.Len()) - b.max; over > 0 {
			rest := slices.Clone(b.buf.Bytes()[over:])
			b.buf.Reset()
			b.buf.Write(rest)
		}
		return len(p), nil
	}
	if int64(b.buf.Len()+len(p)) > b.max {
		if !b.over && b.overflow != nil {
			b.overflow()
		}
		b.over = true
		return 0, errOutputTooLarge // stops the copy; the program is killed
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.buf.Bytes())
}

func (b *boundedBuffer) String() string { return string(b.Bytes()) }

// acquire takes one of the program's run slots, saying so when it must
// wait for one.
func acquire(ctx context.Context, c *call) (release func(), err error) {
	slots := c.prog.slots
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	default:
	}
	if c.req.Progress != nil {
		c.req.Progress(endpoints.Progress{Message: fmt.Sprintf("waiting for %s: it runs %d at a time", c.prog.Name, cap(slots)), Passing: true})
	}
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
