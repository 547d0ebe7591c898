package huggingface

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// witness records what reaches a redirect's target.
type witness struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newWitness(t *testing.T) *witness {
	w := &witness{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.seen = append(w.seen, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" body="+string(b))
		w.mu.Unlock()
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *witness) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// TestHFRedirectsNeverCarryTheToken (issue 17, 2): a 307 on the inference
// POST, from Hugging Face's router or a local server speaking its
// protocol, re-sends neither the input nor the token; a redirect of the
// Hub's provider mapping to another origin is not followed with the token.
func TestHFRedirectsNeverCarryTheToken(t *testing.T) {
	other := newWitness(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)

	for _, kind := range []string{"huggingface", "local"} {
		c := NewClient("huggingface", Options{BaseURL: srv.URL, Token: "hf_secret", MaxRetries: -1})
		if kind == "local" {
			c = NewClient("local", Options{BaseURL: srv.URL, Token: "local_secret", MaxRetries: -1})
		}
		req := endpointstest.Request(t, "text-classification", "m/cls", map[string]string{"text": "a private sentence"})
		_, err := c.Infer(context.Background(), req)
		if got := other.requests(); len(got) != 0 {
			t.Fatalf("%s: the POST was re-sent across a redirect: %q", kind, got)
		}
		setting := map[string]string{"huggingface": "huggingface.base_url", "local": "local.url"}[kind]
		if !errors.Is(err, scope.ErrRedirected) || !strings.Contains(err.Error(), "307") || !strings.Contains(err.Error(), setting) {
			t.Errorf("%s: err %v, want the redirect refused, naming %s", kind, err, setting)
		}
	}

	hub := &skills.Hub{BaseURL: srv.URL, Token: "hf_secret", HTTPClient: &http.Client{}}
	_, err := hub.ProviderMapping(context.Background(), "m/cls")
	if got := other.requests(); len(got) != 0 {
		t.Fatalf("the Hub's answer was followed to another origin: %q", got)
	}
	if err == nil {
		t.Error("a redirected provider mapping was taken")
	}
}
