package controller

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Two bounds hold for every call, whatever the stage or the server: the
// prompt Chorus sends, and the reply it reads.
//
// The prompt is measured in bytes of text and counted in tokens at
// BytesPerToken, the ratio of English text in the tokenizers of the models
// Chorus runs; the stages fit their prompts under Options.PromptTokens
// first (pipeline/fit.go), so the refusal here is the last guard — a keyed
// server, billed per input token, is never sent more than the budget.
//
// The reply is bounded by ChatCall.NumPredict, which the server is asked to
// honour (num_predict, max_tokens). A server that does not — a broken
// template that never emits its end token, a proxy that drops the field —
// would stream until controller.timeout with the reply growing in memory,
// so the Controller counts what arrives and cuts the reply itself —
// everything that arrives: reasoning, comments and empty events too
// (replyBound.add).

// BytesPerToken is how many bytes of prompt text count as one token when
// the server has not said: four, as for English in a BPE tokenizer.
const BytesPerToken = 4

// ErrPromptTooLarge means a call's prompt is over Options.PromptTokens; it
// was not sent.
var ErrPromptTooLarge = errors.New("the prompt is over the controller's prompt budget")

// PromptSize is the size of msgs as the prompt budget counts it: the bytes
// of their text. Images are bounded apart, by count and size, where the
// stages attach them.
func PromptSize(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

// defaultPromptTokens is the prompt budget when neither PromptTokens nor
// NumCtx is set.
const defaultPromptTokens = 6144

// promptTokens fills in the prompt budget: three quarters of the context
// window, so a reply has room after the prompt, when it is not set.
func (o Options) promptTokens() int {
	switch {
	case o.PromptTokens > 0:
		return o.PromptTokens
	case o.NumCtx > 0:
		return max(o.NumCtx*3/4, 256)
	}
	return defaultPromptTokens
}

// PromptBytes is the prompt budget in bytes: what PromptSize of a call's
// messages may be.
func (o Options) PromptBytes() int { return o.PromptTokens * BytesPerToken }

// checkPrompt refuses a call whose prompt is over the budget.
func (c *Controller) checkPrompt(msgs []Message) error {
	size, budget := PromptSize(msgs), c.opts.PromptBytes()
	if size <= budget {
		return nil
	}
	return c.newError(ErrPromptTooLarge, fmt.Sprintf("a prompt of about %d tokens (%d bytes) was not sent: controller.prompt_tokens allows %d — raise it (with num_ctx) if the model's context holds more",
		(size+BytesPerToken-1)/BytesPerToken, size, c.opts.PromptTokens))
}

// maxTokenBytes is the longest a token is taken to be when a reply is
// counted in bytes: the long tokens of real vocabularies (runs of spaces,
// rules of dashes) stay under it.
const maxTokenBytes = 16

// otherAllowance is how many bytes of a reply's stream may carry no text
// before they count toward its cut: an honest stream's bookkeeping — the
// role chunk, the finish and usage chunks, the blank lines between events,
// a keep-alive comment now and then while the prompt is read — stays
// under it.
const otherAllowance = 4096

// replyBound counts a streaming reply against the tokens it may hold and
// says when the server has gone past them. Every chunk counts, not only
// the content: a server that streams reasoning, comments or empty events
// forever is cut as one that streams content.
type replyBound struct {
	limit int
	// pieces are the chunks that carried text (content or reasoning),
	// bytes their text's bytes; other the bytes that carried none.
	pieces, bytes, other int
}

// newReplyBound bounds a reply to the call's NumPredict or, when the call
// leaves it to the server, to the context window: no reply is longer.
func (c *Controller) newReplyBound(call ChatCall) replyBound {
	limit := call.NumPredict
	if limit <= 0 {
		limit = c.opts.NumCtx
	}
	return replyBound{limit: limit}
}

// add counts one streamed chunk and returns what of its content the reply
// keeps, with over set once the reply is past its bound. Three counts,
// each one alone enough to stop a stream that never ends, none reached by
// a server that honours the limit:
//
//   - text chunks (content, reasoning): more than the tokens allowed (a
//     chunk holds at least one token; servers count reasoning in
//     max_tokens);
//   - text bytes: more than the allowed tokens could hold, at
//     maxTokenBytes a token — the stand-in count where chunks are not
//     tokens (a server that sends its reply in a few big chunks); a chunk
//     that crosses it is kept up to it;
//   - the bytes that carry no text (SSE comments and pings, empty events,
//     chunks with no delta; a chunk that says nothing at all counts one
//     token's worth): more than the allowed tokens at BytesPerToken, past
//     otherAllowance.
func (b *replyBound) add(c ChatChunk) (keep string, over bool) {
	if b.limit <= 0 {
		return c.Content, false
	}
	text := len(c.Content) + c.Reasoning
	if text == 0 {
		b.other += max(c.Other, BytesPerToken)
		return "", b.other > b.limit*BytesPerToken+otherAllowance
	}
	b.other += c.Other
	b.pieces++
	if b.pieces > b.limit || b.other > b.limit*BytesPerToken+otherAllowance {
		return "", true
	}
	room := b.limit*maxTokenBytes - b.bytes
	if text > room {
		// The reasoning, which is not kept, goes first.
		cut := min(max(room-c.Reasoning, 0), len(c.Content))
		for cut > 0 && cut < len(c.Content) && !utf8.RuneStart(c.Content[cut]) {
			cut--
		}
		b.bytes += max(room, 0)
		return c.Content[:cut], true
	}
	b.bytes += text
	return c.Content, false
}

// cutNote is the reply's note when the Controller cut it.
func cutNote(limit int) string {
	return fmt.Sprintf("the server went on past the %d-token limit it was given; Chorus cut the reply there", limit)
}
