package controller

import (
	"context"
	"encoding/json"
	"time"
)

// backend is the LLM server behind a Controller. The Controller owns what
// is Chorus's — caching capabilities, options, timeouts, turning failures
// into errors that name the fix — so a second kind of server is one file
// implementing these five calls.
//
// A backend returns its server's refusals as *statusError and transport
// failures as they come (net errors, io.EOF); Controller.wrap classifies
// both.
type backend interface {
	// list returns the models the server has.
	list(ctx context.Context) ([]ModelInfo, error)
	// capabilities returns what model can do ("completion", "vision",
	// "thinking", …).
	capabilities(ctx context.Context, model string) ([]string, error)
	// version is the server's version; informational only.
	version(ctx context.Context) (string, error)
	// chat streams one reply, calling fn for every chunk in order. It may
	// return nil without a final chunk when the stream was cut: the
	// Controller tells that from a finished reply by chunk.Done.
	chat(ctx context.Context, req chatRequest, fn func(chatChunk)) error
	// pull downloads model, calling fn with each progress report.
	pull(ctx context.Context, model string, fn func(PullProgress)) error
}

// chatRequest is one chat call as the Controller decided it.
type chatRequest struct {
	Model    string
	Messages []Message
	// Format is a JSON schema the reply must follow (nil: free text).
	Format      json.RawMessage
	Temperature float64
	// NumCtx and NumPredict are left to the server when 0.
	NumCtx     int
	NumPredict int
	// NoThink asks a thinking model not to think; only sent to models
	// that know the flag.
	NoThink bool
	// KeepAlive is how long the server keeps the model loaded after the
	// call; 0 leaves it to the server.
	KeepAlive time.Duration
}

// chatChunk is one piece of a streamed reply. The last one has Done set
// and carries the statistics.
type chatChunk struct {
	Content            string
	Done               bool
	DoneReason         string
	PromptEvalCount    int
	PromptEvalDuration time.Duration
	EvalCount          int
	EvalDuration       time.Duration
}
