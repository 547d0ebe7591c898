package text

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// specialToken matches the control tokens of chat templates that a model
// (a small, a broken or a random-weight one) can emit as text: ChatML's and
// Llama 3's <|im_start|>, <|endoftext|>, <|eot_id|> and kin, DeepSeek's
// <｜begin▁of▁sentence｜>, Llama 2's and Mistral's [INST] … [/INST], <<SYS>>,
// <s> and </s>, Gemma's <start_of_turn> and <end_of_turn>, and the
// sentencepiece markers <unk>, <pad>, <bos>, <eos>. None of them is ever
// part of what a model means to say.
var specialToken = regexp.MustCompile(`<[|｜][^\s<>|｜]{1,48}[|｜]>|` +
	`\[/?(?:INST|SYSTEM_PROMPT|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS)\]|` +
	`<</?SYS>>|</?s>|<(?:start|end)_of_turn>|<(?:unk|pad|bos|eos)>`)

// maxSpecial bounds the length in bytes of a special token: how much of a
// stream's end CleanStream holds back in case it is the start of one.
const maxSpecial = 56

// CleanGenerated returns text a model generated with what must never be
// shown, saved or parsed as its words removed: everything Clean removes
// (terminal controls, invalid UTF-8 as U+FFFD, bidi overrides) and the
// chat templates' special tokens (<|im_start|>, <|endoftext|>, [INST],
// </s>…), which a model that leaks them writes as plain text.
func CleanGenerated(s string) string {
	return removeTokens(Clean(s))
}

// removeTokens removes special tokens until none is left: removing one can
// join the halves of another around it ("<|im_<|x|>start|>").
func removeTokens(s string) string {
	for strings.ContainsAny(s, "<[") && specialToken.MatchString(s) {
		s = specialToken.ReplaceAllString(s, "")
	}
	return s
}

// GeneratedStream cleans a model's reply as it streams, chunk by chunk,
// as CleanGenerated cleans it whole: an escape sequence, a "\r\n" or a
// character split across chunks is held back until the next chunk
// completes it, and so is the cleaned text from a "<" or "[" that may open
// a special token ("<|im_" then "start|>"). One contrived case gets
// through: a token split around another at a chunk boundary inside its
// name ("<|im_", "<|x|>", "start|>"). The zero value is ready to use.
type GeneratedStream struct {
	raw   string // the reply's bytes Clean has not seen yet
	clean string // cleaned text that may be the start of a special token
}

// Next takes the next chunk of the reply and returns what of the reply so
// far can be shown now, cleaned.
func (g *GeneratedStream) Next(chunk string) string {
	s := g.raw + chunk
	k := rawHold(s)
	g.raw = s[len(s)-k:]
	c := removeTokens(g.clean + Clean(s[:len(s)-k]))
	h := tokenHold(c)
	g.clean = c[len(c)-h:]
	return c[:len(c)-h]
}

// Flush returns the rest of the reply, cleaned, when it has ended.
func (g *GeneratedStream) Flush() string {
	c := removeTokens(g.clean + Clean(g.raw))
	g.raw, g.clean = "", ""
	return c
}

// tokenHold returns how many bytes at the end of cleaned text may be the
// start of a special token, which the next chunk may complete: "<|im_",
// "</", "[IN" — but not the "[{" of a JSON list, which is let through at
// once (plans stream task by task).
func tokenHold(c string) int {
	for i := max(0, len(c)-maxSpecial); i < len(c); i++ {
		if (c[i] == '<' || c[i] == '[') && mayOpenToken(c[i:]) {
			return len(c) - i
		}
	}
	return 0
}

// literalTokens are the special tokens specialToken matches that are not
// of the <|…|> family.
var literalTokens = []string{"[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CALLS]", "[/TOOL_CALLS]",
	"[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "<<SYS>>", "<</SYS>>", "<s>", "</s>",
	"<start_of_turn>", "<end_of_turn>", "<unk>", "<pad>", "<bos>", "<eos>"}

// barToken is the start of a token of the <|…|> family.
var barToken = regexp.MustCompile(`^<(?:[|｜][^\s<>|｜]{0,48}[|｜]?)?$`)

// barUnclosed is a token of the <|…|> family but its final ">".
var barUnclosed = regexp.MustCompile(`^<[|｜][^\s<>|｜]{1,48}[|｜]`)

// mayOpenToken reports whether s is the start of a special token — or a
// token but its last character followed by the start of another, which,
// once removed, would join the first's halves ("<|a|" "<|im_end|>" ">").
func mayOpenToken(s string) bool {
	if len(s) > maxSpecial {
		return false
	}
	for _, lit := range literalTokens {
		if strings.HasPrefix(lit, s) || strings.HasPrefix(s, lit[:len(lit)-1]) && mayOpenToken(s[len(lit)-1:]) {
			return true
		}
	}
	if n := len(barUnclosed.FindString(s)); n > 0 && n < len(s) && mayOpenToken(s[n:]) {
		return true
	}
	return barToken.MatchString(s)
}

// rawHold returns how many bytes at the end of s Clean must not see yet:
// an escape sequence that may go on, a "\r" a "\n" may follow, or an
// incomplete UTF-8 character.
func rawHold(s string) int {
	start := len(s) - incompleteRune(s)
	if strings.HasSuffix(s, "\r") {
		start = min(start, len(s)-1)
	}
	for i := max(0, len(s)-2*maxSpecial); i < len(s); {
		n := sequenceLen(s[i:])
		if n == 0 {
			i++
			continue
		}
		if i+n == len(s) {
			start = min(start, i)
		}
		i += n
	}
	return len(s) - start
}

// sequenceLen returns the length Clean gives the escape sequence or
// control string s starts with (ESC …, or an 8-bit CSI, DCS, SOS, OSC, PM
// or APC), or 0 when s starts with none.
func sequenceLen(s string) int {
	switch {
	case s[0] == 0x1b:
		return escapeLen(s)
	case len(s) < 2 || s[0] != 0xc2:
		return 0
	case s[1] == 0x9b:
		return 2 + csiLen(s[2:])
	case s[1] == 0x90 || s[1] == 0x98 || s[1] == 0x9d || s[1] == 0x9e || s[1] == 0x9f:
		return 2 + stringLen(s[2:])
	}
	return 0
}

// incompleteRune returns the length of the start of a multi-byte
// character at the end of s that its next bytes may complete.
func incompleteRune(s string) int {
	for n := 1; n <= 3 && n <= len(s); n++ {
		if utf8.RuneStart(s[len(s)-n]) {
			if !utf8.FullRuneInString(s[len(s)-n:]) {
				return n
			}
			return 0
		}
	}
	return 0
}
