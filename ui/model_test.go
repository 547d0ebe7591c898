package ui

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

func (s *tsession) submit(text string) {
	s.typeText(text)
	s.key(keyEnter)
}

func (s *tsession) ready() {
	s.t.Helper()
	s.wait("the Ollama check", func(m *Model) bool { return m.server.checked })
}

func turnsDone(n int) func(*Model) bool {
	return func(m *Model) bool { return len(m.turns) == n && m.turns[n-1].Done }
}

// chatText is every message's source.
func chatText(m *Model) string { return m.chat.Text() }

func TestOllamaUnreachableExplainsAndRetries(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	host := env.eng.Controller().Host()
	env.ollama.Stop()
	msg := m.checkServer()()
	om, ok := msg.(serverMsg)
	if !ok || om.status.Reachable {
		t.Fatalf("check of a stopped Ollama = %#v", msg)
	}
	retry := m.onServer(om)
	if retry == nil {
		t.Fatal("an unreachable Ollama must be checked again in the background")
	}
	text := chatText(m)
	for _, want := range []string{"not reachable at " + host, "ollama serve", "ollama pull qwen3:8b"} {
		if !strings.Contains(text, want) {
			t.Errorf("the notice lacks %q:\n%s", want, text)
		}
	}
	// The next failed check says nothing new.
	n := len(m.chat.Messages())
	m.onServer(om)
	if len(m.chat.Messages()) != n {
		t.Error("each retry repeated the notice")
	}
	if !strings.Contains(ansi.Strip(m.statusLine(fixedNow)), "unreachable") {
		t.Errorf("status bar should say Ollama is unreachable: %q", ansi.Strip(m.statusLine(fixedNow)))
	}
	// Ollama comes up: one message, no more retries.
	up := serverMsg{gen: m.serverGen, model: "qwen3:8b", status: controller.Status{Reachable: true, Pulled: true, Version: "0.11.4"}}
	if cmd := m.onServer(up); cmd != nil {
		t.Error("no retries once Ollama is up with the model")
	}
	if stale := (serverMsg{gen: m.serverGen - 1, model: "qwen3:8b"}); m.onServer(stale) != nil {
		t.Error("a superseded check must not start retries")
	}
	if !strings.Contains(m.chat.Last().Text, "reachable now") {
		t.Errorf("want a recovery note, got %q", m.chat.Last().Text)
	}
	// The model missing says how to pull it.
	down := serverMsg{gen: m.serverGen, model: "qwen3:8b", status: controller.Status{Reachable: true, Version: "0.11.4", Err: errors.New("model not found")}}
	if m.onServer(down) == nil || !strings.Contains(m.chat.Last().Text, "/pull qwen3:8b") {
		t.Errorf("a missing model should be explained with /pull: %q", m.chat.Last().Text)
	}
	// The version is best-effort: without it the sentence still reads.
	m.server.announced = ""
	noVersion := serverMsg{gen: m.serverGen, model: "qwen3:8b", status: controller.Status{Reachable: true}}
	m.onServer(noVersion)
	if got := m.chat.Last().Text; !strings.HasPrefix(got, "**Ollama is up") {
		t.Errorf("without a version: %q", got)
	}
}

func TestTurnWithOllamaDownKeepsTheApp(t *testing.T) {
	env := newTestEnv(t)
	env.ollama.Stop()
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("hello?")
	s.wait("the failed turn", turnsDone(1))
	s.submit("/help")
	s.wait("the help dialog", func(m *Model) bool { return m.dialog != nil })
	m := s.finish()
	var ce *controller.Error
	if !errors.As(m.turns[0].Err, &ce) || !errors.Is(ce, controller.ErrUnreachable) {
		t.Fatalf("turn error = %v, want an unreachable controller", m.turns[0].Err)
	}
	if !strings.Contains(chatText(m), "ollama serve") {
		t.Errorf("the chat should say how to start Ollama:\n%s", chatText(m))
	}
}

func TestHistoryRecallAndCtrlC(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("first question")
	s.wait("turn 1", turnsDone(1))
	s.submit("second question")
	s.wait("turn 2", turnsDone(2))
	s.key(keyUp)
	s.wait("recall of the last prompt", func(m *Model) bool { return m.input.Value() == "second question" })
	s.key(keyUp)
	s.wait("recall of the one before", func(m *Model) bool { return m.input.Value() == "first question" })
	s.key(tea.KeyPressMsg{Code: tea.KeyDown})
	s.wait("forward again", func(m *Model) bool { return m.input.Value() == "second question" })
	s.key(keyCtrlC) // clears the prompt, does not quit
	s.wait("a cleared prompt", func(m *Model) bool { return m.input.Empty() })
	s.key(keyCtrlC) // empty and idle: quit
	m := s.tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*probe).Model
	m.saves.Wait()
	if !m.quitting {
		t.Fatal("Ctrl+C on an idle, empty prompt should quit")
	}
	if len(m.turns) != 2 {
		t.Fatalf("turns = %d", len(m.turns))
	}
	// The second turn got the first as history.
	reqs := env.ollama.ChatRequests()
	last := reqs[len(reqs)-1]
	found := false
	for _, msg := range last.Messages {
		if msg.Content == "first question" {
			found = true
		}
	}
	if !found {
		t.Error("the second turn's answer request lacks the first turn in its history")
	}
}

func TestAttachmentErrorsKeepThePrompt(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("describe @./no/such/file.png please")
	s.wait("the notice", func(m *Model) bool { return m.notice.text != "" })
	m := s.finish()
	if len(m.turns) != 0 {
		t.Fatal("a request naming a missing file must not be sent")
	}
	if !strings.Contains(m.notice.text, "cannot attach @./no/such/file.png") || !m.notice.bad {
		t.Errorf("notice = %q", m.notice.text)
	}
	if !strings.Contains(m.input.Value(), "no/such/file.png") {
		t.Error("the prompt should keep the text so it can be fixed")
	}
}

func TestPastedPathAttaches(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "A gradient."
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.typeText("what is this? ")
	s.tm.Send(tea.PasteMsg{Content: "'" + env.image + "'\n"})
	s.wait("the attachment in the prompt", func(m *Model) bool { return strings.Contains(m.input.Value(), "@"+env.image) })
	s.key(keyEnter)
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	if got := m.turns[0].Attachments; len(got) != 1 || got[0] != env.image {
		t.Fatalf("attachments = %v", got)
	}
	// The planner saw the attachment.
	plan := env.ollama.ChatRequests()[0]
	if !strings.Contains(plan.Messages[len(plan.Messages)-1].Content, env.image+" (image)") {
		t.Error("the planning prompt does not list the attached image")
	}
}

func TestCopyUsesOSC52(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "Copy me, please."
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("say something")
	s.wait("the turn", turnsDone(1))
	s.key(tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl})
	s.wait("the copy notice", func(m *Model) bool { return strings.Contains(m.notice.text, "copied") })
	// The terminal gets the answer's source in an OSC 52 sequence.
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("Copy me, please."))
	teatest.WaitFor(t, s.tm.Output(), func(b []byte) bool { return strings.Contains(string(b), want) },
		teatest.WithDuration(guard), teatest.WithCheckInterval(10*time.Millisecond))
	m := s.finish()
	if m.chat.LastAnswer().Text != "Copy me, please." {
		t.Errorf("last answer = %q", m.chat.LastAnswer().Text)
	}
}

func TestCopyPickerOffersCodeBlocksAndPaths(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Run this:\n\n```sh\nfile out.jpg\n```\n\nand this:\n\n```\nls\n```"
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	s.key(tea.KeyPressMsg{Code: 'y', Mod: tea.ModAlt})
	s.wait("the picker", func(m *Model) bool { return m.dialog != nil })
	s.key(tea.KeyPressMsg{Code: '2', Text: "2"}) // the first code block
	s.wait("the copy", func(m *Model) bool { return strings.Contains(m.notice.text, "copied code block 1") })
	want := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("file out.jpg"))
	teatest.WaitFor(t, s.tm.Output(), func(b []byte) bool { return strings.Contains(string(b), want) },
		teatest.WithDuration(guard), teatest.WithCheckInterval(10*time.Millisecond))
	m := s.finish()
	if len(m.turns[0].Files()) != 2 {
		t.Fatal("expected two generated files")
	}
}

func TestRawToggleShowsSource(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "This is **bold**."
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("bold please")
	s.wait("the turn", turnsDone(1))
	s.key(tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl})
	s.wait("raw mode", func(m *Model) bool { return m.raw })
	m := s.finish()
	if f := frame(m); !strings.Contains(f, "This is **bold**.") {
		t.Errorf("raw mode should show the Markdown source:\n%s", f)
	}
	m.raw = false
	if f := frame(m); strings.Contains(f, "**bold**") || !strings.Contains(f, "This is bold.") {
		t.Errorf("rendered mode should hide the markup:\n%s", f)
	}
}

// Every size from tiny to huge gives exactly one screen: as many lines as
// rows, none wider than the terminal, in both layouts.
func TestLayoutFitsEverySize(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = fullTurnAnswer
	s := startSession(t, env.model(t), 160, 48)
	s.ready()
	s.submit("make @" + env.image + " small")
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	for _, sz := range [][2]int{{20, 8}, {40, 12}, {80, 24}, {100, 30}, {119, 40}, {120, 40}, {160, 48}, {250, 70}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		for _, panes := range []bool{true, false} {
			m.panes.shown = panes
			lines := strings.Split(m.View().Content, "\n")
			if len(lines) != m.height {
				t.Errorf("%dx%d panes=%v: %d lines", sz[0], sz[1], panes, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > m.width {
					t.Errorf("%dx%d panes=%v: line %d is %d wide: %q", sz[0], sz[1], panes, i, w, ansi.Strip(l))
				}
			}
		}
	}
}

func TestFileLinksAreOSC8(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Done."
	s := startSession(t, env.model(t), 160, 48)
	s.ready()
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	m := s.finish()
	v := m.View().Content
	for _, f := range m.turns[0].Files() {
		if !strings.Contains(v, "\x1b]8;;"+chat.FileURL(f)) {
			t.Errorf("no OSC 8 link to %s on screen", f)
		}
	}
	m.links = false
	for _, cm := range m.chat.Messages() {
		cm.Invalidate()
	}
	if strings.Contains(m.View().Content, "\x1b]8;;file:") {
		t.Error("links stay off where the terminal cannot show them")
	}
}

func TestInlineImagePreview(t *testing.T) {
	env := newTestEnv(t)
	opts := env.options(t)
	opts.Getenv = fixedEnv(map[string]string{"NO_COLOR": "", "CHORUS_IMAGES": "blocks"})
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s := startSession(t, m, 100, 40)
	s.ready()
	s.submit("what is @" + env.image + " ?")
	s.wait("the preview", func(m *Model) bool {
		return m.thumbs[chat.ThumbKeyFor(env.image, m.chatWidth()-1, m.height)] != ""
	})
	m = s.finish()
	if !strings.Contains(ansi.Strip(m.View().Content), "▀") {
		t.Errorf("the attached image should be previewed with half-blocks:\n%s", frame(m))
	}
}

func TestExportWritesTranscript(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Converted."
	out := filepath.Join(t.TempDir(), "chat.md")
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	s.submit("/export " + out)
	s.wait("the export", func(m *Model) bool { return strings.Contains(lastText(m), "Exported") })
	m := s.finish()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"convert " + env.image, "Converted."}, m.turns[0].Files()...) {
		if !strings.Contains(string(b), want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
}

// A saved session reopens and continues: the files of its turns reach the
// next request's planner through the chat log ("the image you made").
func TestSessionReopensAndContinues(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Converted."
	opts := env.options(t)
	m1, _ := New(opts)
	s := startSession(t, m1, 100, 30)
	s.ready()
	s.submit("convert @" + env.image)
	s.wait("the turn", turnsDone(1))
	m1 = s.finish()
	m1.shutdown() // what Run does on the way out: the session is saved
	id := m1.conv.Session().ID()
	made := m1.turns[0].Files()

	env.script.plan = `{"tasks": []}`
	env.script.answer = "It is the JPEG from before."
	opts.Resume = "latest"
	m2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if m2.conv.Session().ID() != id || len(m2.turns) != 1 {
		t.Fatalf("resumed session %s with %d turns, want %s with 1", m2.conv.Session().ID(), len(m2.turns), id)
	}
	s2 := startSession(t, m2, 100, 30)
	s2.ready()
	s2.submit("what is the image you made before?")
	s2.wait("the turn", turnsDone(2))
	m2 = s2.finish()
	m2.shutdown()
	reqs := env.ollama.ChatRequests()
	var planPrompt string
	for _, r := range reqs {
		if planStage(&r) == pipeline.StagePlanning {
			planPrompt = ""
			for _, m := range r.Messages { // the chat log precedes the request
				planPrompt += m.Content + "\n"
			}
		}
	}
	for _, f := range made {
		if !strings.Contains(planPrompt, f) {
			t.Errorf("the planner's chat log lacks the earlier file %s:\n%s", f, planPrompt)
		}
	}
	if saved := savedTurns(t, m2); len(saved) != 2 {
		t.Fatalf("the continued session should hold 2 turns: %+v", saved)
	}
	// Reopened again, the second turn (planned, no tasks) must not read as
	// one that ended before planning.
	m3, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	pc := turnview.RenderContext{Styles: &m3.st, Turn: m3.lastTurnView(), Now: fixedNow, Width: 60}
	if got := ansi.Strip(strings.Join(turnview.PlanLines(pc), "\n")); !strings.Contains(got, "No expert tasks") {
		t.Errorf("the reopened turn's Plan pane = %q, want the controller answering directly", got)
	}
}

// TestResumeLatestWithNothingSaved: the first run with --resume latest is
// no error, just a new chat; a session id that does not exist is one.
func TestResumeLatestWithNothingSaved(t *testing.T) {
	env := newTestEnv(t)
	opts := env.options(t)
	opts.Resume = "latest"
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if last := m.chat.Last(); last == nil || last.Role != chat.RoleSystem || !strings.Contains(last.Text, "No saved session to resume yet") {
		t.Errorf("resuming with nothing saved should say a new chat starts, got %+v", last)
	}
	opts.Resume = "20260314-150926-000-deadbeef"
	m, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if last := m.chat.Last(); last == nil || last.Role != chat.RoleError || !strings.Contains(last.Text, "not found") {
		t.Errorf("resuming a session that does not exist is an error, got %+v", last)
	}
}

// TestReopenedTurnsKnowWhetherTheyWerePlanned: an empty plan is a plan
// (the controller answered directly); only a turn that ended before
// planning has none. Files from before the planned flag tell it by their
// finished answer.
func TestReopenedTurnsKnowWhetherTheyWerePlanned(t *testing.T) {
	st := theme.NewStyles()
	for _, c := range []struct {
		name string
		rec  conversation.Record
		want string
	}{
		{"planned, no tasks", conversation.Record{Request: "hi", Answer: "Hello", Planned: true}, "No expert tasks"},
		{"older file, answered", conversation.Record{Request: "hi", Answer: "Hello", Report: &pipeline.Report{Answer: "Hello"}}, "No expert tasks"},
		{"failed while planning", conversation.Record{Request: "hi", Error: "Ollama is not reachable", Report: &pipeline.Report{}}, "No plan"},
		{"cancelled while planning", conversation.Record{Request: "hi", Cancelled: true}, "No plan"},
	} {
		tr := turnFromRecord(1, c.rec, "qwen3:8b")
		got := ansi.Strip(strings.Join(turnview.PlanLines(turnview.RenderContext{Styles: &st, Turn: tr.TurnState, Now: fixedNow, Width: 60}), "\n"))
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: Plan pane = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestNoInputBlocksOnAFinishedProgram(t *testing.T) {
	// Run returns an error for missing options instead of panicking.
	if err := Run(testCtx(t), Options{}); err == nil {
		t.Fatal("Run without Config and Engine must fail")
	}
	env := newTestEnv(t)
	cfg := *env.cfg
	cfg.UI.Keys = map[string][]string{"nonsense": {"x"}}
	if _, err := New(Options{Config: &cfg, Service: testService(t, env.eng, t.TempDir())}); err == nil || !strings.Contains(err.Error(), "ui.keys.nonsense") {
		t.Fatalf("bad key config error = %v", err)
	}
}

// The app's styles and Glamour's output reach the terminal in the colours
// it supports: nothing beyond the 16 ANSI colours on a 16-colour terminal,
// no colour at all under NO_COLOR (bold and friends stay).
//
// Only SGR sequences (ESC [ … m) are judged: a cursor move to row 38 or 48
// ("\x1b[38;62H") is not a colour, and an earlier pattern that ignored the
// final byte failed whenever the renderer happened to move there — which
// it does on a busy machine, where frames coalesce differently.
func TestColourProfiles(t *testing.T) {
	for _, c := range []struct {
		name    string
		profile colorprofile.Profile
		bad     func(params []string) bool
	}{
		{"ansi16", colorprofile.ANSI, func(ps []string) bool {
			for i, p := range ps {
				if (p == "38" || p == "48") && i+1 < len(ps) && (ps[i+1] == "5" || ps[i+1] == "2") {
					return true
				}
			}
			return false
		}},
		{"no-color", colorprofile.Ascii, func(ps []string) bool {
			for _, p := range ps {
				n, err := strconv.Atoi(p)
				if err == nil && (n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107) {
					return true
				}
			}
			return false
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newTestEnv(t)
			env.script.answer = "# Title\n\nSome **bold** text and `code`.\n\n```go\nfunc main() {}\n```"
			p := &probe{Model: env.model(t)}
			tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(120, 40),
				teatest.WithProgramOptions(tea.WithColorProfile(c.profile)))
			s := &tsession{t: t, tm: tm, p: p}
			t.Cleanup(func() { _ = tm.Quit() })
			s.ready()
			s.submit("show me")
			s.wait("the turn", turnsDone(1))
			s.finish()
			out, err := io.ReadAll(tm.FinalOutput(t))
			if err != nil {
				t.Fatal(err)
			}
			for _, loc := range sgr.FindAllSubmatchIndex(out, -1) {
				params := strings.FieldsFunc(string(out[loc[2]:loc[3]]), func(r rune) bool { return r == ';' || r == ':' })
				if c.bad(params) {
					t.Errorf("%s output has a colour the terminal cannot show: %q", c.name, out[loc[0]:loc[1]])
					break
				}
			}
			if !bytes.Contains(out, []byte("Title")) {
				t.Error("the answer was not drawn")
			}
		})
	}
}

// sgr matches a Select Graphic Rendition sequence and captures its
// parameters.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// Quitting during a turn keeps what it had: the turn is saved as cancelled
// with its partial answer.
func TestQuitDuringTurnSavesIt(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "A partial"
	env.script.stall = true
	s := startSession(t, env.model(t), 100, 30)
	s.ready()
	s.submit("long one")
	s.wait("streaming", func(m *Model) bool { return m.cur != nil && strings.Contains(m.cur.Answer, "partial") })
	s.submit("/quit")
	m := s.tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*probe).Model
	m.shutdown()
	saved := savedTurns(t, m)
	if len(saved) != 1 || !saved[0].Cancelled || !strings.Contains(saved[0].Answer, "A partial") {
		t.Fatalf("saved turns = %+v", saved)
	}
}

// TestResumeWithANamedModel: chorus --resume TITLE -m llava runs llava, not
// the model the session was saved with, and the status line says which
// model runs and that it replaced the session's.
func TestResumeWithANamedModel(t *testing.T) {
	env := newTestEnv(t)
	opts := env.options(t)
	st := sessions.Store{Dir: opts.Service.Dir()}
	old := st.New("")
	old.Title, old.Model = "a fox", "llama3.2:3b"
	old.AddTurn(sessions.Record{Request: "hi", Answer: "hello"})
	if err := st.Save(old); err != nil {
		t.Fatal(err)
	}
	opts.Resume, opts.Model = old.ID, "llava"
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.conv.Model(); got != "llava" {
		t.Fatalf("resumed with -m llava, the controller is %q", got)
	}
	m.width = 120
	status := ansi.Strip(m.statusLine(fixedNow))
	if !strings.Contains(status, " llava ") {
		t.Errorf("the status line does not name llava: %q", status)
	}
	if !strings.Contains(m.notice.text, "llava") || !strings.Contains(m.notice.text, "llama3.2:3b") {
		t.Errorf("nothing says llava replaced the session's llama3.2:3b: %q", m.notice.text)
	}
	// Without -m the session's model comes back, as before.
	opts.Model = ""
	m, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.conv.Model(); got != "llama3.2:3b" {
		t.Errorf("resumed without -m, the controller is %q, want the session's", got)
	}
}
