package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
)

// streamTokens returns n answer tokens of realistic Markdown: paragraphs,
// a list and a fenced code block now and then.
func streamTokens(n int) []string {
	words := strings.Fields("the quick brown fox jumps over the lazy dog while chorus plans a task graph and streams tokens")
	var out []string
	for i := 0; len(out) < n; i++ {
		switch {
		case i%400 == 399:
			out = append(out, "\n\n```go\n", "func main() {\n", "\tfmt.Println(\"hi\")\n", "}\n", "```\n\n")
		case i%150 == 149:
			out = append(out, "\n\n- first point\n", "- second point\n\n")
		case i%60 == 59:
			out = append(out, ".\n\n")
		default:
			out = append(out, " "+words[i%len(words)])
		}
	}
	return out[:n]
}

// historyMessages fills the chat with n finished messages.
func fillHistory(m *Model, n int) {
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			m.chat.Add(&chat.Message{Role: chat.RoleUser, Text: fmt.Sprintf("question %d: what does the picture show?", i), Final: true})
		} else {
			m.chat.Add(&chat.Message{Role: chat.RoleAssistant, Final: true, Meta: "qwen3:8b · 2.1s",
				Text: fmt.Sprintf("## Answer %d\n\nIt shows **a fox** in the snow.\n\n- one\n- two\n\n```sh\nls -l\n```", i)})
		}
	}
}

// startStream makes the model look as if a turn were streaming its answer.
func startStream(m *Model) *shownTurn {
	t := newShownTurn(1, "tell me", nil, "qwen3:8b", fixedNow)
	m.chat.Add(&chat.Message{Role: chat.RoleUser, Text: "tell me", Final: true})
	m.chat.Add(t.entry)
	m.turns = append(m.turns, t)
	m.cur = t
	return t
}

// BenchmarkStreamRender streams 5,000 tokens into a chat that already
// holds a history, one frame per batch of tokens (what the pump delivers
// at 30 frames a second from a fast model), and reports the cost of a
// frame — Update with the batch, then View — at the start and at the end
// of the stream. Compare history=0 with history=200: the cost per frame
// does not depend on the length of the history.
func BenchmarkStreamRender(b *testing.B) {
	const tokens, perFrame, sample = 5000, 10, 50
	toks := streamTokens(tokens)
	for _, hist := range []int{0, 200} {
		b.Run(fmt.Sprintf("history=%d", hist), func(b *testing.B) {
			env := newTestEnv(b)
			var startNS, endNS, allNS time.Duration
			frames := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m := env.model(b)
				m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
				fillHistory(m, hist)
				t := startStream(m)
				m.View() // the history's visible part is rendered once, as in the app
				b.StartTimer()
				nFrames := tokens / perFrame
				for f := 0; f < nFrames; f++ {
					items := make([]any, perFrame)
					for k := range items {
						items[k] = pipeline.TokenEvent{Text: toks[f*perFrame+k]}
					}
					t0 := time.Now()
					m.Update(pumpMsg{turn: t.ID, items: items})
					m.View()
					d := time.Since(t0)
					allNS += d
					frames++
					if f < sample {
						startNS += d
					}
					if f >= nFrames-sample {
						endNS += d
					}
				}
			}
			b.ReportMetric(float64(startNS.Nanoseconds())/float64(b.N*sample), "ns/frame-start")
			b.ReportMetric(float64(endNS.Nanoseconds())/float64(b.N*sample), "ns/frame-end")
			b.ReportMetric(float64(allNS.Nanoseconds())/float64(frames), "ns/frame")
		})
	}
}

// A streamed frame renders only what changes and what is visible: the
// history's finished messages keep their cached lines, and messages
// scrolled out of view are never rendered at all.
func TestStreamingRendersOnlyVisibleAndChanging(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	fillHistory(m, 200)
	tr := startStream(m)
	m.View()
	cached := map[*chat.Message][]string{}
	rendered := 0
	for _, msg := range m.chat.Messages()[:200] {
		if lines, _ := msg.Cached(); lines != nil {
			cached[msg] = lines
			rendered++
		}
	}
	if rendered == 0 || rendered > 20 {
		t.Fatalf("%d of 200 history messages rendered for one screen; want only the visible few", rendered)
	}
	for f := 0; f < 50; f++ {
		m.Update(pumpMsg{turn: tr.ID, items: []any{pipeline.TokenEvent{Text: " word"}}})
		m.View()
	}
	for msg, lines := range cached {
		if now, _ := msg.Cached(); &now[0] != &lines[0] {
			t.Fatal("a finished message was rendered again while another streamed")
		}
	}
	for _, msg := range m.chat.Messages()[:200] {
		if lines, _ := msg.Cached(); lines != nil && cached[msg] == nil {
			t.Fatal("a message out of view was rendered")
		}
	}
	if !strings.Contains(tr.Answer, "word word") {
		t.Fatalf("tokens were not applied: %q", tr.Answer)
	}
	// A resize re-renders what is visible at the new width, nothing else.
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 30})
	m.View()
	for _, msg := range m.chat.Messages()[:200] {
		if lines, width := msg.Cached(); lines != nil && width != m.chatWidth()-1 && cached[msg] == nil {
			t.Fatal("an invisible message was rendered on resize")
		}
	}
}
