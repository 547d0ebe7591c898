package endpointstest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Probe is an endpoint of any kind that records the text argument of
// every call: a test of what reaches an endpoint — the trust rule's gate —
// runs it as each kind in turn. Its model "probe/source" records nothing
// and answers with Source, the output a later task takes as <resource>-N.
type Probe struct {
	kind skills.EndpointKind
	// Guard, when set, is why every call must be approved first
	// (endpoints.Guarded): a tool that may change things.
	Guard string
	// Reader, when set, is how the probe reads paths
	// (endpoints.PathReader): a tool that opens what it is given, from
	// the folders it names.
	Reader *scope.Reader

	mu        sync.Mutex
	got       []string
	source    string
	sourceErr error
}

// NewProbe returns a probe of kind k.
func NewProbe(k skills.EndpointKind) *Probe { return &Probe{kind: k} }

// Kind implements endpoints.Endpoint.
func (p *Probe) Kind() skills.EndpointKind { return p.kind }

// Check implements endpoints.Endpoint: every model is ready.
func (p *Probe) Check(context.Context, string, string) error { return nil }

// Infer implements endpoints.Endpoint.
func (p *Probe) Infer(_ context.Context, req endpoints.Request) (endpoints.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if req.Model == "probe/source" {
		if p.sourceErr != nil {
			return endpoints.Result{}, p.sourceErr
		}
		return endpoints.Result{Text: p.source}, nil
	}
	p.got = append(p.got, req.Args["text"])
	return endpoints.Result{Text: "done"}, nil
}

// Reads implements endpoints.PathReader with Reader.
func (p *Probe) Reads(string, string) scope.Reader {
	if p.Reader == nil {
		return scope.Reader{}
	}
	return *p.Reader
}

// NeedsApproval implements endpoints.Guarded with Guard.
func (p *Probe) NeedsApproval(string, string) string { return p.Guard }

// Discover implements endpoints.Discoverer: the openai and mcp kinds offer
// their models this way, not through the catalog, so a probe of those
// kinds offers probe/<kind> for the task probe-<kind>.
func (p *Probe) Discover(_ context.Context, task string) ([]endpoints.Offer, error) {
	if task != "probe-"+string(p.kind) || !discovered(p.kind) {
		return nil, nil
	}
	return []endpoints.Offer{{ID: "probe/" + string(p.kind), Description: "a probe", Configured: true}}, nil
}

// SetSource sets what probe/source answers.
func (p *Probe) SetSource(s string) {
	p.mu.Lock()
	p.source = s
	p.mu.Unlock()
}

// SetSourceErr makes probe/source fail with err (nil: answer Source
// again) — a task that fails for good, for a revision to follow.
func (p *Probe) SetSourceErr(err error) {
	p.mu.Lock()
	p.sourceErr = err
	p.mu.Unlock()
}

// Received returns the text arguments of the calls so far.
func (p *Probe) Received() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func discovered(k skills.EndpointKind) bool {
	return k == skills.EndpointOpenAI || k == skills.EndpointMCP
}

// ProbeSkill is the task probe-<kind>, text in and text out, whose one
// model, probe/<kind>, runs on kind; with kind "" it is probe-source, on
// the builtin kind.
func ProbeSkill(t testing.TB, kind skills.EndpointKind) *skills.Skill {
	t.Helper()
	name, model, on := "probe-"+string(kind), "probe/"+string(kind), kind
	if kind == "" {
		name, model, on = "probe-source", "probe/source", skills.EndpointBuiltin
	}
	extra := ""
	if on == skills.EndpointCommand {
		extra = ", command: [probe]"
	}
	models := fmt.Sprintf("\n  - {id: %s, downloads: 1, license: mit, endpoints: [%s]%s}", model, on, extra)
	if discovered(on) {
		models = " []"
	}
	s, err := skills.Parse(fmt.Appendf(nil, "name: %s\ndescription: Hands text to a %s endpoint.\nargs:\n  - {name: text, type: text}\noutputs: [text]\nmodels:%s\n",
		name, on, models))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
