package cli

import (
	"encoding/json"
	"io"

	"github.com/chorusai/chorus/text"
)

// Every --json output of `chorus` — sessions list and show, run and models
// (events, one a line), mcp list, eval, doctor — goes through here, so none
// carries a C1 control, a bidi control or mark raw: encoding/json writes
// them as they are, and a title, a model name or a tool's text from a file
// or a server would reach the terminal of whoever reads the output. They
// are escaped (text.EscapeJSON): the values decode unchanged.

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(jsonWriter{w})
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonWriter escapes what is written to it with text.EscapeJSON. Each
// Write must hold whole characters — a JSON encoder's Encode writes a
// whole value at once, as do the event lines.
type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(text.EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
