package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestLongHelpIsParagraphs: every command's long help reaches the help
// renderer as one line per paragraph, so it is wrapped at the terminal's
// width; a line break kept from the source would come out ragged at 80
// columns (a long line wrapped, then a short one). Paragraphs stay apart.
func TestLongHelpIsParagraphs(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, p := range strings.Split(c.Long, "\n\n") {
			if strings.Contains(p, "\n") {
				t.Errorf("%s: a paragraph of the long help keeps a line break: %q", c.CommandPath(), p)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	root := newRootCmd(testOptions())
	walk(root)
	if run, _, err := root.Find([]string{"run"}); err != nil || strings.Count(run.Long, "\n\n") < 1 {
		t.Errorf("run's long help lost its paragraphs: %q (%v)", run.Long, err)
	}
}
