// Package doctor checks, one thing at a time, what a Chorus needs to work
// here — the controller's server and model, the Hugging Face token and
// router, the local programs, the MCP servers, the folders it writes, the
// configuration — and says for each what it found, or what is wrong and
// the fix. `chorus doctor` prints the checks; the checks themselves are
// built from the configuration (Checks) and run together, each bounded in
// time however its server behaves (Run).
package doctor

import (
	"context"
	"strings"
	"time"
)

// Status is how a check ended.
type Status string

// The statuses: OK found what is needed, Fail did not (Result.Fix says
// what to do), Skip did not apply here (a Hugging Face check with
// inference_mode local) or could not be made (the server it needs is
// down).
const (
	OK   Status = "ok"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one check's outcome, as chorus doctor prints it and --json
// writes it.
type Result struct {
	// ID names the check for scripts: "config", "controller.server",
	// "controller.model", "huggingface.token", "huggingface.router",
	// "program.tesseract", "mcp.everything", "folder.sessions", …
	ID string `json:"id"`
	// Name is what it checks, for people: "Ollama", "controller model
	// qwen3:8b".
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Detail is what it found: a version and where, a count, or what is
	// wrong.
	Detail string `json:"detail"`
	// Fix is what to do about a failure; empty otherwise.
	Fix string `json:"fix,omitempty"`
	// ElapsedMS is how long the check took.
	ElapsedMS int64 `json:"elapsed_ms"`
}

// Check is one thing to check.
type Check struct {
	ID, Name string
	// Run checks, within ctx's deadline. It fills in Status, Detail and
	// Fix; ID, Name and ElapsedMS are Run's.
	Run func(ctx context.Context) Result
	// Hung is the fix said when Run does not return in time (a server
	// that accepts the connection and never answers).
	Hung string
}

// Report is every check's result, in the checks' order.
type Report struct {
	// OK is false when a check failed.
	OK        bool     `json:"ok"`
	ElapsedMS int64    `json:"elapsed_ms"`
	Checks    []Result `json:"checks"`
}

// Options bound a run. The zero value is DefaultPerCheck and DefaultTotal.
type Options struct {
	// PerCheck bounds each check; Total all of them together.
	PerCheck, Total time.Duration
}

// The default bounds: a check that takes longer is a failure in itself (a
// turn would wait as long), and doctor answers well within a user's
// patience whatever hangs.
const (
	DefaultPerCheck = 5 * time.Second
	DefaultTotal    = 15 * time.Second
)

// grace is how long past its deadline a check may take to return what it
// found (its own words for the timeout) before Run words it.
const grace = 250 * time.Millisecond

// Run runs the checks together, each under its own deadline, and returns
// their results in order. A check still running at its deadline (plus a
// moment for its own words) is a failure that says so; Run does not wait
// for it, so no server, however it hangs, holds doctor past the bounds.
func Run(ctx context.Context, checks []Check, o Options) Report {
	if o.PerCheck <= 0 {
		o.PerCheck = DefaultPerCheck
	}
	if o.Total <= 0 {
		o.Total = DefaultTotal
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.Total)
	defer cancel()
	type done struct {
		i int
		r Result
	}
	// Buffered: a check that returns after Run gave up on it never blocks.
	out := make(chan done, len(checks))
	for i, c := range checks {
		go func() {
			cctx, ccancel := context.WithTimeout(ctx, o.PerCheck)
			defer ccancel()
			t := time.Now()
			r := c.Run(cctx)
			r.ElapsedMS = time.Since(t).Milliseconds()
			out <- done{i, r}
		}()
	}
	results := make([]Result, len(checks))
	got := make([]bool, len(checks))
	deadline := time.NewTimer(min(o.PerCheck, o.Total) + grace)
	defer deadline.Stop()
	for n := 0; n < len(checks); n++ {
		select {
		case d := <-out:
			results[d.i], got[d.i] = d.r, true
		case <-deadline.C:
			n = len(checks) // the rest did not answer in time
		}
	}
	rep := Report{OK: true, Checks: results}
	for i, c := range checks {
		r := &results[i]
		if !got[i] {
			*r = Result{Status: Fail, Detail: "no answer within " + o.PerCheck.String(), Fix: c.Hung, ElapsedMS: time.Since(start).Milliseconds()}
		}
		r.ID, r.Name = c.ID, c.Name
		if r.Status == "" {
			r.Status = Fail
		}
		if r.Status == Fail {
			rep.OK = false
		}
	}
	rep.ElapsedMS = time.Since(start).Milliseconds()
	return rep
}

// fromError is a failed result from err, whose message says what is wrong
// and, after " — ", the fix (Chorus's errors name the fix that way).
func fromError(err error) Result {
	detail, fix, _ := strings.Cut(err.Error(), " — ")
	return Result{Status: Fail, Detail: detail, Fix: fix}
}
