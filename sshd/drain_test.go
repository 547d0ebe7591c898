package sshd_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/chorusai/chorus/internal/testkit"
)

// savedTurns reads the turns of the one session a key's user saved.
func savedTurns(t *testing.T, s *server, k gossh.Signer) []map[string]any {
	t.Helper()
	return testkit.SavedTurns(t, filepath.Join(s.users, userDir(k), "sessions", "*.json"))
}

// TestDrainLetsTheTurnFinish: a drain closes the listener, tells every
// chat the server is restarting — a chat mid-turn that its turn finishes
// first — lets the turn stream to its end, saves it whole, tells each user
// their session is saved, and Serve returns.
func TestDrainLetsTheTurnFinish(t *testing.T) {
	t.Parallel()
	s := startServer(t, 4, oneSlotWithExpert(t))
	st := &streams{ch: map[string]chan string{}}
	scriptedTurns(s, st)
	alice, bob := testKey(t, 1), testKey(t, 2)
	s.allow(t, bob)
	_, ta := s.open(t, alice, 100, 30)
	_, tb := s.open(t, bob, 100, 30)
	ma, mb := ta.waitFor(t, 0, "Ask anything"), tb.waitFor(t, 0, "Ask anything")
	ta.typeText(t, "summarise the notes TAG-1\r")
	answer := st.of("TAG-1")
	answer <- "The first half,"
	ma = ta.waitFor(t, ma, "The first half,")

	drained := make(chan struct{})
	go func() {
		s.srv.Drain(context.Background())
		close(drained)
	}()
	ma = ta.waitFor(t, ma, "your turn finishes first")
	tb.waitFor(t, mb, "this chat closes in a moment")
	if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the server still takes connections while it drains")
	}
	answer <- " then the second half."
	close(answer)
	ta.waitFor(t, ma, "then the second half.")
	ta.waitFor(t, ma, "the server is restarting — your session is saved")
	tb.waitFor(t, mb, "the server is restarting — your session is saved")
	select {
	case <-drained:
	case <-time.After(guard):
		t.Fatal("Drain did not return")
	}
	select {
	case <-s.stopped:
	case <-time.After(guard):
		t.Fatal("Serve did not return after the drain")
	}
	if s.serveErr != nil {
		t.Fatalf("Serve: %v", s.serveErr)
	}
	turns := savedTurns(t, s, alice)
	if len(turns) != 1 || !strings.HasPrefix(fmt.Sprint(turns[0]["answer"]), "The first half, then the second half.") || turns[0]["cancelled"] == true {
		t.Fatalf("the turn saved: %v", turns)
	}
}

// TestDrainCutShort: a turn that does not finish before the drain's time
// is up is cancelled and saved as such, with what it had, and its user is
// told the session is saved.
func TestDrainCutShort(t *testing.T) {
	t.Parallel()
	s := startServer(t, 4, oneSlotWithExpert(t))
	st := &streams{ch: map[string]chan string{}}
	scriptedTurns(s, st)
	alice := testKey(t, 1)
	_, ta := s.open(t, alice, 100, 30)
	ma := ta.waitFor(t, 0, "Ask anything")
	ta.typeText(t, "summarise the notes TAG-1\r")
	st.of("TAG-1") <- "An answer that never ends"
	ma = ta.waitFor(t, ma, "An answer that never ends")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	s.srv.Drain(ctx)
	ta.waitFor(t, ma, "the server is restarting — your session is saved")
	<-s.stopped
	turns := savedTurns(t, s, alice)
	if len(turns) != 1 || turns[0]["cancelled"] != true || !strings.HasPrefix(fmt.Sprint(turns[0]["answer"]), "An answer that never ends") {
		t.Fatalf("the turn saved: %v", turns)
	}
}
