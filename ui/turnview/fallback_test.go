package turnview

import (
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/theme"
)

// fallbackTurn is a text-to-speech task whose curated default is served by
// neither provider (fal-ai 404 → replicate 404) and whose next model fails
// too, before the third runs: the events the pipeline sends, with the long
// nested errors real servers give.
func fallbackTurn(now time.Time) *TurnState {
	nested := "huggingface hexgrad/Kokoro-82M: no provider could run it: huggingface (fal-ai) hexgrad/Kokoro-82M: HTTP 404: " +
		"Application 'kokoro' not found — the provider does not serve this model; huggingface (replicate) hexgrad/Kokoro-82M: HTTP 404: " +
		"The requested resource could not be found — the provider does not serve this model"
	t := NewTurnState(1, "say good morning", nil, "qwen3:8b", now)
	for _, ev := range []pipeline.Event{
		pipeline.PlanEvent{Tasks: []pipeline.Task{{ID: 1, Task: "text-to-speech", Args: map[string]string{"text": "good morning"}}}},
		pipeline.ModelEvent{ID: 1, Task: "text-to-speech", Model: "hexgrad/Kokoro-82M", Endpoint: "huggingface", Provider: "fal-ai", Decided: "ranked",
			Reason: "hexgrad/Kokoro-82M is the skill's curated default"},
		pipeline.TaskStartEvent{ID: 1, Task: "text-to-speech", Model: "hexgrad/Kokoro-82M", Endpoint: "huggingface", Provider: "fal-ai"},
		pipeline.TaskProgressEvent{ID: 1, Message: "not served by fal-ai (404); trying replicate", Passing: true},
		pipeline.TaskProgressEvent{ID: 1, Message: "Kokoro-82M: not served by fal-ai (404), replicate (404) → mms-tts-eng", Fallback: true},
		pipeline.TaskProgressEvent{ID: 1, Message: "mms-tts-eng: hf-inference failed (503): Service Unavailable → espeak-ng", Fallback: true},
		pipeline.TaskEndEvent{ID: 1, Task: "text-to-speech", Status: pipeline.StatusOK, Model: "espeak-ng", Endpoint: "command", Result: "1.2 s of speech (WAV)",
			Attempts: []pipeline.Attempt{
				{Model: "hexgrad/Kokoro-82M", Endpoint: "huggingface", Provider: "replicate", Error: nested, Why: "not served by fal-ai (404), replicate (404)"},
				{Model: "facebook/mms-tts-eng", Endpoint: "huggingface", Provider: "hf-inference", Error: "huggingface (hf-inference) facebook/mms-tts-eng: HTTP 503: " + nested,
					Why: "hf-inference failed (503): Service Unavailable"},
				{Model: "espeak-ng", Endpoint: "command"},
			}},
	} {
		t.Apply(ev, now)
	}
	return t
}

func TestPanesShowTheModelThatRanAndOneLinePerHop(t *testing.T) {
	st := theme.NewStyles()
	tr := fallbackTurn(fixedNow)
	pc := RenderContext{Styles: &st, Turn: tr, Now: fixedNow, Width: 80}

	models := plainLines(ModelLines(pc))
	lines := strings.Split(models, "\n")
	if lines[0] != "#1 text-to-speech → espeak-ng · command" || !strings.HasPrefix(lines[1], "   after Kokoro-82M failed: not served by fal-ai (404), replicate (404); mms-tt") {
		t.Errorf("the Models pane shows the first choice, not the model that ran:\n%s", models)
	}
	pc.Expanded = true
	models = plainLines(ModelLines(pc))
	for _, want := range []string{"ran espeak-ng on command", "✗ Kokoro-82M: not served by fal-ai (404), replicate (404)",
		"✗ mms-tts-eng: hf-inference failed (503): Service Unavailable", "selected hexgrad/Kokoro-82M (ranked)", "curated default"} {
		if !strings.Contains(models, want) {
			t.Errorf("expanded Models pane lacks %q:\n%s", want, models)
		}
	}
	pc.Expanded = false

	exec := plainLines(ExecLines(pc))
	for _, want := range []string{
		"Kokoro-82M: not served by fal-ai (404), replicate (404) → mms-tts-eng",
		"mms-tts-eng: hf-inference failed (503): Service Unavailable → espeak-ng",
		"ran on espeak-ng (command)",
	} {
		if strings.Count(exec, want) != 1 {
			t.Errorf("the Execution pane should say %q once:\n%s", want, exec)
		}
	}
	if strings.Contains(exec, "trying replicate") || strings.Contains(exec, "no provider could run it") || strings.Count(exec, "404") != 2 {
		t.Errorf("the Execution pane repeats the failure:\n%s", exec)
	}
	if n := len(strings.Split(exec, "\n")); n != 6 {
		t.Errorf("a two-hop fallback takes %d lines of the Execution pane at 80 columns, want 6:\n%s", n, exec)
	}
	// Narrower, each hop stays one line; the reason gives way, not the
	// models.
	pc.Width = 48
	exec = plainLines(ExecLines(pc))
	if !strings.Contains(exec, "\n   Kokoro-82M: not served by fal-… → mms-tts-eng\n") || !strings.Contains(exec, "… → espeak-ng\n") {
		t.Errorf("at 48 columns:\n%s", exec)
	}
}

// A passing state shows while it is the newest news of the task.
func TestPassingProgressIsReplaced(t *testing.T) {
	tr := NewTurnState(1, "r", nil, "m", fixedNow)
	tr.Apply(pipeline.TaskStartEvent{ID: 1, Task: "text-to-image", Model: "a/b", Endpoint: "huggingface"}, fixedNow)
	tr.Apply(pipeline.TaskProgressEvent{ID: 1, Message: "not served by fal-ai (404); trying replicate", Passing: true}, fixedNow)
	if l := tr.Tasks[0].Log; l[len(l)-1].Text != "not served by fal-ai (404); trying replicate" {
		t.Fatalf("log = %+v", l)
	}
	tr.Apply(pipeline.TaskProgressEvent{ID: 1, Message: "replicate: a/b is starting (2s so far)"}, fixedNow)
	for _, l := range tr.Tasks[0].Log {
		if strings.Contains(l.Text, "trying replicate") {
			t.Fatalf("the passing line stayed: %+v", tr.Tasks[0].Log)
		}
	}
	// At the end it stays: it is what happened last.
	tr.Apply(pipeline.TaskProgressEvent{ID: 1, Message: "not served by replicate (404); trying together", Passing: true}, fixedNow)
	tr.Apply(pipeline.TaskEndEvent{ID: 1, Task: "text-to-image", Status: pipeline.StatusOK, Model: "a/b", Endpoint: "huggingface", Provider: "together"}, fixedNow)
	var kept bool
	for _, l := range tr.Tasks[0].Log {
		kept = kept || strings.Contains(l.Text, "trying together")
	}
	if !kept {
		t.Fatalf("the last passing line should stay when the task ends: %+v", tr.Tasks[0].Log)
	}
}
