package scope

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// fakeDNS resolves names from a table; any other name does not resolve.
func fakeDNS(table map[string]string) func(context.Context, string, string) ([]netip.Addr, error) {
	return func(_ context.Context, _, host string) ([]netip.Addr, error) {
		if a, ok := table[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, errors.New("no such host")
	}
}

// TestToolURLs (issue 33, 4): every URL in a tool's argument passes the
// rule of built-in downloads — wherever it sits in the value, however its
// address is spelled, whatever its name resolves to: a public address,
// unless the user typed that URL on this machine. Chorus's own experts
// fetch nothing a value names, so text to them is not judged.
func TestToolURLs(t *testing.T) {
	t.Parallel()
	dns := fakeDNS(map[string]string{"public.example": "93.184.216.34", "sneaky.example": "127.0.0.1", "meta.example": "169.254.169.254"})
	s := New(Options{Lookup: dns})
	s.AllowTyped("compare http://127.0.0.1:8080/mine with the rest")
	tool := Reader{Tool: true}
	for _, v := range []string{
		"http://127.0.0.1:9090/metrics",
		"fetch http://localhost:9090/metrics please",
		`{"url": "http://169.254.169.254/latest/meta-data/"}`,
		`["https://public.example/", "http://10.0.0.7/admin"]`,
		"http://2130706433/", "http://0x7f.1/", "http://127.1/", "http://0177.0.0.1/", "http://0/",
		"http://[::1]:9090/", "http://[::ffff:127.0.0.1]/", "http://[fe80::1]/",
		"http://metadata.google.internal/computeMetadata/v1/",
		"http%3A%2F%2F127.0.0.1%3A9090%2Fmetrics",
		`http:\/\/127.0.0.1\/x`,
		"http://sneaky.example/", "https://meta.example/latest",
		"http://127.0.0.1:8080/mine/../other",
		"fetch HTTP://127.0.0.1:9090/metrics", "HtTpS://meta.example/latest",
	} {
		_, err := s.GateFor(v, tool)
		var de *DeniedError
		if !errors.As(err, &de) || !de.URL || !strings.Contains(err.Error(), "was not handed to the tool") {
			t.Errorf("GateFor(%q) = %v, want the URL refused", v, err)
		}
		if err := s.Gate(v); err != nil {
			t.Errorf("text to a model, Gate(%q) = %v: a model fetches nothing", v, err)
		}
	}
	for _, v := range []string{"https://public.example/a?b=c", "http://127.0.0.1:8080/mine", "see https://unresolvable.example/ and http://8.8.8.8/"} {
		if _, err := s.GateFor(v, tool); err != nil {
			t.Errorf("GateFor(%q) = %v, want it to pass", v, err)
		}
	}
}

// TestConfinedTypedURLs (issue 33, 3): a user over ssh (a confined scope)
// gets no exception for a URL they typed that names the server's own
// network — not fetched by Chorus, not at a redirect, not handed to a
// tool — while a user on this machine still may.
func TestConfinedTypedURLs(t *testing.T) {
	t.Parallel()
	hit := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit <- r.URL.Path
		w.Write([]byte("host secret"))
	}))
	defer srv.Close()
	typed := "get " + srv.URL + "/secret and http://169.254.169.254/latest"
	confined := New(Options{Root: t.TempDir()})
	confined.AllowTyped(typed)
	for _, u := range []string{srv.URL + "/secret", "http://169.254.169.254/latest"} {
		err := confined.CheckURL(u)
		if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "over ssh") {
			t.Errorf("over ssh, CheckURL(%q) = %v, want a refusal saying why", u, err)
		}
		if _, err := confined.GateFor(u, Reader{Tool: true}); !errors.Is(err, ErrDenied) {
			t.Errorf("over ssh, a tool was handed %q: %v", u, err)
		}
	}
	var b bytes.Buffer
	if _, err := confined.Fetch(context.Background(), srv.URL+"/secret", &b, FetchOptions{}); !errors.Is(err, ErrDenied) || b.Len() > 0 {
		t.Errorf("over ssh, Fetch = %v (%q), want a refusal", err, b.String())
	}
	// A typed public URL that redirects to a typed private one.
	confined.AllowTyped("http://public.example/start")
	redirect := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host != "public.example" {
			hit <- "redirected"
			return nil, errors.New("reached")
		}
		return &http.Response{StatusCode: http.StatusFound, Header: http.Header{"Location": {srv.URL + "/secret"}}, Body: http.NoBody, Request: r}, nil
	})
	if _, err := confined.Fetch(context.Background(), "http://public.example/start", &b, FetchOptions{Transport: redirect}); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("over ssh, a redirect to a typed private URL: %v, want a refusal", err)
	}
	select {
	case p := <-hit:
		t.Fatalf("the host's server was reached (%s)", p)
	default:
	}
	local := New(Options{})
	local.AllowTyped(typed)
	if _, err := local.Fetch(context.Background(), srv.URL+"/secret", &b, FetchOptions{}); err != nil || b.String() != "host secret" {
		t.Errorf("on this machine, a typed loopback URL: %v", err)
	}
}

// TestParseIPv4: the spellings of an IPv4 address a URL parser accepts.
func TestParseIPv4(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"2130706433": "127.0.0.1", "0x7f.1": "127.0.0.1", "127.1": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"0": "0.0.0.0", "10.0.1": "10.0.0.1", "0xA9.0xFE.0xA9.0xFE": "169.254.169.254", "169.254.43518": "169.254.169.254"} {
		if a, ok := parseIPv4(in); !ok || a.String() != want {
			t.Errorf("parseIPv4(%q) = %v, %v; want %s", in, a, ok, want)
		}
	}
	for _, in := range []string{"example.com", "1.2.3.4.5", "256.1.1.1", "0x", "1..2", "99999999999", "08.1.1.1"} {
		if a, ok := parseIPv4(in); ok && in != "0x" {
			t.Errorf("parseIPv4(%q) = %v, want no address", in, a)
		}
	}
}
