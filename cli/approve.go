package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
)

// A tool that may change things runs in `chorus run` once the user says
// so: on a terminal (stdin and stderr both one) the run asks as the TUI
// does — "Run everything.get-sum? y run · a always · n no" — and waits for
// one key. --allow-tool still lets a tool run unasked; without a terminal
// (a script, a pipe) nobody can answer, and a tool it does not name is
// refused saying so (pipeline.AllowTools).

// errDeclined is the answer when the user says no.
var errDeclined = errors.New("you declined it")

// asker asks the person at the terminal whether a tool may run. Tasks run
// in parallel: one question at a time, and a tool allowed "always" is not
// asked about again in this run.
type asker struct {
	in    *os.File
	out   io.Writer
	allow func(context.Context, pipeline.Approval) error // --allow-tool

	mu     sync.Mutex
	always []string
	// keys are the bytes typed at the terminal, read by one goroutine for
	// the whole run (started with the first question): a read cannot be
	// cancelled, so a question that ends unanswered leaves it for the next.
	keys     chan byte
	readOnce sync.Once
}

// newAsker asks on the terminal in (its stdin) and out (its stderr);
// allowed are the --allow-tool patterns, run unasked.
func newAsker(in *os.File, out io.Writer, allowed []string) *asker {
	return &asker{in: in, out: out, allow: pipeline.AllowTools(allowed), keys: make(chan byte, 64)}
}

// terminalAsker is the asker of a run whose stdin and stderr are a
// terminal, nil otherwise.
func terminalAsker(in io.Reader, stderr io.Writer, allowed []string) *asker {
	f, ok := in.(*os.File)
	if !ok || !readerIsTerminal(f) || !isTerminal(stderr) {
		return nil
	}
	return newAsker(f, stderr, allowed)
}

// approve is the turn's Approve hook: nil runs the tool.
func (k *asker) approve(ctx context.Context, a pipeline.Approval) error {
	if k.allow(ctx, a) == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if slices.Contains(k.always, a.Tool) {
		return nil
	}
	k.readOnce.Do(func() { go k.read() })
	for drained := false; !drained; { // keys typed before the question
		select {
		case <-k.keys:
		default:
			drained = true
		}
	}
	fmt.Fprint(k.out, question(a))
	restore, err := keyMode(k.in)
	if err == nil {
		defer restore()
	}
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(k.out)
			return ctx.Err()
		case c, ok := <-k.keys:
			if !ok {
				fmt.Fprintln(k.out)
				return errors.New("the terminal closed before you answered")
			}
			switch c {
			case 'y', 'Y':
				fmt.Fprintln(k.out, "yes")
				return nil
			case 'a', 'A':
				k.always = append(k.always, a.Tool)
				fmt.Fprintf(k.out, "always — %s runs unasked for the rest of this run\n", text.Clean(a.Tool))
				return nil
			case 'n', 'N', 0x1b: // Esc says no, as in the TUI's dialog
				fmt.Fprintln(k.out, "no")
				return errDeclined
			}
		}
	}
}

// read passes every byte typed at the terminal to keys until it closes.
func (k *asker) read() {
	b := make([]byte, 1)
	for {
		n, err := k.in.Read(b)
		if n == 1 {
			k.keys <- b[0]
		}
		if err != nil {
			close(k.keys)
			return
		}
	}
}

// question is what the terminal shows: the task, why it asks, the call's
// arguments, and the keys — the TUI's dialog in lines.
func question(a pipeline.Approval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ntask %d %s: %s\n", a.ID, a.Task, a.Reason)
	if len(a.Args) > 0 {
		fmt.Fprintf(&b, "  %s\n", formatArgs(a.Args))
	}
	fmt.Fprintf(&b, "Run %s? y run · a always · n no ", a.Tool)
	return text.Clean(b.String())
}
