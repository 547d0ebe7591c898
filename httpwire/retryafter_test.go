package httpwire

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"0":    0,
		" 90 ": 90 * time.Second,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
		now.Add(400 * time.Hour).Format(http.TimeFormat):  MaxRetryAfter,
		// Unchecked, these wrap: 9223372037 s to a negative wait,
		// 18446744074 s to 0.3 s, 99999999999 s to 246 years.
		"86401":                   MaxRetryAfter,
		"9223372037":              MaxRetryAfter,
		"18446744074":             MaxRetryAfter,
		"99999999999":             MaxRetryAfter,
		"99999999999999999999999": MaxRetryAfter,
	} {
		if got, ok := RetryAfter(v, now); !ok || got != want {
			t.Errorf("Retry-After: %q = %v %v, want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "soon", "-5", "+5", "1.5", "Wed, 32 Foo 2025"} {
		if got, ok := RetryAfter(v, now); ok {
			t.Errorf("Retry-After: %q accepted as %v", v, got)
		}
	}
}
