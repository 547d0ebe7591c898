package cli

import (
	"io"
	"os"

	"github.com/spf13/cobra"
)

// helpOut is standard output as the help renderer sees it: each line
// without the blanks the renderer pads it with to its block's width —
// noise in a pipe, a file or a diff (`chorus --help | less`, a README
// pasted from it). It is still the terminal it wraps (Fd, Read, Close), so
// the renderer's colours and width come out as before. The commands' own
// output does not pass through it (stdout), unchanged byte for byte.
type helpOut struct {
	f *os.File
	// blanks are the spaces and tabs written since the last other byte:
	// written out when more of the line follows, dropped at its end.
	blanks []byte
}

func (h *helpOut) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		switch b {
		case ' ', '\t':
			h.blanks = append(h.blanks, b)
			continue
		case '\n', '\r':
			h.blanks = h.blanks[:0]
		default:
			out = append(out, h.blanks...)
			h.blanks = h.blanks[:0]
		}
		out = append(out, b)
	}
	if _, err := h.f.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write: the file's own would skip the trimming.
func (h *helpOut) WriteString(s string) (int, error) { return h.Write([]byte(s)) }

// Fd, Read and Close make helpOut a term.File, so a terminal is detected.
func (h *helpOut) Fd() uintptr                { return h.f.Fd() }
func (h *helpOut) Read(p []byte) (int, error) { return h.f.Read(p) }
func (h *helpOut) Close() error               { return h.f.Close() }

// stdout is where a command writes its own output: the command's standard
// output, without helpOut's trimming (an answer's Markdown keeps its
// trailing double spaces, a config file its bytes).
func stdout(cmd *cobra.Command) io.Writer {
	if h, ok := cmd.OutOrStdout().(*helpOut); ok {
		return h.f
	}
	return cmd.OutOrStdout()
}
