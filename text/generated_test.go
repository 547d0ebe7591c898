package text

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCleanGenerated(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "A cat on a mat.", "A cat on a mat."},
		{"ChatML", "best=8ۯ'k춊y<|im_start|>assistant<|im_end|>", "best=8ۯ'k춊yassistant"},
		{"end of text", "done<|endoftext|>", "done"},
		{"Llama 3", "<|begin_of_text|><|start_header_id|>user<|end_header_id|>hi<|eot_id|>", "userhi"},
		{"DeepSeek", "<｜begin▁of▁sentence｜>hi<｜end▁of▁sentence｜>", "hi"},
		{"Llama 2 and Mistral", "<s>[INST] <<SYS>>x<</SYS>> q [/INST] a</s>", " x q  a"},
		{"Gemma", "<start_of_turn>model\nhi<end_of_turn>", "model\nhi"},
		{"sentencepiece", "<unk><pad>a<bos>b<eos>", "ab"},
		{"nested halves", "<|im_<|x|>start|>ok", "ok"},
		{"controls too", "a\x1b[2Jb\x00c<|im_end|>", "abc"},
		{"markup that is no token stays", "x < y and [1, 2] and <b>bold</b> and a|b", "x < y and [1, 2] and <b>bold</b> and a|b"},
		{"JSON stays JSON", `{"benchmark":"wer<|im_start|>"}`, `{"benchmark":"wer"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CleanGenerated(tc.in); got != tc.want {
				t.Errorf("CleanGenerated(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestGeneratedStream: cleaning a reply chunk by chunk, split anywhere —
// inside a special token, an escape sequence, a "\r\n" or a character's
// bytes — gives what cleaning it whole gives.
func TestGeneratedStream(t *testing.T) {
	pieces := []string{"word ", "<|im_start|>", "<|endoftext|>", "[INST]", "</s>", "<｜end▁of▁sentence｜>", "\x1b[2J",
		"\x1b]0;title\a", "\u009b31m", "\u009d0;t\u009c", "\r\n", "\r", "é", "춊", "ۯ", "🍂", "\u202e", "\x00", "\x07",
		"\xff", "\xe2\x82", "<", "[", ">", "]", "|", "{\"a\":1}", "x < y", "<b>"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		whole := b.String()
		var g GeneratedStream
		var got strings.Builder
		for rest := whole; rest != ""; {
			n := 1 + rng.IntN(min(len(rest), 9))
			got.WriteString(g.Next(rest[:n]))
			rest = rest[n:]
		}
		got.WriteString(g.Flush())
		if want := CleanGenerated(whole); got.String() != want {
			t.Fatalf("streamed %q → %q, whole → %q", whole, got.String(), want)
		}
	}
}
