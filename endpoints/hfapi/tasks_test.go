package hfapi

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/chorusai/chorus/endpoints"
)

// TestTaskTable: the table has a complete row for exactly the tasks Chorus
// sends to the Inference API, only tasks that produce media accept a file
// body, and a task without a row is unsupported, not a crash.
func TestTaskTable(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(tasks)), slices.Sorted(slices.Values(hfAllTasks)); !slices.Equal(got, want) {
		t.Errorf("table rows %v, want %v", got, want)
	}
	binary := []string{"text-to-image", "image-to-image", "image-editing", "text-to-speech", "text-to-video", "depth-estimation"}
	for task, spec := range tasks {
		if spec.build == nil || spec.read == nil {
			t.Errorf("%s: row without a builder or a reader", task)
		}
		if spec.binary != slices.Contains(binary, task) {
			t.Errorf("%s: binary = %v", task, spec.binary)
		}
		if !Supported(task) {
			t.Errorf("Supported(%q) = false", task)
		}
	}
	for _, task := range []string{"canny-control", "time-travel", ""} {
		if Supported(task) {
			t.Errorf("Supported(%q) = true", task)
		}
		if _, err := Build(endpoints.Request{Task: task, Model: "m/x", Args: map[string]string{"text": "x"}}); !errors.Is(err, endpoints.ErrUnsupported) {
			t.Errorf("Build(%q) = %v, want ErrUnsupported", task, err)
		}
		if _, err := Parse(task, nil, "application/json", []byte(`{"generated_text": "x"}`), endpoints.Spool{}); err == nil {
			t.Errorf("Parse(%q) accepted an answer", task)
		}
	}
}
