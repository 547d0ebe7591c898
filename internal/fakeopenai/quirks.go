package fakeopenai

import (
	"net/http"
	"slices"
)

// Quirks are the ways real OpenAI-compatible servers, and the proxies in
// front of them, depart from what vLLM and llama-server send. Each is a
// switch a test turns on, so that a client's handling of every one is
// pinned by a test rather than met first by a user.
type Quirks struct {
	// Unstreamed answers a streamed request with one whole
	// chat.completion JSON, as servers and proxies that ignore
	// stream: true do.
	Unstreamed bool
	// NoUsage leaves usage out of a stream whatever stream_options asks,
	// as servers that do not know include_usage do.
	NoUsage bool
	// RefuseStreamOptions refuses a request carrying stream_options with
	// a 400 naming it, as strict validators do (Azure's older API
	// versions, servers whose request model forbids extra fields).
	RefuseStreamOptions bool
	// RefuseJSONMode refuses every response_format but text — json_schema
	// and json_object alike — with a 400 naming it: a server with no JSON
	// mode at all.
	RefuseJSONMode bool
	// KeepAlives sends SSE comments (": keep-alive", OpenRouter's
	// ": OPENROUTER PROCESSING") and named ping events before and between
	// the chunks, as proxies and sse-starlette do while a model works.
	KeepAlives bool
	// NoDone ends a stream at EOF without "data: [DONE]", after the
	// finish chunk (and the usage), as some servers do.
	NoDone bool
	// ContentType, when set, labels a 200 reply with it whatever the body
	// holds: a proxy that mislabels.
	ContentType string
}

// The words of the quirks' refusals.
const (
	streamOptionsRefusal = "Unrecognized request argument supplied: stream_options"
	jsonModeRefusal      = "Unrecognized request argument supplied: response_format"
)

// SetQuirks turns the server's departures from the engine's usual replies
// on (the zero Quirks turns them all off).
func (s *Controller) SetQuirks(q Quirks) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quirks = q
}

// Refusals returns the messages of the chat requests the server refused,
// oldest first: how many attempts a client made before one was served.
func (s *Controller) Refusals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.refusals)
}

// quirkRefusal is the refusal a quirk makes of a request, if any.
func (q Quirks) quirkRefusal(req *ChatRequest, streamOptions bool) (int, string) {
	switch {
	case q.RefuseStreamOptions && streamOptions:
		return http.StatusBadRequest, streamOptionsRefusal
	case q.RefuseJSONMode && req.Format != "" && req.Format != "text":
		return http.StatusBadRequest, jsonModeRefusal
	}
	return 0, ""
}
