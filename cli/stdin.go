package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
	"github.com/chorusai/chorus/ui/chat"
)

// `chorus run` reads a piped stdin as part of the request, the way mods
// and `ollama run` do: `cat notes.md | chorus run "summarize"`.
const (
	// maxInlineInput is the most piped text put into the request itself;
	// more would crowd the controller's context, so a longer input is
	// saved to a file and attached (the response stage quotes it).
	maxInlineInput = 16 << 10
	// maxPipedInput bounds what is read from stdin at all.
	maxPipedInput = 64 << 20
)

// pipedInput returns r when it carries piped input: a pipe or a file
// redirected to stdin, or any reader that is not a file (tests). A
// terminal or a character device such as /dev/null gives nil.
func pipedInput(r io.Reader) io.Reader {
	f, ok := r.(*os.File)
	if !ok {
		return r
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice != 0 || term.IsTerminal(f.Fd()) {
		return nil
	}
	return f
}

// pipedRequest is a run's request once stdin has been read.
type pipedRequest struct {
	// Request is what the user wrote: the arguments, or the piped text when
	// there were none. Paths and URLs in it are granted as typed.
	Request string
	// Input is the piped text that came with a request given as
	// arguments: data the user passed, which the controller reads but
	// which grants nothing (docs/pipeline.md, "What a turn may touch").
	Input string
	// Spooled is the file a long input was saved to, to be attached.
	Spooled string
}

// withPipedInput reads what was piped. With a request given as arguments
// the input is data (pipedRequest.Input); without one it is the request.
// An input longer than maxInlineInput is saved in dir and attached either
// way (the request then says so), so a path or URL inside piped data never
// counts as typed, however long the data.
func withPipedInput(request string, in io.Reader, dir string, now time.Time) (pipedRequest, error) {
	if in == nil {
		return pipedRequest{Request: request}, nil
	}
	data, err := io.ReadAll(io.LimitReader(in, maxPipedInput+1))
	if err != nil {
		return pipedRequest{}, &exitError{code: 2, err: fmt.Errorf("reading the request from stdin: %w", err)}
	}
	if len(data) > maxPipedInput {
		return pipedRequest{}, &exitError{code: 2, err: fmt.Errorf("stdin holds more than %s — save it to a file and --attach it", skills.HumanBytes(maxPipedInput))}
	}
	input := strings.TrimSpace(string(data))
	switch {
	case input == "":
		if request == "" {
			return pipedRequest{}, &exitError{code: 2, err: errors.New(`run needs a request: stdin was empty and no request was given, e.g. chorus run "summarize" < notes.md`)}
		}
		return pipedRequest{Request: request}, nil
	case len(input) <= maxInlineInput && utf8.ValidString(input):
		if request == "" {
			return pipedRequest{Request: input}, nil
		}
		return pipedRequest{Request: request, Input: input}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return pipedRequest{}, &exitError{code: 1, err: fmt.Errorf("cannot save the piped input in %s: %w — set output_dir (or --out) to a writable directory", dir, err)}
	}
	path := filepath.Join(dir, "stdin-"+now.Format("20060102-150405")+".txt")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return pipedRequest{}, &exitError{code: 1, err: fmt.Errorf("cannot save the piped input: %w", err)}
	}
	if request == "" {
		request = "Here is a text; tell me what it says."
	}
	return pipedRequest{Request: request + "\n\n(The input is attached: " + path + ")", Spooled: path}, nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// terminalMarkdown renders an answer for the terminal w: Glamour at the
// terminal's width (at most 120 columns, for reading), references to task
// outputs as →#N, and colours as the terminal and NO_COLOR allow.
func terminalMarkdown(w io.Writer) func(string) string {
	width := 80
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			width = min(cols, 120)
		}
	}
	md := chat.NewMarkdown(chat.GlamourStyle(os.Getenv))
	profile := colorprofile.Detect(w, os.Environ())
	return func(src string) string {
		out := strings.Join(md.Render(text.ShowRefs(src), width), "\n")
		var b strings.Builder
		cw := &colorprofile.Writer{Forward: &b, Profile: profile}
		_, _ = io.WriteString(cw, out)
		return b.String()
	}
}

// humanSize is the size of the file at path, for the log.
func humanSize(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return skills.HumanBytes(st.Size())
}
