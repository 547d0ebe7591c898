package ui

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline"
)

// longAnswer returns about size bytes of the Markdown a chat model writes
// for a long answer: headings, paragraphs with emphasis and inline code,
// lists, a table and fenced code. n makes every answer's text its own.
func longAnswer(n, size int) string {
	var b strings.Builder
	words := strings.Fields("the planner splits each request into tasks and the selector picks a model for every " +
		"task while the executor runs them in parallel and the controller writes the answer from their results")
	for sec := 0; b.Len() < size; sec++ {
		fmt.Fprintf(&b, "## Part %d of answer %d\n\n", sec+1, n)
		for p := 0; p < 3; p++ {
			for w := 0; w < 60; w++ {
				word := words[(n+sec*7+p*13+w)%len(words)]
				switch w % 17 {
				case 5:
					word = "**" + word + "**"
				case 11:
					word = "`" + word + "`"
				}
				b.WriteString(word)
				b.WriteByte(' ')
			}
			b.WriteString("done.\n\n")
		}
		fmt.Fprintf(&b, "- step %d: plan\n- step %d: select\n- step %d: run\n\n", sec, sec+1, sec+2)
		b.WriteString("| task | model | time |\n|---|---|---|\n")
		fmt.Fprintf(&b, "| caption | blip-%d | 1.%ds |\n| speech | kokoro | 0.%ds |\n\n", n, sec%10, n%10)
		fmt.Fprintf(&b, "```go\nfunc part%d() int {\n\treturn %d\n}\n```\n\n", sec, n*sec)
	}
	return b.String()
}

// BenchmarkLongChat runs a long chat in the real program loop at 160×48 —
// a terminal with colours, the renderer writing its frames (to nowhere) —
// against a fake Ollama that streams a ~15 KB Markdown answer per turn, and
// measures what the chat keeps: the live heap after a full GC and the RSS
// after every turn. A long chat must keep a few times its text, not a
// rendering of every frame it showed.
//
//	go test ./ui -run '^$' -bench LongChat -benchtime 1x
//
// CHORUS_LONGCHAT_TURNS changes the number of turns (default 100);
// CHORUS_LONGCHAT_HEAPPROFILE writes the heap profile after the last turn.
func BenchmarkLongChat(b *testing.B) {
	turns := 100
	if s := os.Getenv("CHORUS_LONGCHAT_TURNS"); s != "" {
		turns, _ = strconv.Atoi(s)
	}
	turns = max(turns, 11) // the slope is measured after turn 10
	const answerSize = 15 << 10
	if os.Getenv("CHORUS_LONGCHAT_HEAPPROFILE") != "" {
		runtime.MemProfileRate = 256 // what a chat keeps, not a 512 kB sample of it
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		env := newTestEnv(b)
		env.ollama.ForgetRequests()
		answers := 0
		env.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
			switch planStage(req) {
			case pipeline.StagePlanning:
				return fakeollama.Reply{Content: `{"tasks": []}`}
			case pipeline.StageSelection:
				return fakeollama.Reply{Content: `{"choices": []}`}
			}
			answers++
			// A fast local model: a token every 200 µs, so a turn shows a
			// few dozen frames as the answer grows.
			return fakeollama.Reply{Content: longAnswer(answers, answerSize), ChunkDelay: 200 * time.Microsecond}
		})
		opts := env.options(b)
		opts.Getenv = fixedEnv(map[string]string{"NO_COLOR": "", "COLORTERM": "truecolor"})
		m, err := New(opts)
		if err != nil {
			b.Fatal(err)
		}
		p := &probe{Model: m}
		prog := tea.NewProgram(p, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(160, 48),
			tea.WithoutSignals())
		done := make(chan error, 1)
		go func() { _, err := prog.Run(); done <- err }()
		wait := func(what string, f func(*Model) bool) {
			ch := p.when(f)
			prog.Send(pokeMsg{})
			select {
			case <-ch:
			case <-time.After(10 * guard):
				b.Fatalf("timed out waiting for %s", what)
			}
		}
		wait("the Ollama check", func(m *Model) bool { return m.server.checked })

		heap0, rss0 := liveHeap(), testkit.RSS()
		var heap10, textBytes uint64
		start := time.Now()
		b.StartTimer()
		for n := 1; n <= turns; n++ {
			req := fmt.Sprintf("question %d: explain the pipeline in depth", n)
			for _, r := range req {
				prog.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
			wait(fmt.Sprintf("turn %d", n), func(m *Model) bool {
				return len(m.turns) == n && m.turns[n-1].Done && m.cur == nil
			})
			if n == 10 || n == turns {
				b.StopTimer()
				m.saves.Wait()
				h := liveHeap()
				if n == 10 {
					heap10 = h
				}
				b.StartTimer()
			}
		}
		b.StopTimer()
		elapsed := time.Since(start)
		m.saves.Wait()
		// What the chat holds as text: the requests and the answers.
		var last uint64
		got := make(chan struct{})
		prog.Send(testFunc(func(m *Model) {
			for _, t := range m.turns {
				textBytes += uint64(len(t.Request) + len(t.Answer))
			}
			close(got)
		}))
		<-got
		heapN, rssN := liveHeap(), testkit.RSS()
		last = heapN
		if path := os.Getenv("CHORUS_LONGCHAT_HEAPPROFILE"); path != "" {
			if f, err := os.Create(path); err == nil {
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
		prog.Quit()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		// Per turn: the slope after the first ten turns, when the screen
		// buffers, renderers and style caches a chat makes once exist.
		perTurn := (float64(last) - float64(heap10)) / float64(turns-10)
		b.ReportMetric(float64(heap0)/1e6, "MB-heap-start")
		b.ReportMetric(float64(heap10)/1e6, "MB-heap-10")
		b.ReportMetric(float64(last)/1e6, "MB-heap-end")
		b.ReportMetric(perTurn/1e3, "kB-kept/turn")
		b.ReportMetric(perTurn*float64(turns)/float64(textBytes), "kept/text-byte")
		b.ReportMetric(float64(rss0)/1e6, "MB-rss-start")
		b.ReportMetric(float64(rssN)/1e6, "MB-rss-end")
		b.ReportMetric(elapsed.Seconds()/float64(turns), "s/turn")
	}
}

// testFunc runs on the program's goroutine (the probe applies it), so a
// benchmark reads the model's state without a race.
type testFunc func(*Model)

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
