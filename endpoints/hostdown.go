package endpoints

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// HostDownError is a failure to reach a host at all: the connection was
// refused, the host's name did not resolve, no route led there, or its TLS
// handshake failed. Every other call to that host in the same turn would
// fail the same way, so the executor marks the host down for the turn and
// skips its other candidates without trying them. It wraps the endpoint's
// own error (which wraps ErrUnreachable), whose text it keeps.
type HostDownError struct {
	// Host is the host:port that did not answer ("router.huggingface.co:443",
	// HostKey).
	Host string
	// Reason says in a few words why: "connection refused", "its name
	// does not resolve (no such host)", "TLS handshake failed: …".
	Reason string
	Err    error
}

func (e *HostDownError) Error() string { return e.Err.Error() }

// Unwrap returns the endpoint's error.
func (e *HostDownError) Unwrap() error { return e.Err }

// downReason says in a few words why cause means the host is down.
func downReason(cause error) string {
	var dns *net.DNSError
	switch {
	case errors.As(cause, &dns):
		return "its name does not resolve (" + dns.Err + ")"
	case errors.Is(cause, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(cause, syscall.EHOSTUNREACH), errors.Is(cause, syscall.ENETUNREACH):
		return "no route to it"
	}
	return "TLS handshake failed: " + rootMessage(cause)
}

// rootMessage is the innermost error's text.
func rootMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// MarkHostDown returns err as a HostDownError for the host of rawURL when
// cause (the transport's error) is a failure to reach the host at all;
// otherwise err unchanged. A timeout is not one: a slow answer is not a
// dead host.
func MarkHostDown(rawURL string, cause, err error) error {
	if err == nil || !hostDown(cause) {
		return err
	}
	return &HostDownError{Host: HostKey(rawURL), Reason: downReason(cause), Err: err}
}

// HostKey is the host:port a URL (or a bare host[:port], as OLLAMA_HOST
// may be) connects to, the scheme's port where it names none: the key a
// host is marked down under, and what Hoster returns.
func HostKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if u, err = url.Parse("http://" + raw); err != nil || u.Host == "" {
			return raw
		}
	}
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// hostDown reports whether err is a failure to reach a host at all.
func hostDown(err error) bool {
	if err == nil {
		return false
	}
	var (
		dns     *net.DNSError
		verify  *tls.CertificateVerificationError
		header  tls.RecordHeaderError
		alert   tls.AlertError
		unknown x509.UnknownAuthorityError
		name    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	return errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.As(err, &verify) || errors.As(err, &header) || errors.As(err, &alert) ||
		errors.As(err, &unknown) || errors.As(err, &name) || errors.As(err, &invalid) ||
		// net/http's words for a TLS handshake met by plain HTTP (it
		// drops the tls.RecordHeaderError it read).
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// Hoster is implemented by endpoints that can say which host a call of
// model for task reaches, so the executor skips a host marked down this
// turn without trying it.
type Hoster interface {
	// Host is the host:port a call of model for task connects to
	// (HostKey); "" when the endpoint cannot say (it reaches no host, or
	// several).
	Host(task, model string) string
}
