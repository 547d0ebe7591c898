package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

func newModelsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "Show and refresh the expert model catalog",
		Args:  noSubcommand,
		// Runnable, so that a word naming no subcommand reaches noSubcommand
		// (bad usage, status 2) instead of cobra's plain error.
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newModelsListCmd(g), newModelsSyncCmd(g))
	return cmd
}

func newModelsListCmd(g *globalFlags) *cobra.Command {
	var constrain string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [TASK…]",
		Short: "List the candidates selection will see for each task, and why others are excluded",
		Example: `  chorus models list image-to-text
  chorus models list --constrain "license=apache-2.0 smallest" automatic-speech-recognition`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			k := cfg.NumCandidateModels
			cfg.NumCandidateModels = 50 // list every candidate; mark the top K
			a, err := g.newApp(cfg, app.Options{})
			if err != nil {
				return err
			}
			defer a.Close()
			eng, cons := a.Engine(), a.Constraints()
			if constrain != "" {
				c, err := pipeline.ParseConstraints(constrain)
				if err != nil {
					return &exitError{code: 2, err: fmt.Errorf("--constrain: %w", err)}
				}
				cons = cons.Merge(c)
			}
			if why := eng.Unqualifiable(cons); why != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", why)
			}
			tasks := args
			if len(tasks) == 0 {
				tasks = eng.Catalog().Names()
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			w := stdout(cmd)
			cache := app.HubCache(cfg)
			for i, t := range tasks {
				ev, err := eng.Preview(ctx, t, cons)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				if asJSON {
					b, _ := pipeline.MarshalEvent(ev)
					fmt.Fprintf(jsonWriter{w}, "%s\n", b)
					continue
				}
				if i > 0 {
					fmt.Fprintln(w)
				}
				printPreview(w, ev, k, eng.Catalog(), cache, eng.Controller().Model())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&constrain, "constrain", "", `constraints to apply, e.g. "license=apache-2.0 max-size=1GB local-only smallest"`)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON model event per task")
	return cmd
}

func printPreview(w io.Writer, ev pipeline.ModelEvent, k int, cat *skills.Catalog, cache skills.Cache, controller string) {
	source := "embedded catalog"
	if s, ok := cat.Skill(ev.Task); ok && s.Tool != nil {
		source = "tool of the MCP server " + s.Tool.Server
	} else if ok && !strings.HasPrefix(s.Source, "embedded:") {
		source = "skill file " + s.Source
	}
	if t, ok := cache.Fetched(ev.Task); ok {
		source = "synced from the Hub " + t.Local().Format("2006-01-02 15:04")
	}
	fmt.Fprintf(w, "%s  (%s)\n", ev.Task, source)
	if ev.Endpoint == pipeline.EndpointController {
		fmt.Fprintf(w, "  the controller (%s) does this task itself; the experts below are fallbacks\n", controller)
	}
	if len(ev.Candidates) == 0 {
		fmt.Fprintln(w, "  no candidate can run now")
	}
	fmt.Fprint(w, candidateTable(ev.Candidates, k, listWidth(w)))
	if len(ev.Candidates) > 0 {
		fmt.Fprintf(w, "  (* = among the top %d the controller chooses from; %s)\n", k, ev.Decided)
	}
	if ev.Unmet != "" {
		fmt.Fprintf(w, "  constraint not applied: %s\n", ev.Unmet)
	}
	for _, x := range ev.Excluded {
		fmt.Fprintf(w, "  excluded %s — %s\n", x.ID, x.Reason)
	}
}

// candidateWhere names a candidate's endpoints, with the Inference
// Provider its huggingface route tries first: "local,huggingface (fal-ai)".
func candidateWhere(c pipeline.Candidate) string {
	if c.Provider == "" {
		return c.Endpoint
	}
	return c.Endpoint + " (" + c.Provider + ")"
}

func newModelsSyncCmd(g *globalFlags) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "sync [TASK…]",
		Short: "Refresh candidates from the Hugging Face Hub (downloads, licence, size, benchmark results, providers)",
		Long: `Lists the models of each task's Hub pipeline tag, sorted by downloads, with licence, parameter
count or weight size, model-index benchmark results and the Inference Providers that serve them
(which provider, under which id, in your order from https://hf.co/settings/inference-providers),
and caches them under the user cache directory. Without tasks, every task with a Hub listing is synced. The embedded catalog stays the
offline default; local, Ollama, command and built-in experts are kept.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			cat, err := app.LoadCatalog(cfg)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			hub := &skills.Hub{BaseURL: cfg.HuggingFace.HubURL, Token: cfg.HuggingFace.Token, Limit: limit}
			results := skills.Sync(ctx, hub, app.HubCache(cfg), cat, args, time.Now)
			w := stdout(cmd)
			failed, tried := 0, 0
			var notTried []string
			for _, r := range results {
				switch {
				case r.NotTried:
					// The error that stopped the sync is told once, where
					// it happened; it names another task.
					tried++
					failed++
					notTried = append(notTried, r.Task)
					continue
				case r.Skipped != "":
					// Nothing to sync is not a failure.
					fmt.Fprintf(w, "– %s\n", r.Skipped)
					continue
				case r.Err != nil:
					tried++
					failed++
					// The Hub's own words are a server's: cleaned like all text
					// leaving Chorus (escapes, URL passwords).
					fmt.Fprintf(w, "✗ %s: %s\n", r.Task, text.Clean(r.Err.Error()))
					continue
				}
				tried++
				fmt.Fprintf(w, "✓ %s: %d models, %d served by Inference Providers (pipeline tag %s)\n", r.Task, r.Models, r.Served, r.Tag)
			}
			if len(notTried) > 0 {
				fmt.Fprintf(w, "✗ not tried after that: %s\n", strings.Join(notTried, ", "))
			}
			fmt.Fprintf(w, "cache: %s\n", app.HubCache(cfg).Dir)
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d tasks were not synced; the embedded catalog (or the previous sync) stays in use for them", failed, tried)}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "models per task (default: the Hub client's default)")
	return cmd
}

// listWidth is the width the candidate table must fit: the terminal's, or
// 80 columns when w is a pipe or a file (a log, a bug report, a mail).
func listWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// candidateTable lays the candidates out one per line, in columns, when
// that fits width; otherwise each takes two lines, the id then its facts,
// since a table whose rows wrap cannot be read (a Hub id, a provider and a
// long licence name easily pass 80 columns).
func candidateTable(cands []pipeline.Candidate, k, width int) string {
	type row struct{ mark, id, where, downloads, lic, size string }
	rows := make([]row, len(cands))
	for i, c := range cands {
		mark := " "
		if i < k {
			mark = "*"
		}
		r := row{mark: fmt.Sprintf("%s %d.", mark, i+1), id: c.ID, where: candidateWhere(c),
			downloads: "downloads unknown", lic: c.License, size: c.Size}
		// Zero means the catalog has no count (a model on your own
		// server), not a model nobody downloaded.
		if c.Downloads > 0 {
			r.downloads = skills.HumanCount(c.Downloads) + " downloads"
		}
		if r.lic == "" {
			r.lic = "licence unknown"
		}
		if r.size == "" {
			r.size = "size unknown"
		}
		rows[i] = r
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.mark, r.id, r.where, r.downloads, r.lic, r.size)
	}
	tw.Flush()
	table := b.String()
	fits := true
	for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		if utf8.RuneCountInString(line) > width {
			fits = false
			break
		}
	}
	if fits {
		return table
	}
	b.Reset()
	const indent = "       "
	for _, r := range rows {
		fmt.Fprintf(&b, "  %s %s\n", r.mark, r.id)
		line := indent
		facts := []string{r.where, r.downloads, r.lic, r.size}
		for i, fact := range facts {
			next := line + " · " + fact
			if i < len(facts)-1 {
				next += " ·" // room for the separator a break would leave
			}
			switch {
			case i == 0:
				line += fact
			case utf8.RuneCountInString(next) > width:
				b.WriteString(line + " ·\n")
				line = indent + fact
			default:
				line += " · " + fact
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
