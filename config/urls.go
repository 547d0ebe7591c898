package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/chorusai/chorus/text"
)

// httpURL parses s as an http(s) URL with a host; a bare host[:port] is
// taken as http:// when bare.
func httpURL(s string, bare bool) (*url.URL, bool) {
	if bare && !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	return u, err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

// NormalizeControllerHost is NormalizeHost for the controller's kind of
// server: an OpenAI-compatible server's URL keeps the scheme's own default
// port and ends in /v1 (added when the URL has no path).
func NormalizeControllerHost(kind, h string) (string, error) {
	if kind != "openai" {
		return NormalizeHost(h)
	}
	h = strings.TrimSpace(h)
	u, ok := httpURL(h, true)
	switch {
	case h == "":
		return "", errors.New("is empty; give the server's URL, such as http://127.0.0.1:8000/v1 for vLLM")
	case !ok:
		return "", fmt.Errorf("%q is not an http(s) URL", h)
	}
	if hostname := u.Hostname(); hostname == "0.0.0.0" || hostname == "::" {
		u.Host = strings.TrimSuffix("127.0.0.1:"+u.Port(), ":")
	}
	if strings.Trim(u.Path, "/") == "" {
		u.Path = "/v1"
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

// NormalizeHost turns an Ollama host as people write it ("127.0.0.1:11434",
// "0.0.0.0", "https://ollama.example") into a base URL.
func NormalizeHost(h string) (string, error) {
	h = strings.TrimSpace(h)
	u, ok := httpURL(h, true)
	switch {
	case h == "":
		return "", errors.New("is empty; the default is http://127.0.0.1:11434")
	case !ok:
		return "", fmt.Errorf("%q is not a host or http(s) URL", h)
	}
	hostname, port := u.Hostname(), u.Port()
	if hostname == "0.0.0.0" || hostname == "::" {
		hostname = "127.0.0.1"
	}
	if port == "" {
		port = map[string]string{"http": "11434", "https": "443"}[u.Scheme]
	}
	u.Host = net.JoinHostPort(hostname, port)
	return strings.TrimRight(u.String(), "/"), nil
}

// checkURL checks a URL of the configuration (with its scheme: a bare
// host:port is the usual slip, and the message says what to write), shown
// without its password.
func checkURL(s string) (string, error) {
	u, ok := httpURL(strings.TrimSpace(s), false)
	switch t := strings.TrimSpace(s); {
	case !ok && t != "" && !strings.Contains(t, "://"):
		return "", fmt.Errorf("%q is not an http(s) URL; write http://%s (or https://)", text.RedactURL(s), text.RedactURL(t))
	case !ok:
		return "", fmt.Errorf("%q is not an http(s) URL", text.RedactURL(s))
	}
	return strings.TrimRight(u.String(), "/"), nil
}
