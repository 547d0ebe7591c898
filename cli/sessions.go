package cli

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/text"
)

// The saved sessions from the command line: what the TUI's /sessions,
// /load and /export do, on the same conversation.Library (its Find, Open,
// Export, Delete), for scripts and for a look without opening the chat.
// None of them reads the configuration or starts anything.

func newSessionsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	list := func(cmd *cobra.Command, _ []string) error {
		return listSessions(library(g), stdout(cmd), cmd.ErrOrStderr(), asJSON)
	}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List, show, export and remove saved sessions (chorus sessions alone lists them)",
		Long: `The sessions the TUI and chorus run saved, newest first: chorus sessions list (or chorus sessions alone), show
ID, export ID, rm ID. A session is named by its id, "latest", or the start of its title or id, or a word of its title
— as in the TUI's /load, chorus run --continue=TITLE and --session; of several matches show and export take the
newest, saying which and listing the others, while rm refuses (exit 2) listing them. rm removes only the session's
file, never the files its turns made, and removes a session named otherwise than by its id only after asking (on a
terminal) or with --yes.`,
		Example: `  chorus sessions
  chorus sessions show latest | less
  chorus sessions export "lighthouse" -o lighthouse.md
  chorus sessions rm 20260102-101112-123-abcd`,
		Args: noSubcommand,
		RunE: list,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	ls := &cobra.Command{
		Use:   "list",
		Short: "List the saved sessions, newest first: id, when saved, turns, title",
		Args:  cobra.NoArgs,
		RunE:  list,
	}
	ls.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON: id, title, updated, turns, model, damaged")
	cmd.AddCommand(ls, newSessionsShowCmd(g), newSessionsExportCmd(g), newSessionsRmCmd(g))
	return cmd
}

// library is the saved sessions every front end uses
// (config.Env.SessionsDir).
func library(g *globalFlags) *conversation.Library {
	l := conversation.NewLibrary(g.env.SessionsDir(), g.logger())
	return &l
}

func listSessions(lib *conversation.Library, w, stderr io.Writer, asJSON bool) error {
	list, err := lib.List()
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if asJSON {
		type entry struct {
			ID      string    `json:"id"`
			Title   string    `json:"title"`
			Updated time.Time `json:"updated"`
			Turns   int       `json:"turns"`
			Model   string    `json:"model,omitempty"`
			Damaged string    `json:"damaged,omitempty"`
		}
		out := make([]entry, 0, len(list))
		for _, s := range list {
			out = append(out, entry{s.ID, s.Title, s.Updated, s.Turns, s.Model, s.Damaged})
		}
		return writeJSON(w, out)
	}
	if len(list) == 0 {
		fmt.Fprintf(stderr, "no saved sessions yet in %s\n", lib.Dir())
		return nil
	}
	width := 0 // a pipe or a file gets whole titles
	if isTerminal(w) {
		width = listWidth(w)
	}
	fmt.Fprint(w, sessionTable(list, width))
	return nil
}

// sessionTable lists sessions one a line — id, when saved, turns, title —
// each line cut to width (0: not cut), with no trailing blanks.
func sessionTable(list []conversation.Summary, width int) string {
	var b strings.Builder
	idw := len("ID")
	for _, s := range list {
		idw = max(idw, len(s.ID))
	}
	fmt.Fprintf(&b, "%-*s  %-16s  %5s  %s\n", idw, "ID", "SAVED", "TURNS", "TITLE")
	for _, s := range list {
		title := cmp.Or(text.OneLine(text.Clean(s.Title), 0), "(untitled)")
		if s.Damaged != "" {
			title = "(damaged: " + text.OneLine(text.Clean(s.Damaged), 0) + ")"
		}
		line := fmt.Sprintf("%-*s  %-16s  %5d  %s", idw, s.ID, s.Updated.Local().Format("2006-01-02 15:04"), s.Turns, title)
		if width > 0 {
			line = ansi.Truncate(line, width, "…")
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}

// findSession resolves what the user typed to name a session
// (conversation.Library.Find). Several matches: with newest, the newest
// is taken and stderr says which, and which others matched (reading or
// continuing one is undone by naming another); without, they are listed
// on stderr and it is bad usage (status 2). None is bad usage too, its
// error naming the command that lists them.
func findSession(lib *conversation.Library, arg string, newest bool, stderr io.Writer) (string, error) {
	id, err := lib.Find(arg)
	var amb *conversation.AmbiguousError
	switch {
	case errors.As(err, &amb) && newest:
		took := amb.Matches[0]
		fmt.Fprintf(stderr, "%d sessions match %q: taking the newest, %s (%s) — the others (give more of the title, or the id):\n%s",
			len(amb.Matches), arg, cmp.Or(text.OneLine(text.Clean(took.Title), 0), "untitled"), took.ID, sessionTable(amb.Matches[1:], 0))
		return took.ID, nil
	case errors.As(err, &amb):
		fmt.Fprint(stderr, sessionTable(amb.Matches, 0))
		return "", &exitError{code: 2, err: fmt.Errorf("%d sessions match %q (listed above) — give more of the title, or the id", len(amb.Matches), arg)}
	case errors.Is(err, conversation.ErrNotFound):
		return "", &exitError{code: 2, err: fmt.Errorf("%w — chorus sessions lists them", err)}
	case err != nil:
		return "", &exitError{code: 1, err: err}
	}
	return id, nil
}

// openSessionArg finds and opens the session arg names; one that does not
// exist is bad usage (status 2), as for chorus run --session.
func openSessionArg(lib *conversation.Library, arg string, stderr io.Writer) (*conversation.Session, error) {
	id, err := findSession(lib, arg, true, stderr)
	if err != nil {
		return nil, err
	}
	s, err := lib.Open(id)
	switch {
	case errors.Is(err, conversation.ErrNotFound):
		return nil, &exitError{code: 2, err: fmt.Errorf("%w — chorus sessions lists them", err)}
	case err != nil:
		return nil, &exitError{code: 1, err: err}
	}
	return s, nil
}

func newSessionsShowCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show ID|TITLE|latest",
		Short: "Print a saved session: its transcript as Markdown (rendered on a terminal), or --json its record",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return showSession(library(g), args[0], stdout(cmd), cmd.ErrOrStderr(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session's record (every turn: plan, models, results, files) as JSON")
	return cmd
}

// showSession prints the saved session arg names: its transcript, or
// with asJSON its record.
func showSession(lib *conversation.Library, arg string, w, stderr io.Writer, asJSON bool) error {
	s, err := openSessionArg(lib, arg, stderr)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(w, s.Snapshot())
	}
	md := s.Export()
	if isTerminal(w) {
		md = terminalMarkdown(w)(md) + "\n"
	}
	_, err = io.WriteString(w, md)
	return err
}

func newSessionsExportCmd(g *globalFlags) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export ID|TITLE|latest",
		Short: "Write a saved session's Markdown transcript to a file (as the TUI's /export)",
		Long:  `Writes the transcript — every turn's request, plan, models, results with the full paths of the files, and answer — to -o FILE (default chorus-ID.md in the current folder, the name /export uses; - for stdout). An existing file is replaced.`,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openSessionArg(library(g), args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if out == "-" {
				_, err := io.WriteString(stdout(cmd), s.Export())
				return err
			}
			path := cmp.Or(out, conversation.ExportName(s.ID()))
			if err := s.WriteExport(path); err != nil {
				return &exitError{code: 1, err: fmt.Errorf("export: %w", err)}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "exported session %s (%s) to %s\n", s.ID(), cmp.Or(s.Title(), "untitled"), path)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "the file to write (default chorus-ID.md; - for stdout)")
	return cmd
}

func newSessionsRmCmd(g *globalFlags) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "rm ID…",
		Short: "Remove saved sessions (their files only; what their turns made stays)",
		Long: `Removes each named session's file from the sessions folder. The files its turns made (images, audio,
transcripts in the outputs folder) stay where they are; rm says how many. A session named by its exact id is removed at
once; one named by "latest", or by its title or the start of its id, only after a yes on a terminal, or with --yes
(without a terminal to ask on, it is refused, exit 2).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lib := library(g)
			for _, arg := range args {
				if err := removeSession(lib, arg, yes, cmd.InOrStdin(), cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "remove a session named otherwise than by its exact id without asking")
	return cmd
}

// removeSession removes the session arg names, asking first (or wanting
// --yes) unless arg is its exact id, and says what stayed: the files its
// turns made.
func removeSession(lib *conversation.Library, arg string, yes bool, in io.Reader, stderr io.Writer) error {
	id, err := findSession(lib, arg, false, stderr)
	if err != nil {
		return err
	}
	title, files := "", 0
	if s, err := lib.Open(id); err == nil {
		title = s.Title()
		for _, t := range s.Turns() {
			files += len(t.Generated())
		}
		id = s.ID() // "latest" resolved
	} else if errors.Is(err, conversation.ErrNotFound) {
		return &exitError{code: 2, err: fmt.Errorf("%w — chorus sessions lists them", err)}
	}
	named := fmt.Sprintf("session %s (%s)", id, cmp.Or(text.Clean(title), "untitled"))
	if id != arg && !yes {
		if !readerIsTerminal(in) || !isTerminal(stderr) {
			return &exitError{code: 2, err: fmt.Errorf("%q names %s: give its id to remove it, or add --yes", arg, named)}
		}
		fmt.Fprintf(stderr, "remove %s? [y/N] ", named)
		answer, _ := bufio.NewReader(in).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintf(stderr, "kept %s\n", named)
			return nil
		}
	}
	if err := lib.Delete(id); err != nil {
		return &exitError{code: 1, err: err}
	}
	kept := ""
	if files > 0 {
		kept = fmt.Sprintf(" — the %d file(s) its turns made stay where they are", files)
	}
	fmt.Fprintf(stderr, "removed %s%s\n", named, kept)
	return nil
}

// readerIsTerminal reports whether r is a terminal, where a question can
// be answered.
func readerIsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
