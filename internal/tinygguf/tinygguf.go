// Package tinygguf writes a tiny llama-architecture GGUF model with random
// weights and a byte-level vocabulary. It is for tests only: a real Ollama
// server loads it and serves /api/chat, streaming and format-constrained,
// producing schema-valid nonsense — the ideal controller for proving that
// Chorus survives plans that are truncated, invented or cyclic.
package tinygguf

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
)

const align = 32

// GGUF metadata value types.
const (
	tU32 = 4
	tI32 = 5
	tF32 = 6
	tStr = 8
	tArr = 9
)

type kv struct {
	key   string
	vtype uint32
	value any
}

type tensor struct {
	name string
	dims []uint64
}

// Write writes the model to path. The same seed gives the same file.
func Write(path string, seed uint64) error { return WriteContext(path, seed, 2048) }

// WriteContext is Write for a model trained, as its metadata says, on
// contexts of n tokens: its one-byte tokens make a prompt of a few
// kilobytes thousands of tokens long.
func WriteContext(path string, seed uint64, n uint32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w, seed, n); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// byteVocab is GPT-2's byte-to-unicode table: every byte is one token.
func byteVocab() []string {
	var bs []int
	for b := '!'; b <= '~'; b++ {
		bs = append(bs, int(b))
	}
	for b := 0xA1; b <= 0xAC; b++ {
		bs = append(bs, b)
	}
	for b := 0xAE; b <= 0xFF; b++ {
		bs = append(bs, b)
	}
	in := map[int]bool{}
	for _, b := range bs {
		in[b] = true
	}
	cs := append([]int(nil), bs...)
	n := 0
	for b := 0; b < 256; b++ {
		if !in[b] {
			bs = append(bs, b)
			cs = append(cs, 256+n)
			n++
		}
	}
	table := make([]string, 256)
	for i, b := range bs {
		table[b] = string(rune(cs[i]))
	}
	return table
}

func write(w io.Writer, seed uint64, context uint32) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	tokens := append(byteVocab(), "<|endoftext|>", "<|im_start|>", "<|im_end|>")
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = 1
		if i >= 256 {
			types[i] = 3
		}
	}
	const e, layers, ff, heads = 64, 2, 128, 4
	v := uint64(len(tokens))
	meta := []kv{
		{"general.architecture", tStr, "llama"},
		{"general.name", tStr, "tiny-random"},
		{"general.alignment", tU32, uint32(align)},
		{"llama.context_length", tU32, context},
		{"llama.embedding_length", tU32, uint32(e)},
		{"llama.block_count", tU32, uint32(layers)},
		{"llama.feed_forward_length", tU32, uint32(ff)},
		{"llama.attention.head_count", tU32, uint32(heads)},
		{"llama.attention.head_count_kv", tU32, uint32(heads)},
		{"llama.attention.layer_norm_rms_epsilon", tF32, float32(1e-5)},
		{"llama.rope.dimension_count", tU32, uint32(e / heads)},
		{"llama.vocab_size", tU32, uint32(v)},
		{"tokenizer.ggml.model", tStr, "gpt2"},
		{"tokenizer.ggml.pre", tStr, "default"},
		{"tokenizer.ggml.tokens", tArr, tokens},
		{"tokenizer.ggml.token_type", tArr, types},
		{"tokenizer.ggml.merges", tArr, []string{}},
		{"tokenizer.ggml.bos_token_id", tU32, uint32(256)},
		{"tokenizer.ggml.eos_token_id", tU32, uint32(256)},
	}
	tensors := []tensor{{"token_embd.weight", []uint64{e, v}}, {"output_norm.weight", []uint64{e}}, {"output.weight", []uint64{e, v}}}
	for i := 0; i < layers; i++ {
		p := "blk." + string(rune('0'+i)) + "."
		tensors = append(tensors,
			tensor{p + "attn_norm.weight", []uint64{e}}, tensor{p + "attn_q.weight", []uint64{e, e}},
			tensor{p + "attn_k.weight", []uint64{e, e}}, tensor{p + "attn_v.weight", []uint64{e, e}},
			tensor{p + "attn_output.weight", []uint64{e, e}}, tensor{p + "ffn_norm.weight", []uint64{e}},
			tensor{p + "ffn_gate.weight", []uint64{e, ff}}, tensor{p + "ffn_up.weight", []uint64{e, ff}},
			tensor{p + "ffn_down.weight", []uint64{ff, e}})
	}

	var hdr []byte
	le := binary.LittleEndian
	u32 := func(x uint32) { hdr = le.AppendUint32(hdr, x) }
	u64 := func(x uint64) { hdr = le.AppendUint64(hdr, x) }
	str := func(s string) { u64(uint64(len(s))); hdr = append(hdr, s...) }
	hdr = append(hdr, "GGUF"...)
	u32(3)
	u64(uint64(len(tensors)))
	u64(uint64(len(meta)))
	for _, m := range meta {
		str(m.key)
		u32(m.vtype)
		switch x := m.value.(type) {
		case uint32:
			u32(x)
		case float32:
			u32(math.Float32bits(x))
		case string:
			str(x)
		case []string:
			u32(tStr)
			u64(uint64(len(x)))
			for _, s := range x {
				str(s)
			}
		case []int32:
			u32(tI32)
			u64(uint64(len(x)))
			for _, n := range x {
				u32(uint32(n))
			}
		}
	}
	sizes := make([]uint64, len(tensors))
	var off uint64
	for i, t := range tensors {
		n := uint64(1)
		for _, d := range t.dims {
			n *= d
		}
		sizes[i] = n
		str(t.name)
		u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			u64(d)
		}
		u32(0) // F32
		u64(off)
		raw := n * 4
		off += raw + (align-raw%align)%align
	}
	for len(hdr)%align != 0 {
		hdr = append(hdr, 0)
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for i, t := range tensors {
		buf := make([]byte, 0, sizes[i]*4+align)
		norm := len(t.name) > 11 && t.name[len(t.name)-11:] == "norm.weight"
		for j := uint64(0); j < sizes[i]; j++ {
			x := float32(1)
			if !norm {
				x = float32(rng.NormFloat64() * 0.5)
			}
			buf = le.AppendUint32(buf, math.Float32bits(x))
		}
		for len(buf)%align != 0 {
			buf = append(buf, 0)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
