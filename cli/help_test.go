package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestLongHelpIsParagraphs: every command's long help reaches the help
// renderer as one line per paragraph, so it is wrapped at the terminal's
// width; a line break kept from the source would come out ragged at 80
// columns (a long line wrapped, then a short one). Paragraphs stay apart.
func TestLongHelpIsParagraphs(t *testing.T) {
	t.Parallel()
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
	root := newRootCmd(bareEnv(t).options())
	walk(root)
	if run, _, err := root.Find([]string{"run"}); err != nil || strings.Count(run.Long, "\n\n") < 1 {
		t.Errorf("run's long help lost its paragraphs: %q (%v)", run.Long, err)
	}
}

// TestPipedHelpHasNoTrailingBlanks: `chorus … --help` into a pipe (a pager,
// a file, a README) has no line padded with blanks to the help
// renderer's block width — for every command, and `chorus help CMD`.
func TestPipedHelpHasNoTrailingBlanks(t *testing.T) {
	t.Parallel()
	bin := chorusBinary(t)
	var paths [][]string
	var walk func(*cobra.Command, []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, append(append([]string(nil), path...), "--help"))
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, append(append([]string(nil), path...), sub.Name()))
			}
		}
	}
	walk(newRootCmd(bareEnv(t).options()), nil)
	paths = append(paths, []string{"help", "run"}, []string{"run", "-h"})
	if len(paths) < 10 {
		t.Fatalf("only %d commands", len(paths))
	}
	for _, args := range paths {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "NO_COLOR=")
		out, err := cmd.Output()
		if err != nil || len(out) < 100 {
			t.Errorf("chorus %s: %v: %q", strings.Join(args, " "), err, out)
			continue
		}
		for i, line := range strings.Split(string(out), "\n") {
			if strings.TrimRight(line, " \t") != line {
				t.Errorf("chorus %s: line %d ends in blanks: %q", strings.Join(args, " "), i+1, line)
				break
			}
		}
	}
}
