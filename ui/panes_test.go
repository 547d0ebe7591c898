package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/theme"
)

func plainLines(lines []string) string { return ansi.Strip(strings.Join(lines, "\n")) }

// A turn driven by synthetic events, as the pipeline would send them.
func syntheticTurn(now time.Time) *turnState {
	t := newTurn(1, "req", nil, "qwen3:8b", now)
	t.answer = &chat.Message{Role: chat.RoleAssistant}
	evs := []pipeline.Event{
		pipeline.StageEvent{Stage: pipeline.StagePlanning},
		pipeline.PlanEvent{Tasks: []pipeline.Task{
			{ID: 1, Task: "text-to-image", Args: map[string]string{"text": "a red fox in the snow"}},
			{ID: 2, Task: "object-detection", Dep: []int{1}, Args: map[string]string{"image": "<resource>-1"}},
			{ID: 3, Task: "image-to-text", Dep: []int{1}, Args: map[string]string{"image": "<GENERATED>-1"}},
			{ID: 4, Task: "draw-boxes", Dep: []int{1, 2}, Args: map[string]string{"image": "<resource>-1", "text": "<resource>-2"}},
		}, Notes: []string{"task 5 dropped: unknown task"}},
		pipeline.ModelEvent{ID: 1, Task: "text-to-image", Model: "stabilityai/sdxl", Endpoint: "huggingface", Decided: "controller choice",
			Reason: "best quality for photos", Candidates: []pipeline.Candidate{{ID: "stabilityai/sdxl"}, {ID: "runwayml/sd-1.5"}},
			Excluded: []pipeline.Exclusion{{ID: "big/model", Reason: "licence cc-by-nc is not in the allow-list"}}},
		pipeline.TaskStartEvent{ID: 1, Task: "text-to-image", Model: "stabilityai/sdxl", Endpoint: "huggingface"},
		pipeline.TaskProgressEvent{ID: 1, Message: "model is loading", WaitMS: 17000},
	}
	for _, ev := range evs {
		t.apply(ev, now)
	}
	return t
}

func TestPanesFollowTheTurn(t *testing.T) {
	st := theme.NewStyles()
	now := fixedNow
	tr := syntheticTurn(now)
	pc := paneCtx{st: &st, turn: tr, now: now.Add(5 * time.Second), width: 70}

	plan := plainLines(planLines(pc))
	for _, want := range []string{"1 text-to-image", "├─· 2 object-detection", "image=→#1", "└─· 4 draw-boxes (also after #1)",
		"text=→#2", "note: task 5 dropped"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan pane lacks %q:\n%s", want, plan)
		}
	}
	if !strings.Contains(plan, spinnerAt(pc.now)+" 1 text-to-image") {
		t.Errorf("a running task shows the spinner:\n%s", plan)
	}
	if strings.Count(plan, "→#1") != 3 {
		t.Errorf("both <resource>-1 and <GENERATED>-1 should show as →#1:\n%s", plan)
	}

	models := plainLines(modelLines(pc))
	for _, want := range []string{"#1 text-to-image → stabilityai/sdxl", "huggingface · controller choice", "best quality for photos",
		"also: runwayml/sd-1.5", "✗ big/model: licence cc-by-nc"} {
		if !strings.Contains(models, want) {
			t.Errorf("models pane lacks %q:\n%s", want, models)
		}
	}

	exec := plainLines(execLines(pc))
	for _, want := range []string{"#1 text-to-image 5.0s stabilityai/sdxl", "model is loading", "model loading — 12s left"} {
		if !strings.Contains(exec, want) {
			t.Errorf("execution pane lacks %q:\n%s", want, exec)
		}
	}

	// The task ends, its dependant fails, the others never run.
	for _, ev := range []pipeline.Event{
		pipeline.TaskEndEvent{ID: 1, Task: "text-to-image", Status: pipeline.StatusOK, Model: "stabilityai/sdxl",
			Endpoint: "huggingface", Result: "a fox", Files: []string{"/out/fox.png"}, ElapsedMS: 8200,
			Attempts: []pipeline.Attempt{{Model: "x/first", Endpoint: "huggingface", Error: "HTTP 503"}, {Model: "stabilityai/sdxl", Endpoint: "huggingface"}}},
		pipeline.TaskEndEvent{ID: 2, Task: "object-detection", Status: pipeline.StatusError, Error: "HTTP 500: CUDA out of memory — try again later"},
		pipeline.TaskEndEvent{ID: 4, Task: "draw-boxes", Status: pipeline.StatusError, Skipped: true, Error: "dependency 2 failed"},
	} {
		tr.apply(ev, now)
	}
	tr.finish(nil, nil, now)
	plan = plainLines(planLines(pc))
	for _, want := range []string{"✓ 1 text-to-image", "✗ 2 object-detection", "⊘ 4 draw-boxes", "⊘ 3 image-to-text"} {
		if !strings.Contains(plan, want) {
			t.Errorf("finished plan lacks %q:\n%s", want, plan)
		}
	}
	exec = plainLines(execLines(pc))
	for _, want := range []string{"✓ #1 text-to-image 8.2s", "→ a fox", "tried x/first on huggingface: HTTP 503", "made image: /out/fox.png",
		"HTTP 500: CUDA out of memory — try again later", "skipped: dependency 2 failed"} {
		if !strings.Contains(exec, want) {
			t.Errorf("finished execution lacks %q:\n%s", want, exec)
		}
	}
	if strings.Contains(exec, "left") {
		t.Error("the countdown should end with the task")
	}
}

func TestTabFollowsStageUntilPinned(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	tr := startStream(m)
	send := func(ev pipeline.Event) { m.Update(pumpMsg{turn: tr.id, items: []any{ev}}) }
	send(pipeline.StageEvent{Stage: pipeline.StageSelection})
	if m.paneTab != paneModels {
		t.Fatalf("selection should show Models, got %v", m.paneTab)
	}
	send(pipeline.StageEvent{Stage: pipeline.StageExecution})
	if m.paneTab != paneExec {
		t.Fatalf("execution should show Execution, got %v", m.paneTab)
	}
	m.Update(keyF3)
	if m.paneTab != panePlan || !m.tabPinned {
		t.Fatalf("f3 should pick the next tab and pin it: %v %v", m.paneTab, m.tabPinned)
	}
	send(pipeline.StageEvent{Stage: pipeline.StageResponse})
	if m.paneTab != panePlan {
		t.Error("a pinned tab must not follow the stage")
	}
	// Events of a turn no longer followed are ignored.
	m.Update(pumpMsg{turn: tr.id + 7, items: []any{pipeline.TokenEvent{Text: "stale"}}})
	if strings.Contains(tr.answer.Text, "stale") {
		t.Error("events of another turn leaked into this one")
	}
}

func TestPumpDeliversInOrderAndCoalesces(t *testing.T) {
	p := newPump(3)
	for _, s := range []string{"a", "b", "c"} {
		p.emit(pipeline.TokenEvent{Text: s})
	}
	msg := p.listen()().(pumpMsg)
	if msg.turn != 3 || len(msg.items) != 3 {
		t.Fatalf("want one batch of 3 for turn 3, got %+v", msg)
	}
	var got string
	for _, it := range msg.items {
		got += it.(pipeline.TokenEvent).Text
	}
	if got != "abc" {
		t.Errorf("order = %q", got)
	}
	// Review requests wait for the dialog's answer, or for cancellation.
	review := p.reviewFunc()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := review(ctx, pipeline.Plan{})
		done <- err
	}()
	req := p.listen()().(pumpMsg).items[0].(reviewRequest)
	d := newReviewDialog(req)
	d.answer(pipeline.Plan{}, errPlanRejected)
	d.answer(pipeline.Plan{}, nil) // answered once only; a second answer must not block
	if err := <-done; !errors.Is(err, errPlanRejected) {
		t.Fatalf("review returned %v", err)
	}
	go func() {
		_, err := review(ctx, pipeline.Plan{})
		done <- err
	}()
	<-p.signal // the request was queued
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled turn should end the review wait: %v", err)
	}
}

func TestScanAttachTokens(t *testing.T) {
	toks := scanAttachTokens(`see @a.png, mail me@x.com, @"my file.png" and @dir/b\ c.wav`)
	var got []string
	for _, tk := range toks {
		got = append(got, tk.path)
	}
	want := []string{"a.png,", "my file.png", "dir/b c.wav"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("tokens = %q, want %q", got, want)
	}
	if w := shellWords(`'/a b/c.png' /d\ e.png "f.png"`); strings.Join(w, "|") != "/a b/c.png|/d e.png|f.png" {
		t.Errorf("shellWords = %q", w)
	}
	if r := attachRef("/x y.png"); r != `@"/x y.png"` {
		t.Errorf("attachRef = %q", r)
	}
}

// fakeMedia records what the app asked of ui/media.
type fakeMedia struct {
	mu      sync.Mutex
	played  []string
	playing chan struct{}
}

func (f *fakeMedia) Thumb(string, int, int) (string, error) { return "▀▀", nil }
func (f *fakeMedia) Full(path string, cols, rows int) (string, error) {
	return "\x1b_Gf=100;IMAGE\x1b\\", nil
}
func (f *fakeMedia) Protocol() string       { return "kitty" }
func (f *fakeMedia) Player() (string, bool) { return "ffplay", true }
func (f *fakeMedia) Play(ctx context.Context, path string) error {
	f.mu.Lock()
	f.played = append(f.played, path)
	f.mu.Unlock()
	close(f.playing)
	<-ctx.Done()
	return errors.New("playback of " + path + " stopped: " + ctx.Err().Error())
}

func TestPlayAudioTogglesAndStops(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	fm := &fakeMedia{playing: make(chan struct{})}
	m.media = fm
	if m.togglePlay() != nil || !strings.Contains(m.notice, "no audio") {
		t.Fatalf("without audio in the chat: %q", m.notice)
	}
	m.chat.Add(&chat.Message{Role: chat.RoleAssistant, Final: true, Files: []string{"/out/a.wav", "/out/b.png"}})
	cmd := m.togglePlay()
	if cmd == nil || m.play == nil {
		t.Fatal("alt+a should start playback")
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	<-fm.playing
	if !strings.Contains(ansi.Strip(m.statusLine(fixedNow)), "playing") {
		t.Error("the status bar should show playback")
	}
	m.togglePlay() // again: stop
	msg := <-done
	m.Update(msg)
	if m.play != nil {
		t.Error("playback state should clear when it stops")
	}
	if len(fm.played) != 1 || fm.played[0] != "/out/a.wav" {
		t.Errorf("played %v", fm.played)
	}
}

func TestImageViewerDrawsAndWaitsForAKey(t *testing.T) {
	var out strings.Builder
	v := &imageViewer{mp: &fakeMedia{}, path: "/out/fox.png", cols: 80, rows: 24}
	v.SetStdout(&out)
	v.SetStdin(strings.NewReader("q"))
	if err := v.Run(); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "\x1b_Gf=100;IMAGE\x1b\\") || !strings.Contains(s, "/out/fox.png — press any key") {
		t.Errorf("viewer output = %q", s)
	}
	if !strings.HasSuffix(s, "\x1b_Ga=d\x1b\\\x1b[2J\x1b[H") {
		t.Error("the viewer should delete kitty images and clear the screen on the way out")
	}
}

// TestPaneScrollStopsAtTheEnd: scrolling a pane past its end does nothing
// more, so the first press the other way moves it at once — in the tabbed
// panel and in the wide column.
func TestPaneScrollStopsAtTheEnd(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	tr := syntheticTurn(fixedNow)
	for i := 0; i < 80; i++ { // a long execution log
		tr.apply(pipeline.TaskProgressEvent{ID: 1, Message: "step " + strings.Repeat("x", i%5)}, fixedNow)
	}
	m.turns = []*turnState{tr}
	altComma := tea.KeyPressMsg{Code: ',', Mod: tea.ModAlt}
	altDot := tea.KeyPressMsg{Code: '.', Mod: tea.ModAlt}
	for _, sz := range [][2]int{{80, 30}, {160, 48}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m.paneTab, m.paneScroll = paneExec, 0
		newest := m.View().Content
		for range 40 {
			m.Update(altComma)
			m.View()
		}
		oldest := m.View().Content
		if oldest == newest {
			t.Fatalf("%dx%d: scrolling the execution log back changed nothing", sz[0], sz[1])
		}
		m.Update(altDot)
		if m.View().Content == oldest {
			t.Errorf("%dx%d: after scrolling past the top, one press back should move the pane (scroll %d)", sz[0], sz[1], m.paneScroll)
		}
	}
}
