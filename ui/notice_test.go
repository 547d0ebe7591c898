package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/ui/chat"
)

// TestProgressNoticesEndWithTheirActivity: "cancelling the turn…" and
// "stopping the pull…" describe something under way; once the turn or the
// pull has ended they must be gone without waiting for a key.
func TestProgressNoticesEndWithTheirActivity(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "Let me think about that for a while"
	env.script.stall = true
	env.ollama.SetPullable("phi4-mini", fakeollama.Model{Name: "phi4-mini", ParameterSize: "3.8B"})
	env.ollama.SetPullDelay(time.Second) // long enough to stop it midway
	s := startSession(t, env.model(t), 80, 24)
	s.ready()

	s.submit("tell me a long story")
	s.wait("the answer to stream", func(m *Model) bool {
		return m.cur != nil && strings.Contains(m.cur.Answer, "a while")
	})
	s.key(keyCtrlC)
	s.wait("the cancelled turn", turnsDone(1))
	if f := s.snapshot(); strings.Contains(f, "cancelling the turn") {
		t.Errorf("the turn has ended but the screen still says it is being cancelled:\n%s", f)
	}

	s.submit("/pull phi4-mini")
	s.wait("the pull to start", func(m *Model) bool { return m.pull != nil })
	s.key(keyCtrlC)
	s.wait("the pull to stop", func(m *Model) bool { return m.pull == nil })
	f := s.snapshot()
	if strings.Contains(f, "stopping the pull") {
		t.Errorf("the pull has stopped but the screen still says it is stopping:\n%s", f)
	}
	m := s.finish()
	if !strings.Contains(chatText(m), "Pull of `phi4-mini` stopped") {
		t.Errorf("the chat should say the pull stopped:\n%s", chatText(m))
	}
	if m.quitting {
		t.Error("ctrl+c on a pull must not quit")
	}
}

// TestUnrelatedNoticeOutlivesTheTurn: only a notice about the turn clears
// when it ends; one the user got meanwhile (a copy) stays until a key.
func TestUnrelatedNoticeOutlivesTheTurn(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.flashWhile("cancelling the turn…", turnActivity)
	m.flash("copied the last answer", false)
	m.ended(turnActivity)
	if m.notice.text != "copied the last answer" {
		t.Errorf("notice = %q, want the copy notice kept", m.notice.text)
	}
	m.flashWhile("cancelling the turn…", turnActivity)
	m.ended(pullActivity)
	if m.notice.text == "" {
		t.Error("the end of a pull must not clear a notice about the turn")
	}
	m.ended(turnActivity)
	if m.notice.text != "" {
		t.Errorf("notice = %q, want it cleared with the turn", m.notice.text)
	}
}

// TestLongErrorsReachTheChatInFull: an error notice wider than the hint
// line is cut there, so it also goes to the chat whole — the part cut off
// is often the one that names the fix. Short errors stay on the hint line.
func TestLongErrorsReachTheChatInFull(t *testing.T) {
	env := newTestEnv(t)
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	missing := "./pictures/holiday/2025/the-one-with-the-fox.png"
	s.submit("look at @" + missing)
	s.wait("the refusal", func(m *Model) bool { return m.notice.text != "" && !m.submitting })
	s.key(keyCtrlC) // the refused prompt is kept: clear it
	s.submit("/constrain bogus=1")
	s.wait("the second refusal", func(m *Model) bool { return strings.Contains(m.notice.text, "bogus") })
	s.submit("/nosuchcommand")
	s.wait("the short refusal", func(m *Model) bool { return strings.Contains(m.notice.text, "unknown command") })
	m := s.finish()
	var errs []string
	for _, cm := range m.chat.Messages() {
		if cm.Role == chat.RoleError {
			errs = append(errs, cm.Text)
		}
	}
	if len(errs) != 2 {
		t.Fatalf("want the two long errors in the chat, got %q", errs)
	}
	if !strings.Contains(errs[0], missing) || !strings.Contains(errs[0], "Tab completes file names") {
		t.Errorf("the attachment error should be whole in the chat: %q", errs[0])
	}
	if !strings.Contains(errs[1], "bogus=1") || !strings.HasSuffix(strings.TrimSpace(errs[1]), ")") {
		t.Errorf("the constraint error should be whole in the chat: %q", errs[1])
	}
}

// TestHintLineKeepsTheHelpKey: on a narrow terminal the idle hint line
// drops its least useful entries whole, rather than cutting off the key
// that opens the help at its end.
func TestHintLineKeepsTheHelpKey(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	for _, w := range []int{50, 60, 80, 100} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		line := ansi.Strip(m.hintLine())
		if !strings.Contains(line, "f1 help") || strings.Contains(line, "…") {
			t.Errorf("at %d columns the hint line is %q: want whole entries ending with f1 help", w, line)
		}
		if !strings.HasPrefix(line, "enter send") {
			t.Errorf("at %d columns the hint line is %q: want enter send first", w, line)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	if line := ansi.Strip(m.hintLine()); !strings.Contains(line, "ctrl+y copy") {
		t.Errorf("a wide hint line should keep every entry: %q", line)
	}
}

// TestDoubleCtrlCCancelsWithoutQuitting: Ctrl+C twice to stop a turn is
// common, and the turn often ends between the presses. The second press
// must not quit; it says the next one will, and that one does.
func TestDoubleCtrlCCancelsWithoutQuitting(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "Let me think about that for a while"
	env.script.stall = true
	s := startSession(t, env.model(t), 80, 24)
	s.ready()
	s.submit("tell me a long story")
	s.wait("the answer to stream", func(m *Model) bool {
		return m.cur != nil && strings.Contains(m.cur.Answer, "a while")
	})
	s.key(keyCtrlC)
	s.wait("the cancelled turn", turnsDone(1))
	s.key(keyCtrlC)
	s.wait("the warning", func(m *Model) bool { return strings.Contains(m.notice.text, "again quits") })
	if f := s.snapshot(); !strings.Contains(f, "ctrl+c again quits") {
		t.Errorf("the hint line should say the next ctrl+c quits:\n%s", f)
	}
	s.key(keyCtrlC)
	m := s.tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*probe).Model
	m.saves.Wait()
	if !m.quitting {
		t.Fatal("the third ctrl+c on an idle, empty prompt should quit")
	}
}
