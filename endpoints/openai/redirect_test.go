package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/scope"
)

// witness is a server on another loopback port that records what reaches
// it: a redirect's target.
type witness struct {
	URL  string
	mu   sync.Mutex
	seen []string // "METHOD path auth=… body=N"
}

func newWitness(t *testing.T) *witness {
	w := &witness{}
	w.URL = startServer(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.seen = append(w.seen, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" body="+string(b))
		w.mu.Unlock()
		rw.Header().Set("Content-Type", "image/png")
		_, _ = rw.Write(fakehf.PNG(4, 4))
	}))
	return w
}

func (w *witness) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// TestRedirectsNeverCarryTheKey (issue 17, 2): the configured key goes
// only to the configured origin. A result URL on the server's own origin
// that redirects to another loopback port, by IP or by name, is not
// followed with the key — it is a task result, fetched only through the
// trust rule for those, which refuses loopback; a 307 on the POST does not
// re-send the prompt or the key; a redirect of the model list is refused.
// A redirect within the origin still works.
func TestRedirectsNeverCarryTheKey(t *testing.T) {
	const key = "sk-never-elsewhere"
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run("result URL to "+host, func(t *testing.T) {
			other := newWitness(t)
			target := strings.Replace(other.URL, "127.0.0.1", host, 1) + "/stolen.png"
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v1/images/generations":
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"data":[{"url":"/generated-images/a.png"}]}`))
				case "/generated-images/a.png":
					http.Redirect(w, r, target, http.StatusFound)
				default:
					http.NotFound(w, r)
				}
			}))
			ep := newEndpoint(openai.Server{URL: srv, Key: key, Models: map[string][]string{"text-to-image": {"sd"}}})
			_, err := ep.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "four"}))
			if got := other.requests(); len(got) != 0 {
				t.Fatalf("the redirect of a result URL was followed: %q", got)
			}
			if err == nil || !errors.Is(err, scope.ErrDenied) || strings.Contains(err.Error(), key) {
				t.Fatalf("err %v, want the redirected result refused by the trust rule for results", err)
			}
		})
	}

	t.Run("307 on the POST", func(t *testing.T) {
		other := newWitness(t)
		srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		ep := newEndpoint(openai.Server{URL: srv, Key: key, Models: map[string][]string{"text-to-image": {"sd"}}})
		_, err := ep.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "a secret prompt"}))
		if got := other.requests(); len(got) != 0 {
			t.Fatalf("the POST was re-sent across a redirect: %q", got)
		}
		if err == nil || !errors.Is(err, scope.ErrRedirected) || !strings.Contains(err.Error(), "307") || !strings.Contains(err.Error(), "openai[0].url") {
			t.Fatalf("err %v, want the redirect refused, naming openai[0].url", err)
		}
	})

	t.Run("model list", func(t *testing.T) {
		other := newWitness(t)
		srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}))
		ep := newEndpoint(openai.Server{URL: srv, Key: key, Models: map[string][]string{"text-to-image": {"sd"}}})
		err := ep.Check(context.Background(), "text-to-image", "sd")
		if got := other.requests(); len(got) != 0 {
			t.Fatalf("GET /v1/models was followed to another origin: %q", got)
		}
		if err == nil {
			t.Fatal("a redirected model list passed the check")
		}
	})

	t.Run("within the origin", func(t *testing.T) {
		fake := fakehf.PNG(4, 4)
		var auth []string
		var mu sync.Mutex
		srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/images/generations":
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"data":[{"url":"/generated-images/a.png"}]}`))
			case "/generated-images/a.png":
				http.Redirect(w, r, "/generated-images/b.png", http.StatusFound)
			case "/generated-images/b.png":
				mu.Lock()
				auth = append(auth, r.Header.Get("Authorization"))
				mu.Unlock()
				w.Header().Set("Content-Type", "image/png")
				_, _ = w.Write(fake)
			}
		}))
		ep := newEndpoint(openai.Server{URL: srv, Key: key, Models: map[string][]string{"text-to-image": {"sd"}}})
		res, err := ep.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "four"}))
		if err != nil {
			t.Fatal(err)
		}
		if w, _, _ := fakehf.ImageSize(blobBytes(t, res)); w != 4 || len(auth) != 1 || auth[0] != "Bearer "+key {
			t.Fatalf("width %d, auth %q: a redirect within the origin should be followed with the key", w, auth)
		}
	})
}
