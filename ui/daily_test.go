package ui

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/prompt"
)

// TestCancelClosesTheCodeBlock: an answer cancelled inside a code block
// gets the block closed before "_Cancelled._", so the note is not code.
func TestCancelClosesTheCodeBlock(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "Here is the code:\n\n```go\nfunc main() {\n\tfmt.Println(1)"
	env.script.stall = true
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("write a program")
	s.wait("the code to stream", func(m *Model) bool { return m.cur != nil && strings.Contains(m.cur.Answer, "Println") })
	s.key(keyCtrlC)
	s.wait("the turn to end", turnsDone(1))
	m := s.finish()
	if a := m.turns[0].Answer; !strings.HasSuffix(a, "fmt.Println(1)\n```\n\n_Cancelled._") {
		t.Fatalf("answer = %q", a)
	}
	f := frame(m)
	if !strings.Contains(f, "Cancelled.") || strings.Contains(f, "_Cancelled._") {
		t.Fatalf("the note should render as text after the block:\n%s", f)
	}
}

// TestComposedPromptIsNotSent: what the editor gives back lands in the
// prompt, to be read over and sent with enter.
func TestComposedPromptIsNotSent(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.input.Set("draft")
	m.Update(prompt.Composed{Text: "a long\nprompt from the editor"})
	if m.input.Value() != "a long\nprompt from the editor" || len(m.turns) != 0 {
		t.Fatalf("prompt %q, %d turns", m.input.Value(), len(m.turns))
	}
	m.Update(prompt.Composed{Text: "draft", Err: errString("editor \"nano\" not found — set $EDITOR")})
	if m.input.Value() != "a long\nprompt from the editor" || !strings.Contains(m.notice.text, "set $EDITOR") {
		t.Fatalf("a failed editor changed the prompt (%q) or said nothing (%q)", m.input.Value(), m.notice.text)
	}
	// ctrl+e opens the editor through tea.Exec; ctrl+z suspends.
	if cmd := m.onKey(tea.KeyPressMsg{Code: 'e', Mod: tea.ModCtrl}); cmd == nil {
		t.Fatal("ctrl+e did nothing")
	}
	if cmd := m.onKey(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl}); cmd == nil || cmd() != tea.Suspend() {
		t.Fatal("ctrl+z does not suspend")
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestLongAnswerKeepsItsTopInView: at 80×24 a finished answer taller than
// the chat shows from its first line, not its last.
func TestLongAnswerKeepsItsTopInView(t *testing.T) {
	env := newTestEnv(t)
	var b strings.Builder
	b.WriteString("FIRST LINE of the answer.\n\n")
	for i := range 40 {
		b.WriteString("- point number " + string(rune('a'+i%26)) + "\n")
	}
	b.WriteString("\nLAST LINE of the answer.")
	env.script.answer = b.String()
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("tell me many things")
	s.wait("the answer", turnsDone(1))
	m := s.finish()
	f := frame(m)
	if !strings.Contains(f, "FIRST LINE") || strings.Contains(f, "LAST LINE") || !strings.Contains(f, "more below") {
		t.Fatalf("the answer's top should be in view, with more below:\n%s", f)
	}
	// The next frame (a preview, a tick) keeps it there.
	if f2 := frame(m); f2 != f {
		t.Fatalf("the view moved:\n%s", f2)
	}
}

// TestCopyPickerOffersEveryMessage: any message can be copied, not only
// the last answer.
func TestCopyPickerOffersEveryMessage(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "The first answer."
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("question one")
	s.wait("the first answer", turnsDone(1))
	env.script.mu.Lock()
	env.script.answer = "The second answer:\n\n```sh\necho hi\n```"
	env.script.mu.Unlock()
	s.submit("question two")
	s.wait("the second answer", turnsDone(2))
	s.key(tea.KeyPressMsg{Code: 'y', Mod: tea.ModAlt})
	s.wait("the picker", func(m *Model) bool { return m.dialog != nil })
	m := s.finish()
	f := frame(m)
	for _, want := range []string{"the last answer", "code block 1 (sh)", "your message", "question one", "an answer", "The first answer."} {
		if !strings.Contains(f, want) {
			t.Errorf("the picker lacks %q:\n%s", want, f)
		}
	}
	// Newest first: the last answer, its code block, "question two",
	// then the first answer.
	if cmd := m.onPick(3); cmd == nil || !strings.Contains(m.notice.text, "copied an answer (17 characters)") {
		t.Fatalf("picking the older answer copied %q", m.notice.text)
	}
}

// TestDeleteSessionFromTheList: the Sessions dialog's delete removes the
// file and the id from /load's completion.
func TestDeleteSessionFromTheList(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	st := sessions.Store{Dir: m.conv.Service().Dir()}
	old := st.New("")
	old.Title = "an old chat"
	old.AddTurn(sessions.Record{Request: "hi", Answer: "hello"})
	if err := st.Save(old); err != nil {
		t.Fatal(err)
	}
	m.Update(m.listSessions(quietList)())
	if !slices.Contains(m.sessionIDs, old.ID) || !slices.Contains(m.sessionTitles, "an old chat") {
		t.Fatalf("completion does not know the session: %v %v", m.sessionIDs, m.sessionTitles)
	}
	cmd := m.onDialogAction(dialog.Delete{ID: old.ID})
	m.Update(cmd())
	m.Update(m.listSessions(quietList)())
	if _, err := st.Load(old.ID); err == nil || slices.Contains(m.sessionIDs, old.ID) {
		t.Fatalf("the session is still there (%v) or completed: %v", err, m.sessionIDs)
	}
}

// TestConstrainWarnsWhenNothingQualifies: local-only in huggingface mode
// is said at once, at /constrain and at start from the config.
func TestConstrainWarnsWhenNothingQualifies(t *testing.T) {
	env := newTestEnv(t)
	env.eng = pipeline.New(env.eng.Controller(), env.eng.Catalog(), endpoints.NewRouter(endpoints.ModeHuggingFace, builtin.New()), pipeline.Options{})
	m := env.model(t)
	m.constrain("local-only")
	if last := m.chat.Last(); last == nil || !strings.Contains(last.Text, "local-only with inference_mode huggingface") {
		t.Fatalf("no warning at /constrain: %q", chatText(m))
	}
	opts := env.options(t)
	opts.Constraints = pipeline.Constraints{LocalOnly: true}
	m2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(chatText(m2), "local-only with inference_mode huggingface") {
		t.Fatalf("no warning at start: %q", chatText(m2))
	}
}

// TestAudioOverSSHOffersTheFile: in an ssh session alt+a does not play on
// the server; it says where the sound would play and offers the file as a
// link. A second press plays it there anyway.
func TestAudioOverSSHOffersTheFile(t *testing.T) {
	env := newTestEnv(t)
	opts := env.options(t)
	opts.Getenv = fixedEnv(map[string]string{"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.1 22"})
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	wav := env.out + "/speech.wav"
	m.chat.Add(&chat.Message{Role: chat.RoleAssistant, Text: "Here it is.", Files: []string{wav}, Final: true})
	if cmd := m.togglePlay(); cmd != nil || m.play != nil {
		t.Fatal("alt+a over ssh started playback on the server")
	}
	last := m.chat.Last()
	if last.Role != chat.RoleSystem || !slices.Contains(last.Files, wav) || !strings.Contains(last.Text, "ssh session") || !strings.Contains(last.Text, "the machine Chorus runs on") {
		t.Fatalf("the offer: %+v", last)
	}
	if f := frame(m); !strings.Contains(f, "speech.wav") {
		t.Fatalf("the file is not shown:\n%s", f)
	}
	if cmd := m.togglePlay(); cmd == nil || m.play == nil {
		t.Fatal("a second alt+a should play it anyway")
	}
	m.play.cancel()
}

// TestComposeIsLocalOnly: a chat served over ssh starts no editor on the
// server (it would hand the remote user a shell there).
func TestComposeIsLocalOnly(t *testing.T) {
	m, _ := remoteModel(t)
	if cmd := m.compose(); cmd != nil || !strings.Contains(m.notice.text, "no editor for a chat served over ssh") {
		t.Fatalf("compose over ssh: %q", m.notice.text)
	}
}
