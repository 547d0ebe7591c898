package endpoints_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
)

// What marks a host down: the failures every other call to it would meet
// too — a refused connection, a name that does not resolve, a TLS
// handshake that fails — and not a slow answer or a server's refusal.
func TestMarkHostDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	_, refused := http.Get(dead + "/x")

	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake it refuses is the point
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	_, untrusted := http.Get(tlsSrv.URL) // a certificate no CA of this machine signed

	notTLS := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer notTLS.Close()
	_, plain := http.Get(strings.Replace(notTLS.URL, "http://", "https://", 1)) // TLS to a plain HTTP server

	dns := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "router.huggingface.invalid", IsNotFound: true}}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, slow.URL, nil)
	_, timeout := http.DefaultClient.Do(req)

	wrapped := errors.New("the endpoint's own words")
	for _, tc := range []struct {
		name, url string
		cause     error
		reason    string // "" when not down
	}{
		{"refused", dead + "/hf-inference/models/x", refused, "connection refused"},
		{"dns", "https://router.huggingface.invalid/fal-ai/x", dns, "its name does not resolve (no such host)"},
		{"untrusted certificate", tlsSrv.URL, untrusted, "TLS handshake failed: "},
		{"not TLS", notTLS.URL, plain, "TLS handshake failed: "},
		{"timeout", slow.URL, timeout, ""},
		{"deadline", slow.URL, os.ErrDeadlineExceeded, ""},
		{"no cause", dead, nil, ""},
	} {
		err := endpoints.MarkHostDown(tc.url, tc.cause, wrapped)
		var down *endpoints.HostDownError
		switch {
		case tc.reason == "" && errors.As(err, &down):
			t.Errorf("%s (%v) marked the host down", tc.name, tc.cause)
		case tc.reason != "" && !errors.As(err, &down):
			t.Errorf("%s (%v) did not mark the host down", tc.name, tc.cause)
		case tc.reason != "":
			if !strings.HasPrefix(down.Reason, tc.reason) || down.Host != endpoints.HostKey(tc.url) || err.Error() != wrapped.Error() || !errors.Is(err, wrapped) {
				t.Errorf("%s: host %q, reason %q, text %q", tc.name, down.Host, down.Reason, err)
			}
		}
	}
}

// HostKey is the same for every spelling of one host, so a down host is
// found whatever URL a candidate's call uses.
func TestHostKey(t *testing.T) {
	for in, want := range map[string]string{
		"https://router.huggingface.co":              "router.huggingface.co:443",
		"https://router.huggingface.co/fal-ai/x?y=1": "router.huggingface.co:443",
		"http://127.0.0.1:11434":                     "127.0.0.1:11434",
		"127.0.0.1:11434":                            "127.0.0.1:11434",
		"http://localhost":                           "localhost:80",
		"http://[::1]:8005/v1":                       "[::1]:8005",
	} {
		if got := endpoints.HostKey(in); got != want {
			t.Errorf("HostKey(%q) = %q, want %q", in, got, want)
		}
	}
}
