package sshd_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/sshd"
)

// TestSSHPullIsOffUnlessAllowed (issue 17, 4): over ssh, /pull does not
// download a model onto the shared server, and /model naming a model the
// server lacks does not offer to — unless serve.allow_pull is set.
func TestSSHPullIsOffUnlessAllowed(t *testing.T) {
	t.Parallel()
	s := startServer(t, 2)
	s.ollama.SetPullable("anything:405b", fakeollama.Model{ParameterSize: "405B"})
	_, tm := s.open(t, testKey(t, 1), 100, 30)
	mark := tm.waitFor(t, 0, "Ask anything")
	tm.typeText(t, "/pull anything:405b\r")
	mark = tm.waitFor(t, mark, "Pulling models is off on this server")
	tm.typeText(t, "/model anything:405b\r")
	tm.waitFor(t, mark, "ask the server's admin")
	if got := s.ollama.RequestsTo("/api/pull"); len(got) != 0 {
		t.Fatalf("an ssh user pulled a model onto the server: %d pull requests", len(got))
	}
	if out := ansi.Strip(tm.out.String()); strings.Contains(out, "/pull anything:405b`") || strings.Contains(out, "or /pull") {
		t.Errorf("the refusal offers /pull:\n%s", out)
	}

	allowed := startServer(t, 2, func(o *sshd.Options) { o.AllowPull = true })
	allowed.ollama.SetPullable("small:1b", fakeollama.Model{ParameterSize: "1B"})
	_, tm = allowed.open(t, testKey(t, 1), 100, 30)
	mark = tm.waitFor(t, 0, "Ask anything")
	tm.typeText(t, "/pull small:1b\r")
	tm.waitFor(t, mark, "Pulled")
	if got := allowed.ollama.RequestsTo("/api/pull"); len(got) != 1 {
		t.Fatalf("with serve.allow_pull the pull did not happen: %d requests", len(got))
	}
}
