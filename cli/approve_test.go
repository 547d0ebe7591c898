//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/pipeline"
)

// openPTY is a terminal for a test: tty is the side chorus reads and
// writes (stdin and stderr), ptmx the side the person types at and reads.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { _ = ptmx.Close(); _ = tty.Close() })
	return ptmx, tty
}

// screen reads what chorus writes to the terminal, and waits for text.
type screen struct {
	t     *testing.T
	lines chan string
}

func newScreen(t *testing.T, ptmx *os.File) *screen {
	s := &screen{t: t, lines: make(chan string, 256)}
	go func() {
		r := bufio.NewReader(ptmx)
		var b strings.Builder
		for {
			c, err := r.ReadByte()
			if err != nil {
				close(s.lines)
				return
			}
			b.WriteByte(c)
			// The question ends without a newline: it waits on its line.
			if c == '\n' || strings.HasSuffix(b.String(), "n no ") {
				s.lines <- b.String()
				b.Reset()
			}
		}
	}()
	return s
}

// waitFor returns the text up to the line that contains want.
func (s *screen) waitFor(want string) string {
	s.t.Helper()
	var all strings.Builder
	deadline := time.After(guard)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the terminal closed before %q:\n%s", want, all.String())
			}
			all.WriteString(l)
			if strings.Contains(l, want) {
				return all.String()
			}
		case <-deadline:
			s.t.Fatalf("no %q on the terminal:\n%s", want, all.String())
		}
	}
}

// guard bounds waits that end at once in a working build.
const guard = 20 * time.Second

// TestRunAsksOnATerminal: on a terminal, a tool that may change things is
// asked about as the TUI asks — y runs it, n declines it, a runs it and
// every later call of the same tool unasked; a tool --allow-tool names is
// not asked about; Ctrl+C (the run's context) ends the question, and the
// terminal is as it was.
func TestRunAsksOnATerminal(t *testing.T) {
	t.Parallel()
	ptmx, tty := openPTY(t)
	scr := newScreen(t, ptmx)
	k := newAsker(tty, tty, []string{"fs.*"})
	sum := pipeline.Approval{ID: 1, Task: "everything.get-sum", Tool: "everything.get-sum",
		Reason: "it is not annotated read-only, so it may change things", Args: map[string]string{"a": "2", "b": "3"}}
	ask := func(a pipeline.Approval, key string) error {
		t.Helper()
		got := make(chan error, 1)
		go func() { got <- k.approve(context.Background(), a) }()
		if key != "" {
			said := scr.waitFor("n no ")
			for _, want := range []string{"Run " + a.Tool + "? y run · a always · n no ", a.Reason, "a=2"} {
				if !strings.Contains(said, want) {
					t.Errorf("the question lacks %q:\n%s", want, said)
				}
			}
			if _, err := io.WriteString(ptmx, key); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case err := <-got:
			return err
		case <-time.After(guard):
			t.Fatalf("no answer to %s after %q", a.Tool, key)
			return nil
		}
	}
	if err := ask(sum, "y"); err != nil {
		t.Errorf("y: %v", err)
	}
	if err := ask(sum, "n"); err == nil || !strings.Contains(err.Error(), "you declined it") {
		t.Errorf("n: %v", err)
	}
	if err := ask(sum, "a"); err != nil {
		t.Errorf("a: %v", err)
	}
	if err := ask(sum, ""); err != nil { // always: no question
		t.Errorf("after a: %v", err)
	}
	if err := ask(pipeline.Approval{ID: 2, Tool: "fs.write_file", Reason: "it is annotated destructive"}, ""); err != nil {
		t.Errorf("--allow-tool fs.*: %v", err)
	}

	before, err := termMode(tty)
	if err != nil {
		t.Skipf("no terminal modes here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	other := sum
	other.Tool = "everything.toggle"
	go func() { got <- k.approve(ctx, other) }()
	scr.waitFor("n no ")
	cancel()
	select {
	case err := <-got:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled question: %v", err)
		}
	case <-time.After(guard):
		t.Fatal("a cancelled question still waits")
	}
	if after, _ := termMode(tty); after != before {
		t.Errorf("the terminal's mode after the question %#x, before %#x", after, before)
	}
}

// TestRunAsksThroughTheTerminal: the whole way in — chorus run on a
// terminal, a plan calling a tool its server is not trusted about: the
// question is on the terminal, y runs the tool and the run succeeds.
func TestRunAsksThroughTheTerminal(t *testing.T) {
	t.Parallel()
	e := scriptedEnv(t, "The answer.", `{"tasks":[{"task":"fake.echo","id":1,"dep":[],"args":{"text":"hello"}}]}`)
	e.writeUserConfig(fmt.Sprintf("mcp:\n  - name: fake\n    command: %s\n    env: %s\n", os.Args[0], mcptest.EnvYAML("serve")))
	ptmx, tty := openPTY(t)
	scr := newScreen(t, ptmx)
	var out bytes.Buffer
	cmd := newRootCmd(e.options())
	cmd.SetArgs([]string{"run", "--json", "--out", e.out, "echo hello"})
	cmd.SetIn(tty)
	cmd.SetOut(&out)
	cmd.SetErr(tty)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(context.Background()) }()
	said := scr.waitFor("Run fake.echo? y run · a always · n no ")
	if !strings.Contains(said, "its server is not marked trusted") {
		t.Errorf("the question does not say why it asks:\n%s", said)
	}
	if _, err := io.WriteString(ptmx, "y"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if end := eventsOf(t, out.String(), "task_end"); len(end) != 1 || end[0]["status"] != "ok" || !strings.Contains(end[0]["result"].(string), "hello") {
		t.Fatalf("task_end %v", end)
	}
}
