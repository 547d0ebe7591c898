package ui

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
)

// command is a slash command. Its row is all there is to it: what Tab
// completes and /help lists, what it does, and whether it may run while a
// turn is running.
type command struct {
	name, args, help string
	// aliases are other exact spellings ("/q", "/clear"); prefixes
	// resolve to names only.
	aliases []string
	// busy says whether the command may run while a turn is running.
	busy busyRule
	// run does the command with its argument (trimmed, maybe empty).
	run func(m *Model, arg string) tea.Cmd
	// complete lists the first argument's completions; nil for none.
	complete func(m *Model) []string
}

// busyRule says whether a command may run while a turn is running.
type busyRule int

const (
	// waitsForTurn commands change the session or the chat under the turn:
	// while one runs they are refused with busyRefusal.
	waitsForTurn busyRule = iota
	// anyTime commands show something, or change what the next turn uses.
	anyTime
	// bareAnyTime commands show something without an argument (any time)
	// and change something with one (between turns only).
	bareAnyTime
)

// allows reports whether a command under the rule may run with arg while
// a turn is running.
func (r busyRule) allows(arg string) bool {
	return r == anyTime || (r == bareAnyTime && arg == "")
}

// busyRefusal is the one answer to a command or request that must wait for
// the running turn.
func (m *Model) busyRefusal() string {
	return "a turn is running — wait for it, or " + m.keys.Label(theme.ActCancel) + " to cancel it"
}

// commandTable is the one list of slash commands, in the order Tab and
// /help show them. It is a function rather than a variable because /help's
// row lists the table itself.
func commandTable() []command {
	onOffArgs := func(*Model) []string { return []string{"on", "off"} }
	return []command{
		{name: "/new", aliases: []string{"/clear"}, help: "start a new session (the current one is saved)", busy: waitsForTurn,
			run: func(m *Model, _ string) tea.Cmd { return m.newChat() }},
		{name: "/sessions", help: "list saved sessions; pick one to reopen it", busy: anyTime,
			run: func(m *Model, _ string) tea.Cmd { return m.listSessions(!quietList) }},
		{name: "/load", args: "TITLE|ID", help: "reopen a saved session (Tab completes titles and ids)", busy: waitsForTurn,
			run: (*Model).load, complete: (*Model).sessionNames},
		{name: "/save", args: "[TITLE]", help: "save now, optionally renaming (sessions also save after every turn)", busy: anyTime,
			run: (*Model).saveNow},
		{name: "/export", args: "[FILE]", help: "write the chat as a Markdown transcript with file paths", busy: anyTime,
			run: (*Model).exportTo},
		{name: "/model", args: "[NAME]", help: "switch the controller model; without NAME, list the pulled models", busy: bareAnyTime,
			run: (*Model).listModels, complete: func(m *Model) []string { return m.pulledModels }},
		{name: "/pull", args: "NAME", help: "pull a model, with a progress bar", busy: anyTime,
			run: (*Model).pullNamed},
		{name: "/skills", help: "list the tasks the planner can use", busy: anyTime,
			run: func(m *Model, _ string) tea.Cmd { m.showSkills(); return nil }},
		{name: "/models", args: "TASK", help: "a task's candidate models, and why others are excluded", busy: anyTime,
			run: (*Model).showModels, complete: func(m *Model) []string { return m.conv.Catalog().Names() }},
		{name: "/constrain", aliases: []string{"/constraints"}, args: "[TERMS]", help: "license=a,b max-size=1GB local-only smallest best=wer:common_voice tasks=… clear", busy: anyTime,
			run: func(m *Model, arg string) tea.Cmd { m.constrain(arg); return nil },
			complete: func(*Model) []string {
				return []string{"license=", "max-size=", "local-only", "smallest", "best=", "tasks=", "clear"}
			}},
		{name: "/plan", help: "show the last plan as JSON", busy: anyTime,
			run: func(m *Model, _ string) tea.Cmd { m.showPlan(); return nil }},
		{name: "/retry", help: "run the last request again", busy: waitsForTurn,
			run: func(m *Model, _ string) tea.Cmd { return m.retry() }},
		{name: "/record", args: "FILE|stop", help: "record the next turns' controller and expert traffic to FILE; chorus --replay FILE plays it back without a model", busy: bareAnyTime,
			run: (*Model).record},
		{name: "/review", args: "[on|off]", help: "ask before running each plan (run, edit, cancel)", busy: anyTime,
			run: (*Model).setReview, complete: onOffArgs},
		{name: "/debug", args: "[on|off]", help: "show the raw controller prompts and replies", busy: anyTime,
			run: (*Model).setDebug, complete: onOffArgs},
		{name: "/help", aliases: []string{"/?"}, help: "keys and commands", busy: anyTime,
			run: func(m *Model, _ string) tea.Cmd { return m.showHelp() }},
		{name: "/quit", aliases: []string{"/exit", "/q"}, help: "leave Chorus", busy: anyTime,
			run: func(m *Model, _ string) tea.Cmd { return m.quit() }},
	}
}

// completions lists the commands for the prompt's Tab completion.
func completions() []prompt.Command {
	table := commandTable()
	out := make([]prompt.Command, len(table))
	for i, c := range table {
		out[i] = prompt.Command{Name: c.name, Args: c.args}
	}
	return out
}

// commandArgs completes the first argument of a command.
func (m *Model) commandArgs(name string) []string {
	for _, c := range commandTable() {
		if c.name == name && c.complete != nil {
			return c.complete(m)
		}
	}
	return nil
}

// runCommand executes a /command line.
func (m *Model) runCommand(line string) tea.Cmd {
	typed, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	name := resolveCommand(strings.ToLower(typed))
	for _, c := range commandTable() {
		if c.name != name && !slices.Contains(c.aliases, name) {
			continue
		}
		if m.running() && !c.busy.allows(arg) {
			m.flash(m.busyRefusal(), true)
			return nil
		}
		return c.run(m, arg)
	}
	m.unknownCommand(line, typed, name)
	return nil
}

// unknownCommand says why nothing ran and gives the line back, so a typo
// costs a key, not the message.
func (m *Model) unknownCommand(line, typed, name string) {
	m.input.Set(line)
	var cands []string
	for _, c := range commandTable() {
		if strings.HasPrefix(c.name, name) {
			cands = append(cands, c.name)
		}
	}
	switch {
	case len(cands) > 1:
		m.flash(fmt.Sprintf("%s could be %s — type more, or Tab", name, strings.Join(cands, ", ")), true)
	case strings.Count(typed, "/") > 1:
		m.flash(fmt.Sprintf("%s is not a command — to attach that file, write @%s", typed, typed), true)
	default:
		m.flash(fmt.Sprintf("unknown command %s — /help lists them", name), true)
	}
}

// resolveCommand expands an unambiguous prefix ("/con" → "/constrain").
func resolveCommand(name string) string {
	match := ""
	for _, c := range commandTable() {
		if c.name == name {
			return name
		}
		if strings.HasPrefix(c.name, name) {
			if match != "" {
				return name // ambiguous: let the caller say it is unknown
			}
			match = c.name
		}
	}
	if match == "" {
		return name
	}
	return match
}

// setReview turns plan review on or off (/review).
func (m *Model) setReview(arg string) tea.Cmd {
	m.review = toggleArg(arg, m.review)
	m.flash("plan review "+onOff(m.review)+" — "+reviewHelp(m.review), false)
	return nil
}

// setDebug shows or hides the raw controller traffic (/debug).
func (m *Model) setDebug(arg string) tea.Cmd {
	m.debug = toggleArg(arg, m.debug)
	m.flash("debug "+onOff(m.debug)+" — raw controller prompts and replies "+map[bool]string{true: "appear in the chat", false: "are hidden"}[m.debug], false)
	return nil
}

func reviewHelp(on bool) string {
	if on {
		return "each plan waits for run, edit or cancel"
	}
	return "plans run at once"
}

func toggleArg(arg string, cur bool) bool {
	switch strings.ToLower(arg) {
	case "on", "true", "yes", "1":
		return true
	case "off", "false", "no", "0":
		return false
	}
	return !cur
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// modelsListMsg carries the controller server's models for /model.
type modelsListMsg struct {
	want   string
	models []conversation.ModelInfo
	err    error
	quiet  bool
}

// listModels asks the controller server for its models: to show them
// (want == "") or to check that want is there before switching to it.
func (m *Model) listModels(want string) tea.Cmd {
	conv := m.conv
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ms, err := conv.Models(ctx)
		return modelsListMsg{want: want, models: ms, err: err}
	}
}

// listModelsQuiet fills the /model completion list.
func (m *Model) listModelsQuiet() tea.Cmd {
	conv := m.conv
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ms, err := conv.Models(ctx)
		return modelsListMsg{models: ms, err: err, quiet: true}
	}
}

// switchModelMsg asks to switch the controller once the list confirmed it.
type switchModelMsg struct{ model string }

func (m *Model) onModelsList(msg modelsListMsg) {
	if msg.quiet {
		if msg.err == nil {
			m.pulledModels = m.pulledModels[:0]
			for _, md := range msg.models {
				m.pulledModels = append(m.pulledModels, md.Name)
			}
			sort.Strings(m.pulledModels)
		}
		return
	}
	if msg.err != nil {
		m.systemError(msg.err.Error())
		return
	}
	var names []string
	for _, md := range msg.models {
		names = append(names, md.Name)
	}
	sort.Strings(names)
	m.pulledModels = names
	cur := m.conv.Model()
	if msg.want == "" {
		if len(names) == 0 {
			h := m.hints()
			if m.conv.CanPull() && !m.opts.NoPull {
				m.say(sentence(h.Server) + " has no models. Pull one with `/pull NAME`, e.g. `/pull " + cur + "`.")
			} else {
				m.say(sentence(h.Server) + " has no models: add one to it, then pick it with `/model`.")
			}
			return
		}
		var items []dialog.Item
		for _, md := range msg.models {
			detail := humanBytes(md.Size)
			if md.ParameterSize != "" {
				detail = md.ParameterSize + " · " + detail
			}
			if md.Name == cur {
				detail += " · current"
			}
			items = append(items, dialog.Item{Label: md.Name, Detail: detail})
		}
		models := msg.models
		m.openDialog(dialog.NewList(m.keys, &m.st, "Controller model", items, "switches the controller"),
			func(i int) tea.Cmd {
				return func() tea.Msg { return switchModelMsg{model: models[i].Name} }
			})
		return
	}
	want := msg.want
	if !slices.Contains(names, want) && !slices.Contains(names, want+":latest") {
		h := m.hints()
		fix := "pick one it has"
		if h.Fetch != nil {
			fix = h.Fetch(want) + " first"
		}
		m.systemError(fmt.Sprintf("Model `%s` is %s — %s. It has: %s.", want, h.Missing, fix, strings.Join(names, ", ")))
		return
	}
	m.switchModel(want)
}

func (m *Model) onSwitchModel(msg switchModelMsg) tea.Cmd {
	if m.running() {
		m.flash(m.busyRefusal(), true)
		return nil
	}
	m.switchModel(msg.model)
	return m.checkServer()
}

// switchModel makes model the controller for the next turns.
func (m *Model) switchModel(model string) {
	if m.conv.Model() == model {
		m.flash(model+" is already the controller", false)
		return
	}
	m.conv.SetModel(model)
	m.warm()
	m.server = serverState{checked: m.server.checked, reachable: m.server.reachable, pulled: true, version: m.server.version, announced: "ok"}
	m.say(fmt.Sprintf("The controller is now `%s`.", model))
}

// showSkills lists the catalog.
func (m *Model) showSkills() {
	var b strings.Builder
	b.WriteString("**Skills** — the tasks the planner can use\n\n| task | input → output | models |\n|---|---|---|\n")
	for _, s := range m.conv.Catalog().All() {
		var in []string
		for _, a := range s.Args {
			in = append(in, string(a.Type))
		}
		var out []string
		for _, o := range s.Outputs {
			out = append(out, string(o))
		}
		fmt.Fprintf(&b, "| %s | %s → %s | %d |\n", s.Name, strings.Join(in, ", "), strings.Join(out, ", "), len(s.Models))
	}
	b.WriteString("\n`/models TASK` shows a task's candidates.")
	m.say(b.String())
}

// previewMsg carries Engine.Preview's answer for /models.
type previewMsg struct {
	ev  pipeline.ModelEvent
	err error
}

// showModels previews selection for a task in a command: selection asks
// the endpoints whether they can serve each model, which may mean the
// network (the controller server's model list).
func (m *Model) showModels(task string) tea.Cmd {
	if task == "" {
		m.flash("usage: /models TASK — Tab completes task names, /skills lists them", true)
		return nil
	}
	conv := m.conv
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ev, err := conv.Preview(ctx, task)
		return previewMsg{ev: ev, err: err}
	}
}

// onPreview shows a task's candidates and exclusions.
func (m *Model) onPreview(msg previewMsg) {
	ev, err := msg.ev, msg.err
	if err != nil {
		m.systemError(err.Error())
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** — what selection sees", ev.Task)
	if !m.conv.Constraints().IsZero() {
		fmt.Fprintf(&b, " under `%s`", m.conv.Constraints().String())
	}
	b.WriteString("\n\n")
	switch {
	case ev.Endpoint == pipeline.EndpointController:
		fmt.Fprintf(&b, "The controller (`%s`) does this task itself. ", m.conv.Model())
	case ev.Model != "":
		fmt.Fprintf(&b, "First choice: `%s` on %s (%s). ", ev.Model, pipeline.Where(ev.Endpoint, ev.Provider), ev.Decided)
	default:
		b.WriteString("**No model can run it now.** ")
	}
	if ev.Reason != "" {
		b.WriteString(ev.Reason)
	}
	b.WriteString("\n")
	if len(ev.Candidates) > 0 {
		b.WriteString("\n| candidate | endpoint | downloads | licence | size |\n|---|---|---|---|---|\n")
		for _, c := range ev.Candidates {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.ID, pipeline.Where(c.Endpoint, c.Provider), skills.HumanCount(c.Downloads), dash(c.License), dash(c.Size))
		}
	}
	if len(ev.Excluded) > 0 {
		b.WriteString("\n**Excluded**\n\n")
		for _, x := range ev.Excluded {
			fmt.Fprintf(&b, "- `%s`: %s\n", x.ID, x.Reason)
		}
	}
	m.say(b.String())
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// constrain changes the standing constraints: terms given replace those
// of the same kind, "clear" drops them all, no terms shows them.
func (m *Model) constrain(arg string) {
	if arg == "" {
		if m.conv.Constraints().IsZero() {
			m.say("No constraints. Examples: `/constrain license=apache-2.0,mit`, `/constrain max-size=1GB local-only`, `/constrain best=wer:common_voice`.")
		} else {
			m.say("Constraints: `" + m.conv.Constraints().String() + "` — `/constrain clear` drops them.")
		}
		return
	}
	c, err := pipeline.ParseConstraints(arg)
	if err != nil {
		m.flash(err.Error(), true)
		return
	}
	fields := strings.Fields(strings.ToLower(arg))
	cleared := false
	for _, f := range fields {
		if f == "clear" || f == "none" || f == "reset" {
			cleared = true
		}
	}
	next := m.conv.Constraints()
	if cleared {
		next = c
	} else {
		if len(c.Licenses) > 0 {
			next.Licenses = c.Licenses
		}
		if !c.MaxSize.IsZero() {
			next.MaxSize = c.MaxSize
		}
		if c.LocalOnly {
			next.LocalOnly = true
		}
		if c.Prefer != "" {
			next.Prefer, next.Benchmark = c.Prefer, c.Benchmark
		}
		if len(c.Tasks) > 0 {
			next.Tasks = c.Tasks
		}
	}
	m.conv.SetConstraints(next)
	if next.IsZero() {
		m.flash("constraints cleared", false)
	} else {
		m.flash("constraints: "+next.String(), false)
	}
	m.warnUnqualifiable()
}

// showPlan prints the last plan as JSON.
func (m *Model) showPlan() {
	for i := len(m.turns) - 1; i >= 0; i-- {
		if p := m.turns[i].Plan; p != nil {
			js := dialog.PlanJSON(pipeline.Plan{Tasks: p.Tasks, Constraints: p.Constraints, Notes: p.Notes})
			m.say("**Last plan**\n\n```json\n" + js + "\n```")
			return
		}
	}
	m.flash("no plan yet", true)
}

// retry runs the last request again with its attachments.
func (m *Model) retry() tea.Cmd {
	if len(m.turns) == 0 {
		m.flash("nothing to retry yet", true)
		return nil
	}
	last := m.turns[len(m.turns)-1]
	if last.loaded && len(last.Attachments) > 0 {
		// A turn read from the session file: what it lists as attached is
		// data from disk, not something the user attached here.
		m.flash("retrying without the saved turn's attachments — attach them again (@path) to let Chorus read them", false)
		return m.startTurn(last.Request, nil)
	}
	return m.startTurn(last.Request, last.Attachments)
}

// humanBytes formats a model's size for the /model list.
func humanBytes(n int64) string {
	if n <= 0 {
		return ""
	}
	return skills.HumanBytes(n)
}

// warnUnqualifiable says so when the standing constraints, with the
// inference mode, leave no model for any task — once, when they are set,
// instead of in every task's list of exclusions.
func (m *Model) warnUnqualifiable() {
	if why := m.conv.Unqualifiable(); why != "" {
		m.say("**Warning:** " + why + ".")
	}
}
