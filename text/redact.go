package text

import (
	"net/url"
	"regexp"
	"strings"
)

// A URL may carry a secret — a password (http://admin:PASS@host), a name
// alone that is a token (http://TOKEN@host), a query value
// (?token=…, ?api_key=…, a signed URL's X-Amz-Signature) — and so may a
// command line (--token X, --password=X, GITHUB_TOKEN=…). The user
// configured them, and they must not come back out of Chorus: in an error
// message, the log, an answer, `chorus config`, `chorus mcp list`. This
// file is the one redaction every place that shows or logs them uses.

// redacted replaces a secret.
const redacted = "REDACTED"

// RedactURL returns the URL value u with its secrets replaced: the user
// name is kept and the password becomes "REDACTED"
// (http://admin:REDACTED@host); a name alone, which may be a token,
// becomes "REDACTED"; secret-looking query values become "REDACTED". A
// value that does not parse (no scheme, a "/" in the password) still has
// what precedes its last "@" taken for userinfo. Anything else is
// returned as is.
func RedactURL(u string) string {
	if strings.Contains(u, "://") {
		if p, err := url.Parse(u); err == nil || !strings.Contains(u, "@") {
			if err == nil && p.User == nil {
				return redactQueries(u)
			}
			return RedactURLs(u)
		}
	}
	head, rest := "", u
	if i := strings.Index(u, "://"); i >= 0 {
		head, rest = u[:i+3], u[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 || strings.ContainsAny(rest, " \t\n") {
		return redactQueries(u)
	}
	return head + redactedInfo(rest[:at]) + redactQueries(rest[at:])
}

// redactedInfo is userinfo as shown: the name kept (it says which
// account), the password hidden; a name alone may be a token and goes.
func redactedInfo(info string) string {
	if name, _, has := strings.Cut(info, ":"); has && !strings.ContainsAny(name, "/?#") {
		return name + ":" + redacted
	}
	return redacted
}

// userinfoURL finds URLs with userinfo in free text: a scheme, "//", and
// an authority holding an "@" (the last one, as a URL parser reads it)
// before the path.
var userinfoURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/?#"'<>` + "`" + `]+@`)

// queryURL finds URLs with a query in free text, up to the first
// character that cannot be in one as written.
var queryURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s?#"'<>` + "`" + `]*\?[^\s#"'<>` + "`" + `]*`)

// RedactURLs returns s with the secrets of every URL in it redacted as
// RedactURL does: error messages, log lines and answers that quote a
// configured URL.
func RedactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	if strings.Contains(s, "@") {
		s = userinfoURL.ReplaceAllStringFunc(s, func(m string) string {
			scheme := strings.Index(m, "//")
			return m[:scheme+2] + redactedInfo(m[scheme+2:len(m)-1]) + "@"
		})
	}
	return redactQueries(s)
}

// redactQueries hides the secret-looking query values of the URLs in s,
// keeping every other byte.
func redactQueries(s string) string {
	if !strings.Contains(s, "?") || !strings.Contains(s, "://") {
		return s
	}
	return queryURL.ReplaceAllStringFunc(s, func(m string) string {
		q := strings.IndexByte(m, '?')
		var b strings.Builder
		b.WriteString(m[:q+1])
		for i, param := range strings.Split(m[q+1:], "&") {
			if i > 0 {
				b.WriteByte('&')
			}
			name, value, has := strings.Cut(param, "=")
			if has && value != "" && SecretName(unescape(name)) {
				param = name + "=" + redacted
			}
			b.WriteString(param)
		}
		return b.String()
	})
}

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// secretWords are what the last word of a name says when it holds a
// secret: api_key, accessToken, X-Amz-Signature, --password.
var secretWords = map[string]bool{
	"key": true, "apikey": true, "token": true, "secret": true, "password": true, "passwd": true, "pwd": true,
	"sig": true, "signature": true, "auth": true, "authorization": true, "credential": true, "credentials": true, "jwt": true,
}

// SecretName reports whether a parameter, flag, variable or configuration
// key names a secret: its last word (split at _ - . and at a lower-to-upper
// change of case) is one of secretWords, or ends in token, secret or
// password (accesstoken). A name that names where a secret is
// (--token-file, --token-env, key_id) is not one.
func SecretName(name string) bool {
	var words []string
	start := 0
	for i := 1; i <= len(name); i++ {
		switch {
		case i == len(name):
			words = append(words, name[start:i])
		case name[i] == '_' || name[i] == '-' || name[i] == '.':
			words = append(words, name[start:i])
			start = i + 1
		case name[i] >= 'A' && name[i] <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z':
			words = append(words, name[start:i])
			start = i
		}
	}
	for len(words) > 0 && words[len(words)-1] == "" {
		words = words[:len(words)-1]
	}
	if len(words) == 0 {
		return false
	}
	last := strings.ToLower(words[len(words)-1])
	return secretWords[last] || strings.HasSuffix(last, "token") || strings.HasSuffix(last, "secret") || strings.HasSuffix(last, "password")
}

// assignment is NAME=value, as an environment variable is set on a
// command line (env, docker -e).
var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// header is "Name: value", as a header is given on a command line
// (mcp-remote --header, curl -H).
var header = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$`)

// RedactArgs returns a copy of a command line's arguments with their
// secrets replaced: the argument after a flag named like a secret
// (--token X, --api-key X), a flag's =value (--password=X), a
// NAME_KEY=value assignment, the value of an "Authorization: …" or
// "X-Api-Key: …" header, and the secrets of a URL (RedactURL). The flags
// and names stay, so the line still says what runs; args is not changed.
func RedactArgs(args []string) []string {
	if args == nil {
		return nil
	}
	out := make([]string, len(args))
	next := false // the argument is the value of a secret flag
	for i, a := range args {
		switch {
		case next:
			out[i], next = redacted, false
		case strings.HasPrefix(a, "-") && len(strings.TrimLeft(a, "-")) > 0:
			name, value, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
			prefix := a[:len(a)-len(strings.TrimLeft(a, "-"))]
			switch {
			case SecretName(name) && has:
				out[i] = prefix + name + "=" + redacted
			case SecretName(name):
				out[i], next = a, true
			case has:
				out[i] = prefix + name + "=" + redactValue(value)
			default:
				out[i] = a
			}
		default:
			out[i] = redactValue(a)
		}
	}
	return out
}

// redactValue hides the secret in one value of a command line: an
// assignment's, a header's, a URL's.
func redactValue(v string) string {
	if m := assignment.FindStringSubmatch(v); m != nil && SecretName(m[1]) && m[2] != "" {
		return m[1] + "=" + redacted
	}
	if m := header.FindStringSubmatch(v); m != nil && (SecretName(m[1]) || strings.EqualFold(m[1], "cookie")) && m[2] != "" {
		return m[1] + ": " + redacted
	}
	return RedactURL(v)
}
