package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

// TestTurnIsLogged: a turn leaves records of its stages, choices, failed
// endpoints and outcome at the right levels, and neither the request nor
// results outside debug level.
func TestTurnIsLogged(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r := newRig(t, withOptions(pipeline.Options{ControllerTasks: true, Logger: log}))
	img := r.image("a.png", 16, 16)
	r.hf.Model("test/captioner-big", "image-to-text").Status(500, "CUDA out of memory")
	r.hf.Model("test/captioner-small", "image-to-text").Status(500, "CUDA out of memory")
	r.planJSON(task(1, "image-to-text", nil, map[string]string{"image": img}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "caption the private photo"}); err != nil {
		t.Fatal(err)
	}
	type record struct {
		Level, Msg, Stage, Task, Endpoint, Err string
	}
	var recs []record
	for line := range strings.Lines(buf.String()) {
		var rec record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	has := func(level, msg string, ok func(record) bool) bool {
		for _, rec := range recs {
			if rec.Level == level && rec.Msg == msg && (ok == nil || ok(rec)) {
				return true
			}
		}
		return false
	}
	for _, want := range []struct {
		level, msg string
		ok         func(record) bool
	}{
		{"INFO", "turn started", nil},
		{"INFO", "stage", func(r record) bool { return r.Stage == "planning" }},
		{"INFO", "stage", func(r record) bool { return r.Stage == "response" }},
		{"INFO", "plan", nil},
		{"INFO", "model chosen", func(r record) bool { return r.Task == "image-to-text" }},
		{"WARN", "endpoint failed", func(r record) bool {
			return r.Endpoint == "huggingface" && strings.Contains(r.Err, "CUDA out of memory")
		}},
		{"WARN", "task finished", func(r record) bool { return strings.Contains(r.Err, "CUDA out of memory") }},
		{"INFO", "answer", nil},
		{"INFO", "turn finished", nil},
	} {
		if !has(want.level, want.msg, want.ok) {
			t.Errorf("no %s %q record in\n%s", want.level, want.msg, buf.String())
		}
	}
	if has("DEBUG", "turn request", nil) || strings.Contains(buf.String(), "private photo") {
		t.Errorf("the request was logged at info level:\n%s", buf.String())
	}
}
