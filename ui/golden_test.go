package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/turnview"
)

// Golden frames: the screen as plain text at 80×24 and 160×48, with a
// fixed clock and no colour. Regenerate with `go test ./ui -run Golden
// -update` and review the diff.

var sizes = []struct{ w, h int }{{80, 24}, {160, 48}}

func sizeName(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

func TestGoldenEmpty(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sizeName(sz.w, sz.h), func(t *testing.T) {
			env := newTestEnv(t)
			s := startSession(t, env.model(t), sz.w, sz.h)
			s.wait("the Ollama check", func(m *Model) bool { return m.server.checked && m.width == sz.w })
			m := s.finish()
			if !m.server.reachable || !m.server.pulled {
				t.Fatalf("the fake Ollama should be reachable with the model pulled: %+v", m.server)
			}
			f := frame(m)
			for _, want := range []string{"Chorus", "qwen3:8b", "ollama ✓", "HF token ✗", "local"} {
				if !strings.Contains(f, want) {
					t.Errorf("empty screen lacks %q:\n%s", want, f)
				}
			}
			golden.RequireEqual(t, f)
		})
	}
}

// fullTurnPlan resizes the attached picture, then converts the result:
// two built-in tasks, the second fed by the first.
func fullTurnPlan(image string) string {
	return fmt.Sprintf(`{"tasks": [{"task": "image-resize", "id": 1, "dep": [], "args": {"image": %q, "text": "50%%"}},
 {"task": "image-convert", "id": 2, "dep": [1], "args": {"image": "<resource>-1", "text": "jpeg"}}]}`, image)
}

const fullTurnAnswer = "## Done\n\nI resized the picture to **half** its size and saved it as JPEG.\n\n" +
	"- resized with the built-in resampler\n- converted to `jpeg`\n\n```sh\nfile out.jpg\n```"

func TestGoldenFullTurn(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sizeName(sz.w, sz.h), func(t *testing.T) {
			env := newTestEnv(t)
			env.script.plan = fullTurnPlan(env.image)
			env.script.answer = fullTurnAnswer
			s := startSession(t, env.model(t), sz.w, sz.h)
			s.wait("the Ollama check", func(m *Model) bool { return m.server.checked })
			s.typeText("make @" + env.image + " half as big, as a jpeg")
			s.key(keyEnter)
			s.wait("the turn to end", func(m *Model) bool { return len(m.turns) == 1 && m.turns[0].Done })
			m := s.finish()

			tr := m.turns[0]
			if tr.Err != nil {
				t.Fatalf("turn failed: %v", tr.Err)
			}
			if len(tr.Attachments) != 1 || tr.Attachments[0] != env.image {
				t.Errorf("attachments = %v, want [%s]", tr.Attachments, env.image)
			}
			if !strings.Contains(tr.Request, env.image) || strings.Contains(tr.Request, "@") {
				t.Errorf("the request should carry the path without the @: %q", tr.Request)
			}
			if len(tr.Tasks) != 2 || tr.Tasks[0].Status != turnview.TaskDone || tr.Tasks[1].Status != turnview.TaskDone {
				t.Fatalf("both tasks should be done: %+v", tr.Tasks)
			}
			if tr.Tasks[1].Choice == nil || tr.Tasks[1].Choice.Model != "chorus/convert" {
				t.Errorf("task 2 model choice = %+v", tr.Tasks[1].Choice)
			}
			files := tr.Files()
			if len(files) != 2 {
				t.Fatalf("files = %v, want the resized PNG and the JPEG", files)
			}
			for _, f := range files {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("generated file missing: %v", err)
				}
			}
			if !strings.HasSuffix(files[1], ".jpg") && !strings.HasSuffix(files[1], ".jpeg") {
				t.Errorf("task 2 should make a JPEG: %s", files[1])
			}
			ans := tr.Answer
			if !strings.HasPrefix(ans, "## Done") || !strings.Contains(ans, "**Workflow**") || !strings.Contains(ans, files[1]) {
				t.Errorf("answer should be the streamed text plus the workflow section naming the files:\n%s", ans)
			}
			if !tr.entry.Final || strings.Join(tr.entry.Files, ",") != strings.Join(files, ",") {
				t.Errorf("answer message files = %v, want %v", tr.entry.Files, files)
			}
			rendered := ansiStrip(strings.Join(tr.entry.Render(m.renderCtx(78)), "\n"))
			if !strings.Contains(rendered, "picture to half its size") || strings.Contains(rendered, "**half**") {
				t.Errorf("the answer should be rendered as Markdown, not shown raw:\n%s", rendered)
			}
			f := frame(m)
			if strings.Contains(f, "││") {
				t.Errorf("the column rule runs into the plan tree's own rule:\n%s", f)
			}
			golden.RequireEqual(t, f)

			// The session was saved with the turn.
			m.shutdown()
			saved := savedTurns(t, m)
			if len(saved) != 1 || len(saved[0].Plan) != 2 || saved[0].Report == nil {
				t.Errorf("saved turn incomplete: %+v", saved)
			}
		})
	}
}

func TestGoldenCancelledTurn(t *testing.T) {
	env := newTestEnv(t)
	env.script.answer = "Let me think about that for a while"
	env.script.stall = true
	s := startSession(t, env.model(t), 80, 24)
	s.wait("the Ollama check", func(m *Model) bool { return m.server.checked })
	s.typeText("tell me a long story")
	s.key(keyEnter)
	s.wait("the answer to stream", func(m *Model) bool {
		return m.cur != nil && strings.Contains(m.cur.Answer, "a while")
	})
	s.key(keyCtrlC)
	s.wait("the turn to end", func(m *Model) bool { return len(m.turns) == 1 && m.turns[0].Done })
	s.typeText("still here?")
	s.wait("the prompt to take text", func(m *Model) bool { return m.input.Value() == "still here?" })
	m := s.finish()
	tr := m.turns[0]
	if !tr.Canceled || !errorsIsCancel(tr.Err) {
		t.Fatalf("turn should be cancelled, err = %v", tr.Err)
	}
	if m.quitting {
		t.Fatal("Ctrl+C during a turn must not quit")
	}
	if !strings.Contains(tr.Answer, "Let me think about that for a while") || !strings.Contains(tr.Answer, "Cancelled") {
		t.Errorf("the partial answer should stay, marked cancelled: %q", tr.Answer)
	}
	golden.RequireEqual(t, frame(m))
}

func ansiStrip(s string) string { return ansi.Strip(s) }

func errorsIsCancel(err error) bool {
	return err != nil && strings.Contains(err.Error(), pipeline.ErrCancelled.Error())
}

func TestGoldenNarrowLayout(t *testing.T) {
	env := newTestEnv(t)
	env.script.plan = fullTurnPlan(env.image)
	env.script.answer = "Resized and converted."
	s := startSession(t, env.model(t), 100, 30)
	s.wait("the Ollama check", func(m *Model) bool { return m.server.checked })
	s.typeText("shrink @" + env.image + " to jpeg")
	s.key(keyEnter)
	s.wait("the turn to end", func(m *Model) bool { return len(m.turns) == 1 && m.turns[0].Done })
	s.key(keyF3) // Execution → Plan
	s.wait("the Plan tab", func(m *Model) bool { return m.panes.tab == turnview.PanePlan })
	m := s.finish()
	if m.wide() {
		t.Fatal("100 columns should use the narrow layout")
	}
	if m.bottomPanelHeight() == 0 {
		t.Fatal("the tabbed panel should show after a turn")
	}
	f := frame(m)
	for _, want := range []string{" Plan ", " Models ", " Execution ", "1 image-resize", "2 image-convert", "image=→#1"} {
		if !strings.Contains(f, want) {
			t.Errorf("narrow frame lacks %q:\n%s", want, f)
		}
	}
	golden.RequireEqual(t, f)
}

func TestGoldenHelp(t *testing.T) {
	for _, sz := range sizes {
		t.Run(sizeName(sz.w, sz.h), func(t *testing.T) {
			env := newTestEnv(t)
			s := startSession(t, env.model(t), sz.w, sz.h)
			s.wait("the Ollama check", func(m *Model) bool { return m.server.checked })
			s.typeText("/help")
			s.key(keyEnter)
			s.wait("the help dialog", func(m *Model) bool { return m.dialog != nil })
			m := s.finish()
			f := frame(m)
			wants := []string{"Help", "Keys", "ctrl+c", "esc closes"}
			if sz.h >= 48 {
				wants = append(wants, "ctrl+y", "alt+y", "f2")
			}
			for _, want := range wants {
				if !strings.Contains(f, want) {
					t.Errorf("help lacks %q:\n%s", want, f)
				}
			}
			golden.RequireEqual(t, f)
		})
	}
}
