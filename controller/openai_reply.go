package controller

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/chorusai/chorus/text"
)

// maxWholeReply bounds a chat answered as one JSON object instead of a
// stream: far more than any stage asks for, less than a runaway body.
const maxWholeReply = 32 << 20

// replyReader reads the answer to one streamed chat call. What the body
// holds decides how, not what the server labels it: real servers stream
// server-sent events (with comments, pings and keep-alives between the
// chunks, and with or without usage and the closing [DONE]); servers and
// proxies that ignore stream: true answer with one chat.completion, and
// some label either with the other's content type. Anything else is named
// with its status, content type and first bytes.
type replyReader struct {
	resp  *http.Response
	body  *bufio.Reader
	start time.Time
	fn    func(ChatChunk)

	finish        string
	first, last   time.Time
	chunks        int
	usage         openai.CompletionUsage
	usageReported bool
}

func readReply(resp *http.Response, start time.Time, fn func(ChatChunk)) error {
	r := &replyReader{resp: resp, body: bufio.NewReader(resp.Body), start: start, fn: fn}
	switch r.sniff() {
	case '{':
		return r.whole()
	case 'e':
		return r.events()
	}
	return r.notAReply(nil)
}

// sniff skips the body's leading white space and says what follows: '{'
// for a JSON object, 'e' for an event stream, 0 for anything else. It
// reads no further than the first field name of a stream, so a slow first
// event is not waited for twice.
func (r *replyReader) sniff() byte {
	skipped := 0
	defer func() {
		if skipped > 0 {
			r.fn(ChatChunk{Other: skipped})
		}
	}()
	for {
		b, err := r.body.ReadByte()
		if err != nil {
			return 0
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			// White space before anything counts toward the reply's cut
			// (limits.go): a server that sends only that is cut too.
			if skipped++; skipped == 1<<10 {
				r.fn(ChatChunk{Other: skipped})
				skipped = 0
			}
			continue
		}
		_ = r.body.UnreadByte()
		if b == '{' {
			return '{'
		}
		if b == ':' {
			return 'e' // a comment: only event streams have them
		}
		break
	}
	head, _ := r.body.Peek(len("retry:"))
	for _, field := range []string{"data:", "event:", "id:", "retry:"} {
		if bytes.HasPrefix(head, []byte(field)) {
			return 'e'
		}
	}
	return 0
}

// notAReply names an answer that is neither: its status, its content type
// and its first bytes (after what was already read, in seen).
func (r *replyReader) notAReply(seen []byte) error {
	head, _ := io.ReadAll(io.LimitReader(r.body, 300))
	ct := r.resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		ct = mt
	}
	body := text.OneLine(string(append(seen, head...)), 160)
	if body == "" {
		body = "an empty body"
	} else {
		body = fmt.Sprintf("%q", body)
	}
	return &Error{Err: ErrWrongServer, Detail: fmt.Sprintf("it answered a chat with HTTP %d, %s, neither an event stream nor a chat.completion: %s",
		r.resp.StatusCode, cmp.Or(ct, "no Content-Type"), body)}
}

// errorField is the server's own error inside a 200 answer — an object
// with an "error" member, as engines send when they fail mid-reply — or
// nil.
func errorField(data []byte) error {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || len(v.Error) == 0 || string(v.Error) == "null" {
		return nil
	}
	return fmt.Errorf("the server failed mid-reply: %s", text.OneLine(errorMessage(data), 200))
}

// whole reads a chat.completion that came instead of a stream.
func (r *replyReader) whole() error {
	data, err := io.ReadAll(io.LimitReader(r.body, maxWholeReply))
	if err != nil {
		return err
	}
	var c openai.ChatCompletion
	if e := errorField(data); e != nil {
		return e
	}
	if err := json.Unmarshal(data, &c); err != nil || len(c.Choices) == 0 {
		return r.notAReply(data)
	}
	r.fn(ChatChunk{Note: "the server answered with one whole chat.completion, not a stream (it ignores stream: true): no tokens arrive before the end"})
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		r.first = time.Now()
		r.last = r.first
		if ch.Message.Content != "" {
			r.fn(ChatChunk{Content: ch.Message.Content})
		}
		r.finish = cmp.Or(ch.FinishReason, "stop")
	}
	if c.JSON.Usage.Valid() {
		r.usage, r.usageReported = c.Usage, true
	}
	r.done()
	return nil
}

// events reads a stream of server-sent events. Comments and keep-alives
// are skipped by the decoder, empty and named events (pings) here; the
// reply is done at a finish_reason, or at [DONE] where a server sends
// none. A stream that ends with neither was cut: no final chunk, and the
// Controller says so.
func (r *replyReader) events() error {
	// The decoder skips comments, blank lines and fields it does not
	// know without returning: what they weigh is counted as they are read
	// (sseOther), so a stream of nothing else is cut too.
	body := &sseOther{r: r.body, fn: r.fn}
	dec := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(body)})
	sawDone := false
	for !sawDone && dec.Next() {
		ev := dec.Event()
		data := bytes.TrimSpace(ev.Data)
		// An event that carries no chunk counts toward the cut by its
		// size (limits.go).
		weight := len(ev.Data) + len(ev.Type) + len("data: \n\n")
		switch {
		case len(data) == 0:
			r.fn(ChatChunk{Other: weight})
			continue
		case bytes.Equal(data, []byte("[DONE]")):
			sawDone = true
			continue
		}
		if ev.Type == "error" {
			return fmt.Errorf("the server failed mid-reply: %s", text.OneLine(errorMessage(data), 200))
		}
		if ev.Type != "" && ev.Type != "message" {
			r.fn(ChatChunk{Other: weight}) // a ping, or another event a proxy adds
			continue
		}
		if err := errorField(data); err != nil {
			return err
		}
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return &Error{Err: ErrWrongServer, Detail: fmt.Sprintf("a streamed event is not OpenAI's JSON: %q", text.OneLine(string(data), 160))}
		}
		r.chunk(c, weight)
	}
	if err := dec.Err(); err != nil {
		return err
	}
	if r.finish == "" && sawDone {
		r.finish = "stop"
	}
	if r.finish != "" {
		r.done()
	}
	return nil
}

// chunk takes one streamed chunk: its content, its finish, its usage.
// Every chunk counts toward the reply's cut: its content and reasoning as
// text, a chunk with neither (the role, the finish, the usage, an empty
// delta) by its size, weight.
func (r *replyReader) chunk(c openai.ChatCompletionChunk, weight int) {
	if c.JSON.Usage.Valid() {
		r.usage, r.usageReported = c.Usage, true
	}
	content, reasoning := "", 0
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		content, reasoning = ch.Delta.Content, uncountedText(ch.Delta)
		if ch.FinishReason != "" {
			r.finish = ch.FinishReason
		}
	}
	switch {
	case content != "":
		now := time.Now()
		if r.first.IsZero() {
			r.first = now
		}
		r.last = now
		r.chunks++
		r.fn(ChatChunk{Content: content, Reasoning: reasoning})
	case reasoning > 0:
		r.fn(ChatChunk{Reasoning: reasoning})
	default:
		r.fn(ChatChunk{Other: weight})
	}
}

// uncountedText is the bytes of text a delta carries that are not the
// reply's content: reasoning (vLLM's and SGLang's reasoning_content,
// OpenRouter's reasoning), a refusal, tool calls' arguments.
func uncountedText(d openai.ChatCompletionChunkChoiceDelta) int {
	n := len(d.Refusal)
	for _, f := range []string{"reasoning_content", "reasoning"} {
		if raw := d.JSON.ExtraFields[f].Raw(); raw != "" && raw != "null" {
			n += len(raw)
		}
	}
	for _, tc := range d.ToolCalls {
		n += len(tc.Function.Arguments)
	}
	return n
}

// done sends the final chunk with the reply's statistics.
func (r *replyReader) done() {
	done := ChatChunk{Done: true, DoneReason: r.finish, EvalCount: r.chunks}
	if !r.first.IsZero() {
		// The API reports no timings: the wait for the first token stands
		// for the prompt's, the stream after it for the generation's.
		done.PromptEvalDuration, done.EvalDuration = r.first.Sub(r.start), r.last.Sub(r.first)
	}
	if r.usageReported {
		done.PromptEvalCount, done.EvalCount = int(r.usage.PromptTokens), int(r.usage.CompletionTokens)
		if r.usage.JSON.PromptTokensDetails.Valid() && r.usage.PromptTokensDetails.JSON.CachedTokens.Valid() {
			done.CachedTokens, done.CacheReported = int(r.usage.PromptTokensDetails.CachedTokens), true
		}
	}
	r.fn(done)
}

// sseOther reads an event stream for the decoder, counting as it goes the
// bytes that carry no event's data — comment lines, blank lines beyond
// the one that ends an event, and the fields (event:, id:, retry:, any
// other) of a group of lines that never gets a data line — and telling fn
// of them (ChatChunk.Other) after each read. The decoder skips those
// without returning, so a stream of nothing else would never reach the
// reply's cut otherwise. What an event with data weighs is the reader's
// to count, by what the event holds.
type sseOther struct {
	r  io.Reader
	fn func(ChatChunk)

	inLine  bool // past the first byte of a line
	kind    byte // the line's kind: ':' comment, 'd' data, 'f' another field, '?' not known yet, '\r' a lone CR so far
	head    []byte
	hasData bool // the group of lines since the last blank one has a data line
	pending int  // bytes of the group's other fields, counted if it gets no data
}

// maxPending is how many bytes of fields a group may hold before they
// count without waiting for its end: no real event's fields come near.
const maxPending = 1 << 10

func (s *sseOther) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	other := 0
	for _, b := range p[:n] {
		other += s.byte(b)
	}
	if other > 0 {
		s.fn(ChatChunk{Other: other})
	}
	return n, err
}

// byte takes one byte of the stream and returns how many bytes it makes
// count.
func (s *sseOther) byte(b byte) int {
	if !s.inLine {
		s.inLine, s.head = true, s.head[:0]
		switch b {
		case '\n':
			s.inLine = false
			return s.blank()
		case '\r':
			s.kind = '\r'
			return 0
		case ':':
			s.kind = ':'
			return 1
		}
		s.kind = '?'
	}
	if b == '\n' {
		s.inLine = false
		switch s.kind {
		case '\r':
			return s.blank()
		case ':':
			return 1
		case '?':
			if s.decide(); s.kind == 'f' {
				return s.field(len(s.head) + 1)
			}
		case 'f':
			return s.field(1)
		}
		return 0
	}
	switch s.kind {
	case ':':
		return 1
	case '\r':
		s.kind = '?'
		s.head = append(s.head, '\r')
	}
	if s.kind == '?' {
		s.head = append(s.head, b)
		if len(s.head) >= len("data:") || b == ':' {
			s.decide()
			if s.kind == 'f' {
				return s.field(len(s.head))
			}
		}
		return 0
	}
	if s.kind == 'f' {
		return s.field(1)
	}
	return 0
}

// decide settles the kind of a line from its head: a data field, or
// another.
func (s *sseOther) decide() {
	name, _, _ := bytes.Cut(s.head, []byte(":"))
	if string(bytes.TrimRight(name, "\r")) == "data" {
		s.kind, s.hasData, s.pending = 'd', true, 0
		return
	}
	s.kind = 'f'
}

// field adds n bytes of another field to the group's, counting them at
// once past maxPending.
func (s *sseOther) field(n int) int {
	if s.hasData {
		return 0
	}
	s.pending += n
	if s.pending > maxPending {
		n, s.pending = s.pending, 0
		return n
	}
	return 0
}

// blank ends a group of lines: an event's (free) or not (it and its
// fields count).
func (s *sseOther) blank() int {
	had, n := s.hasData, s.pending+1
	s.hasData, s.pending = false, 0
	if had {
		return 0
	}
	return n
}
