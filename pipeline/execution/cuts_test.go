package execution

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chorusai/chorus/pipeline/flow"
)

// TestCutsKeepUTF8: chat-log lines and workflow lines never end in half
// a character (an error's is text.Clip's, tested there).
func TestCutsKeepUTF8(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300) // two bytes each: an odd cut splits one
	for name, got := range map[string]string{
		"budgeted": strings.TrimSuffix(flow.Budgeted("x"+long, 201), " [400 more bytes]"),
	} {
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "é…") {
			t.Errorf("%s = %q", name, got)
		}
	}
}
