package text

import (
	"regexp"
	"strings"
)

// A URL may carry a password (http://admin:PASS@host): the user
// configured it, and it must not come back out of Chorus — in an error
// message, the log, an answer, `chorus config`. RedactURL and RedactURLs
// are how every place that shows or logs a URL removes it.

// redacted replaces a URL's password, or a user name given alone.
const redacted = "REDACTED"

// RedactURL returns u with its userinfo replaced: the user name is kept
// and the password becomes "REDACTED" (http://admin:REDACTED@host); a
// name alone, which may be a token, becomes "REDACTED". A string that is
// not a URL with userinfo is returned as is.
func RedactURL(u string) string { return RedactURLs(u) }

// userinfoURL finds URLs with userinfo in free text: a scheme, "//", and
// an authority holding an "@" (the last one, as a URL parser reads it)
// before the path.
var userinfoURL = regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s/?#"'<>` + "`" + `]+@`)

// RedactURLs returns s with the userinfo of every URL in it redacted as
// RedactURL does: error messages, log lines and answers that quote a
// configured URL.
func RedactURLs(s string) string {
	if !strings.Contains(s, "@") || !strings.Contains(s, "://") {
		return s
	}
	return userinfoURL.ReplaceAllStringFunc(s, func(m string) string {
		scheme := strings.Index(m, "//")
		info := m[scheme+2 : len(m)-1]
		with := redacted
		// The name is kept (it says which account); a name alone may be a
		// token and goes too.
		if name, _, has := strings.Cut(info, ":"); has {
			with = name + ":" + redacted
		}
		return m[:scheme+2] + with + "@"
	})
}
