package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/chat"
)

// fakeMedia records what the app asked of ui/media.
type fakeMedia struct {
	mu      sync.Mutex
	played  []string
	playing chan struct{}
}

func (f *fakeMedia) Thumb(string, int, int) (string, error) { return "▀▀", nil }

func (f *fakeMedia) Full(path string, cols, rows int) (string, error) {
	return "\x1b_Gf=100;IMAGE\x1b\\", nil
}

func (f *fakeMedia) Protocol() string { return "kitty" }

func (f *fakeMedia) Player() (string, bool) { return "ffplay", true }

func (f *fakeMedia) Play(ctx context.Context, path string) error {
	f.mu.Lock()
	f.played = append(f.played, path)
	f.mu.Unlock()
	close(f.playing)
	<-ctx.Done()
	return errors.New("playback of " + path + " stopped: " + ctx.Err().Error())
}

func TestPlayAudioTogglesAndStops(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	fm := &fakeMedia{playing: make(chan struct{})}
	m.media = fm
	if m.togglePlay() != nil || !strings.Contains(m.notice.text, "no audio") {
		t.Fatalf("without audio in the chat: %q", m.notice.text)
	}
	m.chat.Add(&chat.Message{Role: chat.RoleAssistant, Final: true, Files: []string{"/out/a.wav", "/out/b.png"}})
	cmd := m.togglePlay()
	if cmd == nil || m.play == nil {
		t.Fatal("alt+a should start playback")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	<-fm.playing
	if !strings.Contains(ansi.Strip(m.statusLine(fixedNow)), "playing") {
		t.Error("the status bar should show playback")
	}
	m.togglePlay() // again: stop
	msg := <-done
	m.Update(msg)
	if m.play != nil {
		t.Error("playback state should clear when it stops")
	}
	if len(fm.played) != 1 || fm.played[0] != "/out/a.wav" {
		t.Errorf("played %v", fm.played)
	}
}

func TestImageViewerDrawsAndWaitsForAKey(t *testing.T) {
	var out strings.Builder
	v := &imageViewer{mp: &fakeMedia{}, path: "/out/fox.png", cols: 80, rows: 24}
	v.SetStdout(&out)
	v.SetStdin(strings.NewReader("q"))
	if err := v.Run(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "\x1b_Gf=100;IMAGE\x1b\\") || !strings.Contains(s, "/out/fox.png — press any key") {
		t.Errorf("viewer output = %q", s)
	}
	if !strings.HasSuffix(s, "\x1b_Ga=d\x1b\\\x1b[2J\x1b[H") {
		t.Error("the viewer should delete kitty images and clear the screen on the way out")
	}
}
