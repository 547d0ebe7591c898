package httpwire

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxRetryAfter caps a Retry-After: a longer wait is as good as never,
// and seconds beyond it would overflow a time.Duration — into a negative
// wait, retried at once, or a short one.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter reads a Retry-After header value (RFC 9110 §10.2.3): delay
// seconds or an HTTP date, relative to now. A date in the past is a wait
// of 0; ok is false when v is empty or neither form.
func RetryAfter(v string, now time.Time) (wait time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil {
		return time.Duration(min(secs, uint64(MaxRetryAfter/time.Second))) * time.Second, true
	}
	if strings.Trim(v, "0123456789") == "" {
		// Digits only, too many for a uint64: far beyond the cap.
		return MaxRetryAfter, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), MaxRetryAfter), true
	}
	return 0, false
}
