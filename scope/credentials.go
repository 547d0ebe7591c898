package scope

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/chorusai/chorus/text"
)

// A credential the user configured — an API key, a token, a password in a
// URL — goes only to the origin it was configured for. A server that
// answers an API call with a redirect could otherwise make Chorus carry
// the key, and the request's body (the prompt, the user's files), to an
// address of the server's choosing: Go's client keeps the Authorization
// header on a redirect to the same host name on another port, and re-sends
// the body on 307 and 308.

// maxCredentialedRedirects bounds the same-origin hops of one GET.
const maxCredentialedRedirects = 5

// ErrRedirected is what every refused redirect of a credentialed call
// wraps, for errors.Is.
var ErrRedirected = errors.New("redirect of a call that carries a credential")

// RedirectError is a redirect a credentialed client refused to follow.
type RedirectError struct {
	// Method and From are the call that was redirected, To where the
	// server pointed (userinfo removed).
	Method, From, To string
	// Status is the redirect's HTTP status.
	Status int
	// Why says which rule refused it.
	Why string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s %s was redirected (HTTP %d) to %s, which Chorus does not follow: %s", e.Method, text.RedactURL(e.From), e.Status, text.RedactURL(e.To), e.Why)
}

// Unwrap makes errors.Is(err, ErrRedirected) hold.
func (e *RedirectError) Unwrap() error { return ErrRedirected }

// Credentialed returns a copy of base (nil: a zero http.Client) for calls
// to a configured server that carry a credential. It follows a redirect
// only when the call is a GET or HEAD (no body to re-send) and the target
// is on the same origin — scheme, host and port — as the call; any other
// redirect ends the call with a *RedirectError (wrapped by the client in
// a *url.Error). A download that may legitimately leave the origin goes
// through Fetch instead, without the credential.
func Credentialed(base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.CheckRedirect = checkCredentialedRedirect
	return c
}

func checkCredentialedRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	refuse := func(why string) error {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &RedirectError{Method: first.Method, From: first.URL.String(), To: req.URL.String(), Status: status, Why: why}
	}
	switch {
	case first.Method != http.MethodGet && first.Method != http.MethodHead:
		return refuse("a " + first.Method + " is never re-sent across a redirect, so its body and credentials go nowhere else")
	case !SameOrigin(req.URL, first.URL):
		return refuse("calls to a configured server stay on its origin (" + text.RedactURL(origin(first.URL)) + "), so its credentials go nowhere else")
	case len(via) > maxCredentialedRedirects:
		return refuse(fmt.Sprintf("more than %d redirects", maxCredentialedRedirects))
	}
	return nil
}

// RedirectTarget returns where a refused redirect pointed, when err is
// one (a *RedirectError, however wrapped).
func RedirectTarget(err error) (string, bool) {
	var re *RedirectError
	if errors.As(err, &re) {
		return re.To, true
	}
	return "", false
}

// SameOrigin reports whether a and b share scheme, host and port (a
// missing port is the scheme's default).
func SameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil || a.Host == "" {
		return false
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + u.Host
}
