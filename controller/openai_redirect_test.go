package controller_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/scope"
)

// elsewhere is a server on the same host name, another port: Go's client
// keeps the Authorization header on a redirect there and re-sends the body
// of a 307, so only a credentialed client keeps the key and the prompt home.
type elsewhere struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // method, path and Authorization of every request
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen = append(e.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","created":1,"owned_by":"x"}]}`))
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *elsewhere) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// The API key (and the prompt) never cross a redirect to another origin:
// not a chat's POST on a 307, not /model's GET on a 302. The refusal says
// where the server pointed and what to set. A redirect that stays on the
// server's origin, for a GET, is followed.
func TestOpenAIKeyNeverCrossesARedirect(t *testing.T) {
	ctx := context.Background()
	other := newElsewhere(t)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/models", http.StatusFound)
	})
	redirector := httptest.NewServer(mux)
	defer redirector.Close()

	ctl := newOpenAI(t, redirector.URL+"/v1", "m", controller.Options{Key: "sk-secret", KeySource: "controller.key_env (VLLM_KEY)"})
	_, err := ctl.Chat(ctx, controller.ChatCall{Messages: []controller.Message{{Role: "user", Content: "the user's private prompt"}}})
	if !errors.Is(err, scope.ErrRedirected) || !strings.Contains(err.Error(), other.URL) || !strings.Contains(err.Error(), "controller.host") {
		t.Errorf("a chat redirected elsewhere: %v", err)
	}
	if errors.Is(err, controller.ErrUnreachable) {
		t.Errorf("a refused redirect is not an unreachable server: %v", err)
	}
	_, err = ctl.Models(ctx)
	if !errors.Is(err, scope.ErrRedirected) {
		t.Errorf("/model redirected elsewhere: %v", err)
	}
	if got := other.requests(); len(got) != 0 {
		t.Fatalf("the other server was called, key and all: %q", got)
	}

	// A GET that stays on the origin is followed, the key with it.
	var sameMux http.ServeMux
	sameMux.HandleFunc("GET /old/v1/models", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/models", http.StatusMovedPermanently)
	})
	sameMux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-secret" {
			http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"m","object":"model","created":1,"owned_by":"vllm"}]}`))
	})
	same := httptest.NewServer(&sameMux)
	defer same.Close()
	ms, err := newOpenAI(t, same.URL+"/old/v1", "m", controller.Options{Key: "sk-secret"}).Models(ctx)
	if err != nil || len(ms) != 1 || ms[0].Name != "m" {
		t.Fatalf("a same-origin redirect of a GET: %+v %v", ms, err)
	}
}
