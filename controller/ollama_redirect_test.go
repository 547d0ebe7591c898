package controller_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/scope"
)

// The prompt never crosses a redirect to another origin on Ollama either
// (Go's client re-sends a 307's body there): the chat is refused, the
// refusal names where the server pointed and what to set, and the other
// server sees nothing.
func TestOllamaPromptNeverCrossesARedirect(t *testing.T) {
	other := newElsewhere(t)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	ctl, err := controller.New(redirector.URL, "qwen3:8b", controller.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ctl.Chat(context.Background(), controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "the user's private prompt"}}})
	if !errors.Is(err, scope.ErrRedirected) || !strings.Contains(err.Error(), other.URL) || !strings.Contains(err.Error(), "OLLAMA_HOST") {
		t.Errorf("a chat redirected elsewhere: %v", err)
	}
	if errors.Is(err, controller.ErrUnreachable) {
		t.Errorf("a refused redirect is not an unreachable server: %v", err)
	}
	if got := other.requests(); len(got) != 0 {
		t.Fatalf("the other server was called: %q", got)
	}
}
