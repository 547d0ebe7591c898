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
	for {
		b, err := r.body.ReadByte()
		if err != nil {
			return 0
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
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
	dec := ssestream.NewDecoder(&http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(r.body)})
	sawDone := false
	for !sawDone && dec.Next() {
		ev := dec.Event()
		data := bytes.TrimSpace(ev.Data)
		switch {
		case len(data) == 0:
			continue
		case bytes.Equal(data, []byte("[DONE]")):
			sawDone = true
			continue
		}
		if ev.Type == "error" {
			return fmt.Errorf("the server failed mid-reply: %s", text.OneLine(errorMessage(data), 200))
		}
		if ev.Type != "" && ev.Type != "message" {
			continue // a ping, or another event a proxy adds
		}
		if err := errorField(data); err != nil {
			return err
		}
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return &Error{Err: ErrWrongServer, Detail: fmt.Sprintf("a streamed event is not OpenAI's JSON: %q", text.OneLine(string(data), 160))}
		}
		r.chunk(c)
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
func (r *replyReader) chunk(c openai.ChatCompletionChunk) {
	if c.JSON.Usage.Valid() {
		r.usage, r.usageReported = c.Usage, true
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != "" {
			now := time.Now()
			if r.first.IsZero() {
				r.first = now
			}
			r.last = now
			r.chunks++
			r.fn(ChatChunk{Content: ch.Delta.Content})
		}
		if ch.FinishReason != "" {
			r.finish = ch.FinishReason
		}
	}
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
