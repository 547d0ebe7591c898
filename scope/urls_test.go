package scope

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestURLRule(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	s.AllowURL("http://127.0.0.1:9/typed.png", Typed)
	s.AllowURL("https://example.com/result.png", Result)
	s.AllowURL("http://127.0.0.1:9/result.png", Result)
	s.AllowURL("http://169.254.169.254/latest/meta-data", Result)
	s.AllowURL("http://10.1.2.3/x", Result)
	s.AllowURL("http://[::1]/x", Result)
	s.AllowURL("http://[::ffff:127.0.0.1]/x", Result)
	s.AllowURL("http://localhost:8080/x", Result)
	for _, tc := range []struct {
		url     string
		allowed bool
	}{
		{"http://127.0.0.1:9/typed.png", true},
		{"HTTP://127.0.0.1:9/typed.png#frag", true},
		{"https://example.com/result.png", true},
		{"https://example.com/other.png", false},
		{"http://127.0.0.1:9/result.png", false},
		{"http://169.254.169.254/latest/meta-data", false},
		{"http://10.1.2.3/x", false},
		{"http://[::1]/x", false},
		{"http://[::ffff:127.0.0.1]/x", false},
		{"http://localhost:8080/x", false},
		{"file:///etc/passwd", false},
	} {
		err := s.CheckURL(tc.url)
		if tc.allowed != (err == nil) {
			t.Errorf("CheckURL(%q) = %v, want allowed=%v", tc.url, err, tc.allowed)
		}
		if err != nil && (!errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.url)) {
			t.Errorf("refusal should be ErrDenied and name the URL: %v", err)
		}
	}
}

// TestFetchTypedLoopback: the user typed a loopback URL, so it is fetched.
func TestFetchTypedLoopback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(privateOK) != "" {
			t.Error("the internal header left the process")
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("png"))
	}))
	defer srv.Close()
	s := New(Options{})
	s.AllowTyped("get " + srv.URL + "/a.png please")
	var b bytes.Buffer
	mt, err := s.Fetch(context.Background(), srv.URL+"/a.png", &b, FetchOptions{})
	if err != nil || mt != "image/png" || b.String() != "png" {
		t.Fatalf("Fetch = %q, %v (%q)", mt, err, b.String())
	}
}

// TestFetchRedirectToPrivate: a URL the user typed may not redirect to a
// private address they did not type.
func TestFetchRedirectToPrivate(t *testing.T) {
	t.Parallel()
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the private server was reached")
	}))
	defer inner.Close()
	outer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/secret", http.StatusFound)
	}))
	defer outer.Close()
	s := New(Options{})
	s.AllowTyped(outer.URL + "/start")
	var b bytes.Buffer
	_, err := s.Fetch(context.Background(), outer.URL+"/start", &b, FetchOptions{})
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("err = %v, want a refused redirect", err)
	}
}

// TestDialRefusesPrivate: a name that passes the early check but resolves
// to a private address is refused when connecting.
func TestDialRefusesPrivate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("reached")
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	_, err := safeTransport().RoundTrip(req)
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("err = %v, want refused at connect time", err)
	}
}

func TestFetchBounds(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length: counted while read
		}
		w.Write(make([]byte, 4096))
	}))
	defer srv.Close()
	s := New(Options{})
	s.AllowTyped(srv.URL + "/sized " + srv.URL + "/chunked")
	for _, p := range []string{"/sized", "/chunked"} {
		var b bytes.Buffer
		_, err := s.Fetch(context.Background(), srv.URL+p, &b, FetchOptions{MaxBytes: 1024})
		if !errors.Is(err, ErrTooLarge) || b.Len() > 1025 {
			t.Errorf("%s: err = %v, kept %d bytes", p, err, b.Len())
		}
	}
}

func TestURLsIn(t *testing.T) {
	t.Parallel()
	got := URLsIn("see https://en.wikipedia.org/wiki/Cat_(disambiguation), and (http://x.org/a.png).")
	want := []string{"https://en.wikipedia.org/wiki/Cat_(disambiguation)", "http://x.org/a.png"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("URLsIn = %q, want %q", got, want)
	}
}
