package execution

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chorusai/chorus/pipeline/flow"
)

// TestCutsKeepUTF8: shortened errors, chat-log lines and workflow lines
// never end in half a character.
func TestCutsKeepUTF8(t *testing.T) {
	long := strings.Repeat("é", 300) // two bytes each: an odd cut splits one
	for name, got := range map[string]string{
		"shortErr": shortErr(errors.New("x" + long)),
		"budgeted": strings.TrimSuffix(flow.Budgeted("x"+long, 201), " [400 more bytes]"),
	} {
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "é…") {
			t.Errorf("%s = %q", name, got)
		}
	}
}
