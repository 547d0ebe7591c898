package huggingface

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
)

// loading recognises Hugging Face's "model is loading" answer: HTTP 503
// with {"error": "… is currently loading", "estimated_time": seconds}.
func loading(status int, body []byte) (time.Duration, bool) {
	if status != http.StatusServiceUnavailable {
		return 0, false
	}
	var b struct {
		Error         any      `json:"error"`
		EstimatedTime *float64 `json:"estimated_time"`
	}
	if json.Unmarshal(body, &b) != nil {
		return 0, false
	}
	msg, _ := b.Error.(string)
	if b.EstimatedTime == nil && !strings.Contains(strings.ToLower(msg), "loading") {
		return 0, false
	}
	var est time.Duration
	if b.EstimatedTime != nil && *b.EstimatedTime > 0 && !math.IsInf(*b.EstimatedTime, 0) {
		est = time.Duration(min(*b.EstimatedTime, 24*3600) * float64(time.Second))
	}
	return est, true
}

// maxBackoff caps the pause between retries after HTTP 429.
const maxBackoff = 30 * time.Second

// backoffFor is the pause before retry n (from 0) after a 429 without
// Retry-After: base doubling up to maxBackoff, without shifting base
// into an overflow however many retries are allowed.
func backoffFor(base time.Duration, n int) time.Duration {
	wait := base
	for i := 0; i < n && wait < maxBackoff; i++ {
		wait *= 2
	}
	return min(wait, maxBackoff)
}

// deadlineBefore reports whether ctx ends before d from now.
func deadlineBefore(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return ok && time.Until(deadline) < d
}

// report passes p to the request's progress callback, if it has one.
func report(req endpoints.Request, p endpoints.Progress) {
	if req.Progress != nil {
		req.Progress(p)
	}
}

// round renders a duration for people: "21s", "1.5s", "250ms".
func round(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
