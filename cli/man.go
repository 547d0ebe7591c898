package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

// newManCmd writes the man page. Fang's own is hidden from --help and
// puts the one-line description where man(1) expects the manual's name, in
// the middle of the header, where it runs into the page's name; this one
// is listed and has the header man pages have.
func newManCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "Write the man page (roff) to stdout: man -l <(chorus man), or save it as chorus.1",
		Long: `Write Chorus's man page, in roff, to stdout: every command with its flags. Read it with
man -l <(chorus man), or install it: chorus man > ~/.local/share/man/man1/chorus.1.`,
		Args:                  cobra.NoArgs,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page, err := mcobra.NewManPage(1, cmd.Root())
			if err != nil {
				return fmt.Errorf("man page: %w", err)
			}
			_, err = io.WriteString(stdout(cmd), manHeading(page.Build(roff.NewDocument()), manDate(), g.version))
			return err
		},
	}
}

// manHeading replaces the page's .TH line with the usual one — the name and
// section, the date, the source ("chorus VERSION") and the manual — and
// writes its NAME line as man pages do.
func manHeading(page string, date time.Time, version string) string {
	ver, _, _ := strings.Cut(version, " ")
	ver = strings.ReplaceAll(ver, `"`, "")
	head := fmt.Sprintf(`.TH CHORUS 1 "%s" "chorus %s" "User Commands"`, date.Format("2006-01-02"), ver)
	if rest, ok := strings.CutPrefix(page, ".TH "); ok {
		_, page, _ = strings.Cut(rest, "\n")
	}
	// whatis(1) and apropos(1) read the NAME line as "name \- summary".
	page = strings.Replace(page, ".SH NAME\nchorus - ", ".SH NAME\nchorus \\- ", 1)
	return head + "\n" + page
}

// manDate is the page's date: SOURCE_DATE_EPOCH for reproducible builds,
// else the commit the binary was built from, else today.
func manDate() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" {
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return t.UTC()
				}
			}
		}
	}
	return time.Now().UTC()
}
