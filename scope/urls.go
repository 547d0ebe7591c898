package scope

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/chorusai/chorus/httpwire"
)

// AllowURL lets the turn fetch u. A URL the user typed (Typed, Attached)
// may name any address; one from a task result (Result) only a public one.
func (s *Scope) AllowURL(u string, why Origin) {
	key, err := normURL(u)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.urls[key]; ok && userGiven(old) {
		return // a weaker grant never replaces the user's
	}
	s.urls[key] = why
}

func userGiven(o Origin) bool { return o == Typed || o == Attached }

// CheckURL says whether the turn may fetch u: it must have been granted,
// and unless the user typed it (on this machine: over ssh not even then),
// its host must not be a loopback, private or link-local address. The address check is repeated at connect time by
// Fetch; this one gives the early, clear refusal.
func (s *Scope) CheckURL(u string) error {
	key, err := normURL(u)
	if err != nil {
		return &DeniedError{What: u, URL: true, Reason: "not an http(s) URL"}
	}
	s.mu.RLock()
	why, ok := s.urls[key]
	s.mu.RUnlock()
	if !ok {
		return &DeniedError{What: u, URL: true}
	}
	if userGiven(why) && s.root == "" {
		return nil
	}
	pu, _ := url.Parse(key)
	if reason := hostRefusal(pu.Hostname()); reason != "" {
		return &DeniedError{What: u, URL: true, Reason: reason, Confined: s.root != "" && userGiven(why)}
	}
	return nil
}

// privateOK reports whether a fetch of the URL whose grant is why may
// reach a private address: the user typed it, and is on this machine —
// a user over ssh (a confined scope) typing it would reach the server's
// network, not theirs.
func (s *Scope) privateOK(why Origin) bool { return userGiven(why) && s.root == "" }

// normURL is the form URLs are compared in: scheme and host lower case,
// no fragment. Only http and https qualify.
func normURL(u string) (string, error) {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return "", err
	}
	pu.Scheme = strings.ToLower(pu.Scheme)
	if pu.Scheme != "http" && pu.Scheme != "https" || pu.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", u)
	}
	pu.Host = strings.ToLower(pu.Host)
	pu.Fragment, pu.RawFragment = "", ""
	return pu.String(), nil
}

// hostRefusal says why a host name may not be fetched without the user
// typing it, "" when it may. Names are judged by what they obviously are
// ("localhost"); what a name resolves to is judged when connecting.
func hostRefusal(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") {
		return "it names this machine or the local network"
	}
	if addr, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return addrRefusal(addr)
	}
	if addr, ok := parseIPv4(h); ok {
		// "2130706433", "0x7f.1", "127.1": a browser's, curl's and Node's
		// spellings of an address.
		return addrRefusal(addr)
	}
	return ""
}

// addrRefusal says why an IP address may not be fetched without the user
// typing it, "" when it is a public address.
func addrRefusal(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "it is a loopback address (this machine)"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "it is a link-local address (cloud metadata lives there)"
	case a.IsPrivate():
		return "it is a private network address"
	case a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "it is not a public address"
	case a.Is4() && cgnat.Contains(a):
		return "it is a shared (carrier-grade NAT) address"
	case a.Is4() && a.As4()[0] == 0:
		return "it is not a public address"
	}
	return ""
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// FetchOptions bound a fetch.
type FetchOptions struct {
	// MaxBytes bounds the body; a larger one is refused by its
	// Content-Length before reading, or when the count passes it.
	MaxBytes int64
	// Timeout bounds the whole fetch, redirects included.
	Timeout time.Duration
	// MaxRedirects bounds the hops; each is checked like the first.
	MaxRedirects int
	// Transport replaces the network (tests); nil is the default.
	Transport http.RoundTripper
}

func (o *FetchOptions) defaults() {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 100 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = 5
	}
}

// Fetch downloads u, which must pass CheckURL, into w, and returns the
// response's media type. Every redirect is checked as if it were asked for
// afresh (a public page may not redirect to a private one), and the
// connection itself refuses private addresses for a URL the user did not
// type, so a public name that resolves to 127.0.0.1 does not pass.
func (s *Scope) Fetch(ctx context.Context, u string, w io.Writer, o FetchOptions) (mediaType string, err error) {
	o.defaults()
	if err := s.CheckURL(u); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	client := &http.Client{
		Transport: o.Transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > o.MaxRedirects {
				return fmt.Errorf("%s redirected more than %d times", u, o.MaxRedirects)
			}
			next := req.URL.String()
			if key, _ := normURL(next); key != "" {
				s.mu.RLock()
				why := s.urls[key]
				s.mu.RUnlock()
				if s.privateOK(why) {
					req.Header.Set(privateOK, "1")
					return nil
				}
			}
			req.Header.Del(privateOK)
			if reason := hostRefusal(req.URL.Hostname()); reason != "" {
				return &DeniedError{What: next, URL: true, Reason: "a redirect from " + u + " led there, and " + reason}
			}
			return nil
		},
	}
	if client.Transport == nil {
		client.Transport = safeTransport()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	s.mu.RLock()
	key, _ := normURL(u)
	if s.privateOK(s.urls[key]) {
		req.Header.Set(privateOK, "1")
	}
	s.mu.RUnlock()
	resp, err := client.Do(req)
	if err != nil {
		var de *DeniedError
		if errors.As(err, &de) {
			return "", de
		}
		if ctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("cannot download %s: no complete answer within %s", u, o.Timeout)
		}
		return "", fmt.Errorf("cannot download %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("cannot download %s: HTTP %d", u, resp.StatusCode)
	}
	if _, err := httpwire.CopyBody(w, resp, o.MaxBytes); err != nil {
		var be *httpwire.BodyError
		switch {
		case errors.As(err, &be) && be.TooLarge() && be.Declared > o.MaxBytes:
			return "", fmt.Errorf("%s is %d bytes, over the %d MB limit: %w", u, be.Declared, o.MaxBytes>>20, ErrTooLarge)
		case errors.As(err, &be) && be.TooLarge():
			return "", fmt.Errorf("%s is larger than %d MB: %w", u, o.MaxBytes>>20, ErrTooLarge)
		}
		return "", fmt.Errorf("cannot download %s: %w", u, err)
	}
	return resp.Header.Get("Content-Type"), nil
}

// privateOK is a request header the fetch sets on the hops the user typed;
// the transport reads it (and strips it) to let those dial private
// addresses. It never leaves the process.
const privateOK = "X-Chorus-Private-Ok"

// safeTransport dials only public addresses unless the request carries
// privateOK, checked on the address actually connected to.
func safeTransport() http.RoundTripper {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil // a proxy would hide where the connection really goes
	dialPublic := &net.Dialer{Timeout: 30 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		addr, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		if reason := addrRefusal(addr); reason != "" {
			return &DeniedError{What: address, URL: true, Reason: "its name resolves to " + host + ", and " + reason}
		}
		return nil
	}}
	dialAny := &net.Dialer{Timeout: 30 * time.Second}
	public := base.Clone()
	public.DialContext = dialPublic.DialContext
	anyAddr := base.Clone()
	anyAddr.DialContext = dialAny.DialContext
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Header.Get(privateOK) != "" {
			r = r.Clone(r.Context())
			r.Header.Del(privateOK)
			return anyAddr.RoundTrip(r)
		}
		return public.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
