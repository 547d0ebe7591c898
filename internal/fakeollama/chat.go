package fakeollama

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Reply scripts one model answer. The zero Reply is an empty answer that
// ends with done_reason "stop".
type Reply struct {
	// Content is the answer text. It is streamed split into word-sized
	// tokens unless Chunks gives the split explicitly.
	Content string
	Chunks  []string
	// Stream, when set, supplies the chunks live: each string received is
	// sent (and flushed) at once, and the answer ends when the channel is
	// closed. Tests use it to prove a client sees tokens before the end.
	Stream <-chan string
	// StreamThinking sends Stream's strings as message.thinking instead
	// of content: a thinking model that never stops reasoning, whatever
	// "think" asked.
	StreamThinking bool
	// Thinking is the model's reasoning. With "think": true it is streamed
	// in message.thinking before the content; with think unset it appears
	// inline as <think>…</think> at the start of the content, as models
	// with thinking templates produce it; with "think": false it is dropped.
	Thinking string
	// ToolCalls are sent in a chunk of their own after the content.
	ToolCalls []api.ToolCall
	// DoneReason overrides the final chunk's done_reason ("stop", or
	// "length" when options.num_predict cut the answer short).
	DoneReason string
	// ChunkDelay is waited before every chunk; a cancelled request stops
	// the wait at once.
	ChunkDelay time.Duration
	// Stall holds the answer open after the last chunk, without a final
	// done chunk, until the client goes away — a model that never ends,
	// for testing cancellation.
	Stall bool
	// Status, when 400 or more, makes the server answer that HTTP status
	// with {"error": Error} instead of an answer.
	Status int
	// Error with Status 0 is a failure mid-answer (a crashed runner): the
	// chunks are streamed, then an {"error": …} line, as the real server
	// does; with "stream": false it answers 500.
	Error string
	// PromptEvalCount overrides the prompt token count in the final chunk.
	PromptEvalCount int
	// IgnoreNumPredict streams past options.num_predict, as a server does
	// whose model never emits its end token under a broken template, or
	// behind a proxy that drops the options.
	IgnoreNumPredict bool
}

// OnChat sets the responder for /api/chat. It sees the decoded request,
// format and options included, after the server's own checks passed.
func (s *Server) OnChat(fn func(req *api.ChatRequest) Reply) {
	s.OnChatContext(func(_ context.Context, req *api.ChatRequest) Reply { return fn(req) })
}

// OnChatContext is OnChat for responders that need the request context, for
// example to block until the client cancels.
func (s *Server) OnChatContext(fn func(ctx context.Context, req *api.ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChat = fn
}

// OnGenerate sets the responder for /api/generate. Without one, generate
// requests are answered by the chat responder, given the prompt (and system
// prompt and images) as chat messages.
func (s *Server) OnGenerate(fn func(req *api.GenerateRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onGenerate = func(_ context.Context, req *api.GenerateRequest) Reply { return fn(req) }
}

// defaultReply echoes the last user message, as JSON when a format is asked.
func defaultReply(req *api.ChatRequest) Reply {
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	if f := formatKind(req.Format); f != "" {
		b, _ := json.Marshal(map[string]string{"echo": last})
		return Reply{Content: string(b)}
	}
	return Reply{Content: "echo: " + last}
}

func (s *Server) chatResponder() func(context.Context, *api.ChatRequest) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.onChat != nil {
		return s.onChat
	}
	return func(_ context.Context, req *api.ChatRequest) Reply { return defaultReply(req) }
}

func (s *Server) generateResponder() func(context.Context, *api.GenerateRequest) Reply {
	s.mu.Lock()
	gen := s.onGenerate
	s.mu.Unlock()
	if gen != nil {
		return gen
	}
	chat := s.chatResponder()
	return func(ctx context.Context, req *api.GenerateRequest) Reply {
		var msgs []api.Message
		if req.System != "" {
			msgs = append(msgs, api.Message{Role: "system", Content: req.System})
		}
		msgs = append(msgs, api.Message{Role: "user", Content: req.Prompt, Images: req.Images})
		return chat(ctx, &api.ChatRequest{
			Model: req.Model, Messages: msgs, Stream: req.Stream, Format: req.Format,
			KeepAlive: req.KeepAlive, Options: req.Options, Think: req.Think,
		})
	}
}

// formatKind validates a format value as llm.Completion does: "" for none,
// "json", "schema", or an error message.
func formatKind(f json.RawMessage) string {
	switch s := strings.TrimSpace(string(f)); s {
	case "", "null", `""`:
		return ""
	case `"json"`:
		return "json"
	}
	return "schema"
}

func formatError(f json.RawMessage) string {
	if formatKind(f) != "schema" {
		return ""
	}
	if f[0] != '{' {
		return fmt.Sprintf("invalid format: %q; expected \"json\" or a valid JSON Schema object", []byte(f))
	}
	if err := checkSchemaShape(f); err != nil {
		return "invalid JSON schema in format"
	}
	return ""
}

// capabilityError reproduces Model.CheckCapabilities' message as
// scheduleRunner wraps it: "<full name> does not support tools\nvision".
func capabilityError(m Model, want ...string) string {
	var missing []string
	for _, c := range want {
		if !m.has(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fullName(m.Name) + " does not support " + strings.Join(missing, "\n")
}

func hasImages(msgs []api.Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.ChatRequest
	if !bindJSON(w, r, &req) {
		return
	}
	if len(req.Messages) == 0 && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		if _, ok := s.model(req.Model); !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
			return
		}
		s.markLoaded(req.Model, nil, req.KeepAlive)
		writeJSON(w, http.StatusOK, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "unload"})
		return
	}
	if !validName(req.Model) {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if !m.has(CapCompletion) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model))
		return
	}
	want := []string{CapCompletion}
	if len(req.Tools) > 0 {
		want = append(want, CapTools)
	}
	if req.Think != nil && req.Think.AsBool() {
		want = append(want, CapThinking)
	}
	// Ollama v0.11.4 itself drops images sent to a model without a vision
	// projector; newer servers refuse them with the capability error, and
	// so does the fake, so a client that mixes them up is caught.
	if hasImages(req.Messages) {
		want = append(want, CapVision)
	}
	if msg := capabilityError(m, want...); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s.markLoaded(m.Name, req.Options, req.KeepAlive)
	loaded := time.Now()
	if len(req.Messages) == 0 {
		writeJSON(w, http.StatusOK, api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load"})
		return
	}
	if req.Think != nil && req.Think.IsString() && m.Family != "gptoss" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("think value %q is not supported for this model", req.Think.AsString()))
		return
	}

	stream := req.Stream == nil || *req.Stream
	if msg := formatError(req.Format); msg != "" {
		failCompletion(w, stream, msg)
		return
	}
	rep := s.chatResponder()(r.Context(), &req)
	if rep.Status >= 400 {
		writeError(w, rep.Status, rep.Error)
		return
	}
	promptTokens := rep.PromptEvalCount
	var promptEvalDur time.Duration
	if lat := s.latencyModel(); lat != nil {
		prompt := RenderPrompt(&req)
		evaluated, release, err := lat.prefill(r.Context(), m.Name, prompt)
		defer release()
		if err != nil {
			return // the client went away while queued or prefilling
		}
		// Like Ollama v0.11.4, prompt_eval_count is the whole prompt
		// even when most of it came from the cache; the duration shows
		// what was really evaluated.
		if promptTokens == 0 {
			promptTokens = PromptTokens(prompt)
		}
		promptEvalDur = time.Duration(evaluated) * lat.model.PerKPrefill / 1000
		if rep.ChunkDelay == 0 {
			rep.ChunkDelay = lat.model.PerToken
		}
		if rep.Chunks == nil && rep.Stream == nil {
			// Tokens of four bytes, as prompts are counted: a JSON plan
			// with no spaces costs its real decode time, not one step.
			rep.Chunks = byteTokens(rep.Content)
		}
	}
	if promptTokens == 0 {
		for _, msg := range req.Messages {
			promptTokens += len(strings.Fields(msg.Content)) + 4 + 576*len(msg.Images)
		}
	}
	if promptEvalDur == 0 {
		promptEvalDur = time.Duration(promptTokens) * 100 * time.Microsecond
	}
	final := func(reason string, evalCount int, evalDur time.Duration) api.ChatResponse {
		return api.ChatResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant"}, Done: true, DoneReason: reason,
			Metrics: api.Metrics{
				TotalDuration: time.Since(start), LoadDuration: loaded.Sub(start),
				PromptEvalCount: promptTokens, PromptEvalDuration: promptEvalDur,
				EvalCount: evalCount, EvalDuration: evalDur,
			},
		}
	}
	toChunk := func(p piece) any {
		return api.ChatResponse{Model: req.Model, CreatedAt: time.Now().UTC(),
			Message: api.Message{Role: "assistant", Content: p.content, Thinking: p.thinking, ToolCalls: p.toolCalls}}
	}
	if !stream {
		var content, thinking strings.Builder
		var calls []api.ToolCall
		reason, n, dur, err := produce(r.Context(), rep, req.Think, numPredict(req.Options), len(req.Tools) > 0, func(p piece) error {
			content.WriteString(p.content)
			thinking.WriteString(p.thinking)
			calls = append(calls, p.toolCalls...)
			return nil
		})
		if err != nil {
			failCompletion(w, false, err.Error())
			return
		}
		resp := final(reason, n, dur)
		resp.Message.Content, resp.Message.Thinking, resp.Message.ToolCalls = content.String(), thinking.String(), calls
		writeJSON(w, http.StatusOK, resp)
		return
	}
	nd := startNDJSON(w)
	reason, n, dur, err := produce(r.Context(), rep, req.Think, numPredict(req.Options), len(req.Tools) > 0, func(p piece) error {
		return nd.send(toChunk(p))
	})
	if err != nil {
		nd.send(map[string]string{"error": err.Error()}) //nolint:errcheck // best effort, as the real server
		return
	}
	nd.send(final(reason, n, dur)) //nolint:errcheck
}

func (s *Server) handleGenerate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req api.GenerateRequest
	if !bindJSON(w, r, &req) {
		return
	}
	m, ok := s.model(req.Model)
	if !validName(req.Model) || !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	if req.Prompt == "" && req.KeepAlive != nil && req.KeepAlive.Duration == 0 {
		s.markLoaded(m.Name, nil, req.KeepAlive)
		writeJSON(w, http.StatusOK, api.GenerateResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Done: true, DoneReason: "unload"})
		return
	}
	if req.Raw && (req.Template != "" || req.System != "" || len(req.Context) > 0) {
		writeError(w, http.StatusBadRequest, "raw mode does not support template, system, or context")
		return
	}
	if req.Think != nil && req.Think.IsString() && m.Family != "gptoss" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("think value %q is not supported for this model", req.Think.AsString()))
		return
	}
	if !m.has(CapCompletion) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%q does not support generate", req.Model))
		return
	}
	want := []string{CapCompletion}
	if req.Suffix != "" {
		want = append(want, CapInsert)
	}
	if req.Think != nil && req.Think.AsBool() {
		want = append(want, CapThinking)
	}
	if len(req.Images) > 0 {
		want = append(want, CapVision)
	}
	if msg := capabilityError(m, want...); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	s.markLoaded(m.Name, req.Options, req.KeepAlive)
	loaded := time.Now()
	if req.Prompt == "" {
		writeJSON(w, http.StatusOK, api.GenerateResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Done: true, DoneReason: "load"})
		return
	}
	stream := req.Stream == nil || *req.Stream
	if msg := formatError(req.Format); msg != "" {
		failCompletion(w, stream, msg)
		return
	}
	rep := s.generateResponder()(r.Context(), &req)
	if rep.Status >= 400 {
		writeError(w, rep.Status, rep.Error)
		return
	}
	promptTokens := rep.PromptEvalCount
	if promptTokens == 0 {
		promptTokens = len(strings.Fields(req.System+" "+req.Prompt)) + 4 + 576*len(req.Images)
	}
	var all strings.Builder
	final := func(reason string, evalCount int, evalDur time.Duration) api.GenerateResponse {
		resp := api.GenerateResponse{
			Model: req.Model, CreatedAt: time.Now().UTC(), Done: true, DoneReason: reason,
			Metrics: api.Metrics{
				TotalDuration: time.Since(start), LoadDuration: loaded.Sub(start),
				PromptEvalCount: promptTokens, PromptEvalDuration: time.Duration(promptTokens) * 100 * time.Microsecond,
				EvalCount: evalCount, EvalDuration: evalDur,
			},
		}
		if !req.Raw {
			resp.Context = fakeTokens(req.Prompt + all.String())
		}
		return resp
	}
	if !stream {
		var thinking strings.Builder
		reason, n, dur, err := produce(r.Context(), rep, req.Think, numPredict(req.Options), false, func(p piece) error {
			all.WriteString(p.content)
			thinking.WriteString(p.thinking)
			return nil
		})
		if err != nil {
			failCompletion(w, false, err.Error())
			return
		}
		resp := final(reason, n, dur)
		resp.Response, resp.Thinking = all.String(), thinking.String()
		writeJSON(w, http.StatusOK, resp)
		return
	}
	nd := startNDJSON(w)
	reason, n, dur, err := produce(r.Context(), rep, req.Think, numPredict(req.Options), false, func(p piece) error {
		all.WriteString(p.content)
		return nd.send(api.GenerateResponse{Model: req.Model, CreatedAt: time.Now().UTC(), Response: p.content, Thinking: p.thinking})
	})
	if err != nil {
		nd.send(map[string]string{"error": err.Error()}) //nolint:errcheck
		return
	}
	nd.send(final(reason, n, dur)) //nolint:errcheck
}

// failCompletion reports an error raised once generation began (a bad
// format, a crashed runner): a streamed {"error"} line with status 200, or
// HTTP 500 when not streaming — exactly what the real handlers do.
func failCompletion(w http.ResponseWriter, stream bool, msg string) {
	if !stream {
		writeError(w, http.StatusInternalServerError, msg)
		return
	}
	startNDJSON(w).send(map[string]string{"error": msg}) //nolint:errcheck
}

func numPredict(opts map[string]any) int {
	if v, ok := opts["num_predict"].(float64); ok && v > 0 {
		return int(v)
	}
	return 0
}

// fakeTokens stands in for the tokenizer: one id per word.
func fakeTokens(s string) []int {
	words := strings.Fields(s)
	out := make([]int, len(words))
	for i, w := range words {
		h := 0
		for _, r := range w {
			h = (h*31 + int(r)) % 150000
		}
		out[i] = h
	}
	return out
}

// piece is one streamed chunk's payload.
type piece struct {
	content, thinking string
	toolCalls         []api.ToolCall
}

// produce plays the reply as pieces through emit, honouring delays,
// cancellation, live chunks and options.num_predict. It returns the done
// reason, the number of generated tokens and the generation time.
func produce(ctx context.Context, rep Reply, think *api.ThinkValue, limit int, tools bool, emit func(piece) error) (string, int, time.Duration, error) {
	begin := time.Now()
	count := 0
	reason := rep.DoneReason
	if reason == "" {
		reason = "stop"
	}
	wait := func() error {
		if rep.ChunkDelay <= 0 {
			return ctx.Err()
		}
		t := time.NewTimer(rep.ChunkDelay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	// send emits one token; ok is false when num_predict is used up.
	send := func(p piece) (bool, error) {
		if limit > 0 && count >= limit && !rep.IgnoreNumPredict {
			reason = "length"
			return false, nil
		}
		if err := wait(); err != nil {
			return false, err
		}
		count++
		return true, emit(p)
	}
	elapsed := func() time.Duration { return max(time.Since(begin), time.Duration(count)*time.Millisecond) }

	switch {
	case rep.Thinking == "":
	case think == nil:
		for _, t := range splitTokens("<think>\n" + rep.Thinking + "\n</think>\n\n") {
			if ok, err := send(piece{content: t}); err != nil || !ok {
				return reason, count, elapsed(), err
			}
		}
	case think.AsBool():
		for _, t := range splitTokens(rep.Thinking) {
			if ok, err := send(piece{thinking: t}); err != nil || !ok {
				return reason, count, elapsed(), err
			}
		}
	}
	if rep.Stream != nil {
	live:
		for {
			select {
			case <-ctx.Done():
				return reason, count, elapsed(), ctx.Err()
			case c, open := <-rep.Stream:
				if !open {
					break live
				}
				p := piece{content: c}
				if rep.StreamThinking {
					p = piece{thinking: c}
				}
				if ok, err := send(p); err != nil || !ok {
					return reason, count, elapsed(), err
				}
			}
		}
	} else {
		chunks := rep.Chunks
		if chunks == nil {
			chunks = splitTokens(rep.Content)
		}
		for _, c := range chunks {
			if ok, err := send(piece{content: c}); err != nil || !ok {
				return reason, count, elapsed(), err
			}
		}
	}
	if tools && len(rep.ToolCalls) > 0 {
		if err := emit(piece{toolCalls: rep.ToolCalls}); err != nil {
			return reason, count, elapsed(), err
		}
	}
	if rep.Stall {
		<-ctx.Done()
		return reason, count, elapsed(), ctx.Err()
	}
	if rep.Error != "" {
		return reason, count, elapsed(), fmt.Errorf("%s", rep.Error)
	}
	return reason, count, elapsed(), nil
}

// splitTokens cuts text into word-sized pieces that keep their leading
// whitespace, the way tokenizers stream words: "Hello world" → "Hello", " world".
func splitTokens(s string) []string {
	var out []string
	startTok := 0
	for i, r := range s {
		if prev, _ := utf8.DecodeLastRuneInString(s[:i]); i > startTok && unicode.IsSpace(r) && !unicode.IsSpace(prev) {
			out = append(out, s[startTok:i])
			startTok = i
		}
	}
	if startTok < len(s) {
		out = append(out, s[startTok:])
	}
	return out
}

// ndjson writes one JSON object per line and flushes each, as gin's
// c.Stream does for the real server. Like it, the status line and headers
// go out with the first object, not before.
type ndjson struct {
	w       http.ResponseWriter
	started bool
}

func startNDJSON(w http.ResponseWriter) *ndjson {
	w.Header().Set("Content-Type", "application/x-ndjson")
	return &ndjson{w: w}
}

func (n *ndjson) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !n.started {
		n.started = true
		n.w.WriteHeader(http.StatusOK)
	}
	if _, err := n.w.Write(append(b, '\n')); err != nil {
		return err
	}
	if f, ok := n.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}
