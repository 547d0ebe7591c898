package scope

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestCredentialedRedirects: a credentialed client follows a GET within
// its origin, with the key, and refuses every other redirect — to another
// port of the same host, to another scheme, and any redirect of a POST —
// before anything reaches the target.
func TestCredentialedRedirects(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var reached []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reached = append(reached, r.Method+" "+r.Header.Get("Authorization")+" "+string(b))
		mu.Unlock()
	}))
	defer other.Close()
	var own []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		case "/there":
			mu.Lock()
			own = append(own, r.Header.Get("Authorization"))
			mu.Unlock()
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/post":
			http.Redirect(w, r, "/there", http.StatusTemporaryRedirect)
		case "/post-away":
			http.Redirect(w, r, other.URL+"/x", http.StatusPermanentRedirect)
		}
	}))
	defer srv.Close()
	c := Credentialed(nil)
	do := func(method, path string) error {
		r, _ := http.NewRequest(method, srv.URL+path, strings.NewReader("the prompt"))
		r.Header.Set("Authorization", "Bearer k")
		resp, err := c.Do(r)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := do(http.MethodGet, "/here"); err != nil || len(own) != 1 || own[0] != "Bearer k" {
		t.Fatalf("a GET within the origin: err %v, key at the target %q", err, own)
	}
	for _, c := range []struct{ method, path, want string }{
		{http.MethodGet, "/away", "stay on its origin"},
		{http.MethodPost, "/post", "never re-sent"},
		{http.MethodPost, "/post-away", "never re-sent"},
	} {
		err := do(c.method, c.path)
		var re *RedirectError
		if !errors.Is(err, ErrRedirected) || !errors.As(err, &re) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err %v, want a refused redirect saying %q", c.method, c.path, err, c.want)
		}
	}
	if len(reached) != 0 || len(own) != 1 {
		t.Fatalf("a refused redirect reached its target: other %q, own %q", reached, own)
	}
	if to, ok := RedirectTarget(do(http.MethodGet, "/away")); !ok || to != other.URL+"/x" {
		t.Errorf("RedirectTarget = %q, %v", to, ok)
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"http://h/x", "http://h:80/y", true},
		{"https://H:443/", "https://h", true},
		{"http://h:1/", "http://h:2/", false},
		{"http://h/", "https://h/", false},
		{"http://127.0.0.1:1/", "http://localhost:1/", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := SameOrigin(a, b); got != c.same {
			t.Errorf("SameOrigin(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
