package fakehf

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ResponderFunc answers a request in place of the default answer: the status,
// the Content-Type and the body to send.
type ResponderFunc func(r *http.Request, body []byte) (status int, contentType string, respBody []byte)

// ModelBehaviour is how one registered model answers. Its methods configure
// it and return it, so calls chain:
//
//	srv.Model("Salesforce/blip-image-captioning-large", "image-to-text").LoadingFor(1, 0.01)
//
// Scripted failures are used up in this order: rate limits, then loading,
// then failures; after them the model answers normally.
type ModelBehaviour struct {
	mu   sync.Mutex
	id   string
	task string

	rateLimits int
	retryAfter string

	loading   int
	estimated float64

	failN      int // -1 means every call
	failStatus int
	failMsg    string

	delay   time.Duration
	hold    chan struct{}
	respond ResponderFunc
	calls   int

	shape    *bodyShape
	cutAfter int64
	sent     atomic.Int64
}

// Task returns the task the model was registered for.
func (m *ModelBehaviour) Task() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.task
}

// LoadingFor makes the next n calls answer HTTP 503 with Hugging Face's
// loading body, {"error":"Model X is currently loading","estimated_time":
// estimated}. The calls fail whether or not they send X-Wait-For-Model, so a
// test controls exactly how many tries it takes.
func (m *ModelBehaviour) LoadingFor(n int, estimated float64) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loading, m.estimated = n, estimated
	return m
}

// RateLimit makes the next n calls answer HTTP 429 with Hugging Face's rate
// limit body.
func (m *ModelBehaviour) RateLimit(n int) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rateLimits = n
	return m
}

// RetryAfter sets the Retry-After header (seconds) sent with 429 answers;
// by default none is sent, as on most Hugging Face 429s.
func (m *ModelBehaviour) RetryAfter(seconds int) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.retryAfter = strconv.Itoa(seconds)
	return m
}

// Status makes every call answer code with {"error": msg}.
func (m *ModelBehaviour) Status(code int, msg string) *ModelBehaviour {
	return m.Fail(-1, code, msg)
}

// Fail makes the next n calls answer code with {"error": msg}; n < 0 means
// every call.
func (m *ModelBehaviour) Fail(n, code int, msg string) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failN, m.failStatus, m.failMsg = n, code, msg
	return m
}

// Gated makes every call answer like a gated model the token has not been
// granted: HTTP 403 with Hugging Face's message.
func (m *ModelBehaviour) Gated() *ModelBehaviour {
	return m.Status(http.StatusForbidden, "Access to model "+m.id+" is restricted and you are not in the authorized list. Visit https://huggingface.co/"+m.id+" to ask for access.")
}

// Delay makes every successful answer take d, as model compute does. The
// wait ends early when the client goes away.
func (m *ModelBehaviour) Delay(d time.Duration) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.delay = d
	return m
}

// Hold makes every call wait, after its scripted failures, until release is
// called (or the client goes away). With Server.WaitInFlight it proves
// overlap of parallel calls deterministically.
func (m *ModelBehaviour) Hold() (release func()) {
	ch := make(chan struct{})
	m.mu.Lock()
	m.hold = ch
	m.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// Respond replaces the default answer. f runs after scripted failures and
// the delay.
func (m *ModelBehaviour) Respond(f ResponderFunc) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.respond = f
	return m
}

// Calls returns how many requests reached the model, failures included.
func (m *ModelBehaviour) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// next decides what this call does and consumes one scripted failure.
type verdict struct {
	status     int
	msg        string
	loading    bool
	estimated  float64
	retryAfter string
	delay      time.Duration
	hold       chan struct{}
	respond    ResponderFunc
	task       string
	shape      *bodyShape
	cutAfter   int64
}

func (m *ModelBehaviour) next() verdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	v := verdict{delay: m.delay, hold: m.hold, respond: m.respond, task: m.task, shape: m.shape, cutAfter: m.cutAfter}
	switch {
	case m.rateLimits > 0:
		m.rateLimits--
		v.status = http.StatusTooManyRequests
		v.msg = "Rate limit reached. You reached free usage limit (reset hourly). Please subscribe to a plan at https://huggingface.co/pricing to use the API at this rate"
		v.retryAfter = m.retryAfter
	case m.loading > 0:
		m.loading--
		v.status = http.StatusServiceUnavailable
		v.msg = "Model " + m.id + " is currently loading"
		v.loading, v.estimated = true, m.estimated
	case m.failN != 0:
		if m.failN > 0 {
			m.failN--
		}
		v.status, v.msg = m.failStatus, m.failMsg
	}
	return v
}

func (m *ModelBehaviour) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	v := m.next()
	switch {
	case v.loading:
		writeJSON(w, v.status, map[string]any{"error": v.msg, "estimated_time": v.estimated})
		return
	case v.status == http.StatusTooManyRequests:
		if v.retryAfter != "" {
			w.Header().Set("Retry-After", v.retryAfter)
		}
		writeError(w, v.status, v.msg)
		return
	case v.status != 0:
		writeError(w, v.status, v.msg)
		return
	}
	if v.hold != nil {
		select {
		case <-v.hold:
		case <-r.Context().Done():
			return
		}
	}
	if v.delay > 0 {
		t := time.NewTimer(v.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if v.shape != nil || v.cutAfter > 0 {
		var s bodyShape
		var def reply
		if v.shape != nil {
			s = *v.shape
		} else {
			def = answer(v.task, m.id, r, body)
		}
		s.cutAfter = v.cutAfter
		m.serveShape(w, s, def)
		return
	}
	if v.respond != nil {
		status, ctype, out := v.respond(r, body)
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		_, _ = w.Write(out)
		return
	}
	a := answer(v.task, m.id, r, body)
	if a.contentType != "" {
		w.Header().Set("Content-Type", a.contentType)
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}
