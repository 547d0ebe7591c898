package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

func TestConstrainCommand(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.runCommand("/constrain license=apache-2.0,mit max-size=1GB")
	if got := m.conv.Constraints().String(); got != "license=apache-2.0,mit max-size=1GB" {
		t.Fatalf("constraints = %q", got)
	}
	m.runCommand("/constrain local-only license=mit")
	if got := m.conv.Constraints().String(); got != "license=mit max-size=1GB local-only" {
		t.Fatalf("terms should replace their own kind only: %q", got)
	}
	if !strings.Contains(ansi.Strip(m.statusLine(fixedNow)), "license=mit max-size=1GB local-only") {
		t.Errorf("status bar lacks the constraints: %q", ansi.Strip(m.statusLine(fixedNow)))
	}
	m.runCommand("/constrain licence")
	if !m.notice.bad || !strings.Contains(m.notice.text, "license needs a value") {
		t.Errorf("a bad term should be explained: %q", m.notice.text)
	}
	if m.conv.Constraints().String() != "license=mit max-size=1GB local-only" {
		t.Error("a bad command must not change the constraints")
	}
	m.runCommand("/constrain clear")
	if !m.conv.Constraints().IsZero() {
		t.Fatalf("clear left %q", m.conv.Constraints().String())
	}
	m.runCommand("/constrain")
	if !strings.Contains(m.chat.Last().Text, "No constraints") {
		t.Errorf("no terms should show the constraints: %q", m.chat.Last().Text)
	}
}

// Standing constraints go into the turn: the planner's plan carries them.
func TestConstraintsReachTheTurn(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("/constrain license=mit")
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	p := m.turns[0].Plan
	if p == nil || len(p.Constraints.Licenses) != 1 || p.Constraints.Licenses[0] != "mit" {
		t.Fatalf("plan constraints = %+v", p)
	}
	if m.turns[0].Tasks[0].Status != turnview.TaskDone {
		t.Error("chorus/resize is MIT-licensed and should still run")
	}
}

// runNow runs a command line and delivers its command's message, as the
// program would.
func runNow(m *Model, line string) {
	if cmd := m.runCommand(line); cmd != nil {
		m.Update(cmd())
	}
}

func TestSkillsModelsPlanCommands(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.runCommand("/skills")
	if txt := m.chat.Last().Text; !strings.Contains(txt, "image-resize") || !strings.Contains(txt, "object-detection") {
		t.Errorf("/skills should list the catalog:\n%s", txt)
	}
	runNow(m, "/models image-resize")
	if txt := m.chat.Last().Text; !strings.Contains(txt, "chorus/resize") || !strings.Contains(txt, "builtin") {
		t.Errorf("/models should show the candidates:\n%s", txt)
	}
	runNow(m, "/models object-detection")
	if txt := m.chat.Last().Text; !strings.Contains(txt, "Excluded") || !strings.Contains(txt, "No model can run it") {
		t.Errorf("/models should explain why nothing qualifies in local mode:\n%s", txt)
	}
	runNow(m, "/models no-such-task")
	if m.chat.Last().Role != chat.RoleError || !strings.Contains(m.chat.Last().Text, "unknown task") {
		t.Errorf("unknown task: %q", m.chat.Last().Text)
	}
	m.runCommand("/plan")
	if !m.notice.bad {
		t.Error("/plan with no plan yet should say so")
	}
	m.runCommand("/ski")
	if !strings.Contains(lastText(m), "**Skills**") {
		t.Error("an unambiguous prefix should run its command")
	}
	m.runCommand("/s")
	if !strings.Contains(m.notice.text, "/s could be /sessions, /save, /skills") {
		t.Errorf("an ambiguous prefix should not guess: %q", m.notice.text)
	}
	m.runCommand("/bogus")
	if !strings.Contains(m.notice.text, "unknown command /bogus") {
		t.Errorf("unknown command notice = %q", m.notice.text)
	}
}

// TestUnknownCommandKeepsTheLine: a line that runs no command is given back
// to the prompt (typed through the real keys), and one that is a path says
// how to attach the file instead.
func TestUnknownCommandKeepsTheLine(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("/Users/ann/notes.txt what does it say?")
	s.wait("the refusal", func(m *Model) bool { return m.notice.text != "" })
	m := s.finish()
	if got := m.input.Value(); got != "/Users/ann/notes.txt what does it say?" {
		t.Errorf("the prompt after an unknown command = %q, want the line back", got)
	}
	if !strings.Contains(m.notice.text, "write @/Users/ann/notes.txt") {
		t.Errorf("a path taken for a command should say how to attach it: %q", m.notice.text)
	}
	if len(m.turns) != 0 {
		t.Error("nothing may be sent")
	}
}

func TestPlanRetryDebugCommands(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Done."
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("/debug on")
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	s.submit("/plan")
	s.wait("the plan", func(m *Model) bool { return strings.Contains(lastText(m), "Last plan") })
	s.submit("/retry")
	s.wait("the retried turn", turnsDone(2))
	m := s.finish()
	var debug int
	for _, cm := range m.chat.Messages() {
		if cm.Role == chat.RoleDebug {
			debug++
		}
	}
	if debug < 2 {
		t.Errorf("/debug on should show the controller's prompts and replies; %d entries", debug)
	}
	var planMsg string
	for _, cm := range m.chat.Messages() {
		if strings.Contains(cm.Text, "Last plan") {
			planMsg = cm.Text
		}
	}
	js := strings.TrimSuffix(strings.TrimPrefix(planMsg[strings.Index(planMsg, "```json"):], "```json\n"), "\n```")
	var pe pipeline.PlanEvent
	if err := json.Unmarshal([]byte(js), &pe); err != nil || len(pe.Tasks) != 2 || pe.Tasks[1].Args["image"] != "<resource>-1" {
		t.Fatalf("/plan should print the plan as JSON: %v\n%s", err, js)
	}
	if m.turns[1].Request != m.turns[0].Request || len(m.turns[1].Attachments) != 1 {
		t.Errorf("/retry should rerun the request with its attachments: %+v", m.turns[1])
	}
}

func TestDebugHiddenByDefault(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("hi")
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	for _, cm := range m.chat.Messages() {
		if cm.Role == chat.RoleDebug {
			t.Fatal("debug entries must stay hidden without /debug")
		}
	}
	if len(m.turns[0].Debug) == 0 {
		t.Error("the debug events should still be recorded")
	}
}

func TestReviewRunsEditsAndCancels(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Done."
	s := startSession(t, env.model(t), 120, 40)
	s.ready()
	s.submit("/review on")
	s.submit("convert @" + env.image)
	s.wait("the review", func(m *Model) bool { _, ok := m.dialog.(*dialog.Review); return ok })
	// Cancel: the turn ends without running anything.
	s.typeText("c")
	s.wait("the cancelled turn", turnsDone(1))

	// Inline edit: drop task 2, run the edited plan.
	s.submit("convert @" + env.image + " again")
	s.wait("the second review", func(m *Model) bool {
		_, ok := m.dialog.(*dialog.Review)
		return ok && len(m.turns) == 2 && !m.planReview.answered
	})
	s.typeText("i")
	s.wait("the inline editor", func(m *Model) bool { d, ok := m.dialog.(*dialog.Review); return ok && d.Editing() })
	s.tm.Send(editPlanMsg{})
	s.key(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	s.wait("the edited turn", turnsDone(2))
	m := s.finish()

	t1 := m.turns[0]
	if t1.Err == nil || !strings.Contains(t1.Err.Error(), "cancelled in review") {
		t.Errorf("turn 1 should end with the plan refused: %v", t1.Err)
	}
	for _, ts := range t1.Tasks {
		if ts.Status == turnview.TaskDone {
			t.Error("nothing may run when the review is cancelled")
		}
	}
	t2 := m.turns[1]
	if t2.Err != nil || len(t2.Tasks) != 1 || t2.Tasks[0].Task.Task != "image-resize" || t2.Tasks[0].Status != turnview.TaskDone {
		t.Fatalf("turn 2 should run the edited one-task plan: err=%v tasks=%+v", t2.Err, t2.Tasks)
	}
}

// TestReviewCancelIsNotAnError: turning a plan down is the user's choice.
// The turn ends cancelled (saved so), with no error entry; the plan that
// was shown stays in the Plan pane with its tasks marked as never run.
func TestReviewCancelIsNotAnError(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("/review on")
	s.submit("convert @" + env.image)
	s.wait("the review", func(m *Model) bool { _, ok := m.dialog.(*dialog.Review); return ok })
	s.key(keyEsc)
	s.wait("the cancelled turn", turnsDone(1))
	m := s.finish()
	tr := m.turns[0]
	if !tr.Canceled {
		t.Errorf("a plan turned down should leave a cancelled turn, err = %v", tr.Err)
	}
	for _, cm := range m.chat.Messages() {
		if cm.Role == chat.RoleError {
			t.Errorf("turning the plan down is no error, the chat says: %q", cm.Text)
		}
	}
	if !strings.Contains(tr.Answer, "cancelled in review") {
		t.Errorf("the answer should say the plan was cancelled: %q", tr.Answer)
	}
	if tr.Plan == nil || len(tr.Tasks) != 2 {
		t.Fatalf("the reviewed plan should stay with the turn: %+v", tr.Plan)
	}
	for _, ts := range tr.Tasks {
		if ts.Status != turnview.TaskCancelled {
			t.Errorf("task %d: status %v, want cancelled (never ran: the user said no)", ts.Task.ID, ts.Status)
		}
	}
	f := frame(m)
	if strings.Contains(f, "No plan") || !strings.Contains(f, "⊝ 1 image-resize") {
		t.Errorf("the Plan pane should show the plan turned down:\n%s", f)
	}
	recs := m.conv.Session().Turns()
	rec := recs[len(recs)-1]
	if !rec.Cancelled || rec.Error != "" || len(rec.Plan) != 2 {
		t.Errorf("saved as cancelled=%v error=%q plan=%d tasks; want cancelled, no error, the plan", rec.Cancelled, rec.Error, len(rec.Plan))
	}
}

// editPlanMsg replaces the inline editor's text with a one-task plan; the
// probe applies it on the program's goroutine.
type editPlanMsg struct{}

func (p *probe) applyTestMsg(msg tea.Msg) bool {
	if f, ok := msg.(testFunc); ok {
		f(p.Model)
		return true
	}
	if _, ok := msg.(editPlanMsg); ok {
		if d, ok := p.Model.dialog.(*dialog.Review); ok && d.Editing() {
			var plan pipeline.Plan
			_ = json.Unmarshal([]byte(d.EditorText()), &plan)
			plan.Tasks = plan.Tasks[:1]
			d.SetEditorText(dialog.PlanJSON(plan))
		}
		return true
	}
	return false
}

func TestModelCommandSwitchesController(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("/model")
	s.wait("the model list", func(m *Model) bool { _, ok := m.dialog.(*dialog.List); return ok })
	s.key(keyEsc)
	s.wait("the closed list", func(m *Model) bool { return m.dialog == nil })
	s.submit("/model not-pulled:1b")
	s.wait("the refusal", func(m *Model) bool { return strings.Contains(lastText(m), "/pull not-pulled:1b") })
	s.submit("/model llama3.2:3b")
	s.wait("the switch", func(m *Model) bool { return m.conv.Model() == "llama3.2:3b" })
	s.submit("hello")
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	reqs := env.ollama.ChatRequests()
	if got := reqs[len(reqs)-1].Model; got != "llama3.2:3b" {
		t.Errorf("the turn ran on %s, want llama3.2:3b", got)
	}
	if !strings.Contains(ansi.Strip(m.statusLine(fixedNow)), "llama3.2:3b") {
		t.Error("the status bar should show the new controller")
	}
}

func TestPullShowsProgress(t *testing.T) {
	env := newTestEnv(t)
	env.ollama.SetPullable("phi4-mini", fakeollama.Model{Name: "phi4-mini", ParameterSize: "3.8B"})
	env.ollama.SetPullDelay(20 * time.Millisecond)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("/pull phi4-mini")
	s.wait("progress", func(m *Model) bool { return m.pull != nil && m.pull.total > 0 })
	s.wait("the pull to finish", func(m *Model) bool { return m.pull == nil })
	s.submit("/pull nonexistent-model-xyz")
	s.wait("the failure", func(m *Model) bool {
		return m.pull == nil && m.chat.Last() != nil && m.chat.Last().Role == chat.RoleError
	})
	m := s.finish()
	var ok bool
	for _, cm := range m.chat.Messages() {
		if strings.Contains(cm.Text, "Pulled `phi4-mini`") {
			ok = true
		}
	}
	if !ok {
		t.Errorf("no success message:\n%s", chatText(m))
	}
	if !strings.Contains(m.chat.Last().Text, "nonexistent-model-xyz") {
		t.Errorf("the failure should name the model: %q", m.chat.Last().Text)
	}
	if got := progressBar(1, 4, 8); got != "██░░░░░░" {
		t.Errorf("progressBar = %q", got)
	}
}

func TestNewSaveAndLoadCommands(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "First answer."
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("first")
	s.wait("the turn", turnsDone(1))
	s.submit("/save My first chat")
	s.wait("saved", func(m *Model) bool { return strings.Contains(m.notice.text, "saved") })
	var id string
	s.wait("the id", func(m *Model) bool { id = m.conv.Session().ID(); return id != "" })
	s.submit("/new")
	s.wait("a new session", func(m *Model) bool { return len(m.turns) == 0 && m.conv.Session().ID() != id })
	s.submit("/sessions")
	s.wait("the list", func(m *Model) bool { _, ok := m.dialog.(*dialog.Sessions); return ok })
	// Typing searches; a digit is part of the search, never "open #4".
	s.typeText("zzz 4")
	s.wait("no match", func(m *Model) bool { return strings.Contains(frame(m), "(no session matches)") })
	s.key(keyEnter)
	s.wait("the list, still", func(m *Model) bool { _, ok := m.dialog.(*dialog.Sessions); return ok && len(m.turns) == 0 })
	s.key(keyEsc) // clears the search
	s.typeText("my first")
	s.wait("the match", func(m *Model) bool { return strings.Contains(frame(m), "› My first chat") })
	s.key(keyEnter)
	s.wait("the reopened session", func(m *Model) bool { return m.conv.Session().ID() == id && len(m.turns) == 1 })
	// /load completes titles and opens by title.
	s.submit("/new")
	s.wait("a new session", func(m *Model) bool { return len(m.turns) == 0 && m.conv.Session().ID() != id })
	s.typeText("/load my f")
	s.key(tea.KeyPressMsg{Code: tea.KeyTab})
	s.wait("the title completed", func(m *Model) bool { return m.input.Value() == "/load My first chat " })
	s.key(keyEnter)
	s.wait("the session loaded by title", func(m *Model) bool { return m.conv.Session().ID() == id && len(m.turns) == 1 })
	m := s.finish()
	if m.conv.Session().Title() != "My first chat" {
		t.Errorf("title = %q", m.conv.Session().Title())
	}
	if !strings.Contains(chatText(m), "First answer.") {
		t.Error("the reopened chat should show the earlier answer")
	}
	if !slices.Contains(m.sessionIDs, id) {
		t.Errorf("/load completion should know %s: %v", id, m.sessionIDs)
	}
}

func TestCompletion(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.input.Set("/con")
	m.input.Tab()
	if got := m.input.Value(); got != "/constrain " {
		t.Errorf("tab after /con = %q", got)
	}
	m.input.Set("/models image-r")
	m.input.Tab()
	if got := m.input.Value(); got != "/models image-resize " {
		t.Errorf("task completion = %q", got)
	}
	m.input.Set("/s")
	m.input.Tab() // /save, /sessions, /skills: common prefix is "/s": cycle
	first := m.input.Value()
	m.input.Tab()
	second := m.input.Value()
	if first == second || !strings.HasPrefix(first, "/s") || !strings.HasPrefix(second, "/s") {
		t.Errorf("repeated tab should cycle: %q then %q", first, second)
	}
	dir := t.TempDir()
	writeTestPNG(t, dir)
	m.input.Set("look at @" + dir + "/f")
	cmd := m.input.Tab()
	if cmd == nil {
		t.Fatal("file completion reads a directory, so it must come back as a command")
	}
	m.Update(cmd()) // the FileCompletion, as the program would deliver it
	if got := m.input.Value(); got != "look at @"+dir+"/fox.png " {
		t.Errorf("file completion = %q", got)
	}
	// A name with a space completes escaped, so the reference reads back
	// as one file and the file goes with the message.
	spaced := filepath.Join(dir, "my dir")
	if err := os.Mkdir(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestPNG(t, spaced)
	if err := os.Rename(filepath.Join(spaced, "fox.png"), filepath.Join(spaced, "red fox.png")); err != nil {
		t.Fatal(err)
	}
	m.input.Set("look at @" + dir + "/my")
	m.Update(m.input.Tab()())
	if got, want := m.input.Value(), "look at @"+dir+`/my\ dir/`; got != want {
		t.Fatalf("completing a directory with a space = %q, want %q", got, want)
	}
	m.Update(m.input.Tab()()) // walks into it: one file there
	want := "look at @" + dir + `/my\ dir/red\ fox.png `
	if got := m.input.Value(); got != want {
		t.Fatalf("completing a file with a space = %q, want %q", got, want)
	}
	_, files, err := prompt.ResolveAttachments(m.input.Value())
	if err != nil || len(files) != 1 || files[0] != filepath.Join(spaced, "red fox.png") {
		t.Errorf("the completed reference attaches %v (err %v), want the file with the space", files, err)
	}
	m.input.Set("/review o")
	m.input.RefreshHints()
	if labels, _ := m.input.Candidates(); len(labels) != 2 {
		t.Errorf("/review o hints = %v", labels)
	}
}

func TestHuggingFaceTokenNeverShown(t *testing.T) {
	env := newTestEnv(t)
	env.cfg.HuggingFace.Token = "hf_SECRETSECRETSECRET"
	m := env.model(t)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	v := m.View().Content
	if strings.Contains(v, "SECRET") {
		t.Fatal("the Hugging Face token must never be shown")
	}
	if !strings.Contains(ansi.Strip(v), "HF token ✓") {
		t.Error("the status bar should say a token is set")
	}
}

// lastText is the newest chat entry's text ("" for an empty chat).
func lastText(m *Model) string {
	if l := m.chat.Last(); l != nil {
		return l.Text
	}
	return ""
}

// Every slash command is one row of the table: a name and help for /help
// and Tab, and a handler — no name is spelled twice.
func TestCommandTableRows(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range commandTable() {
		if c.run == nil {
			t.Errorf("%s has no handler", c.name)
		}
		if !strings.HasPrefix(c.name, "/") || c.help == "" {
			t.Errorf("%q: a row needs a /name and help for /help", c.name)
		}
		for _, n := range append([]string{c.name}, c.aliases...) {
			if seen[n] {
				t.Errorf("%s is spelled by two rows", n)
			}
			seen[n] = true
		}
	}
}

// /help lists every row of the table, with its arguments and help.
func TestHelpListsTheTable(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	_, lines, _ := m.helpDialog().View(240, 200)
	for _, c := range commandTable() {
		want := strings.TrimSpace(c.name + " " + c.args)
		if !slices.ContainsFunc(lines, func(l string) bool {
			l = ansi.Strip(l)
			return strings.HasPrefix(strings.TrimSpace(l), want+" ") && strings.HasSuffix(l, c.help)
		}) {
			t.Errorf("/help lacks %q — %q:\n%s", want, c.help, strings.Join(lines, "\n"))
		}
	}
}

// While a turn runs, a command that must wait for it is refused with the
// one wording, whichever command it is, and does nothing; one that may run
// during a turn runs.
func TestCommandsDuringATurn(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.cur = &shownTurn{TurnState: &turnview.TurnState{}} // a turn under way
	want := "a turn is running — wait for it, or " + m.keys.Label(theme.ActCancel) + " to cancel it"
	if m.busyRefusal() != want {
		t.Fatalf("busyRefusal = %q", m.busyRefusal())
	}
	refused := 0
	for _, c := range commandTable() {
		for _, arg := range []string{"", "llama3.2:3b"} {
			if c.busy.allows(arg) {
				continue
			}
			refused++
			m.notice = notice{}
			id := m.conv.Session().ID()
			if cmd := m.runCommand(c.name + " " + arg); cmd != nil {
				t.Errorf("%s %s during a turn returned a command", c.name, arg)
			}
			if m.notice.text != want || !m.notice.bad {
				t.Errorf("%s %s during a turn: notice %q, want %q", c.name, arg, m.notice.text, want)
			}
			if m.conv.Session().ID() != id || m.conv.Model() != "qwen3:8b" || m.recording() {
				t.Errorf("%s %s ran during a turn", c.name, arg)
			}
		}
	}
	if refused < 5 { // /new, /load, /model NAME, /retry, /record FILE (and with "")
		t.Errorf("only %d command lines wait for the turn", refused)
	}
	// The same wording where a request or a picked list item meets a turn.
	for what, do := range map[string]func(){
		"a request":        func() { m.submit("hello") },
		"a picked model":   func() { m.onSwitchModel(switchModelMsg{model: "llama3.2:3b"}) },
		"a loaded session": func() { m.onLoaded(loadedMsg{s: m.conv.Session()}) },
	} {
		m.notice = notice{}
		do()
		if m.notice.text != want {
			t.Errorf("%s during a turn: notice %q, want %q", what, m.notice.text, want)
		}
	}

	// Allowed during a turn: they run.
	m.runCommand("/review on")
	if !m.review {
		t.Error("/review on did not run during a turn")
	}
	cmd := m.runCommand("/model")
	if cmd == nil {
		t.Fatal("/model (the list) did not run during a turn")
	}
	if msg, ok := cmd().(modelsListMsg); !ok || msg.err != nil || len(msg.models) != 2 {
		t.Errorf("/model during a turn: %#v", msg)
	}
}
