package execution

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// TestBoxFrom: a detection's best box becomes a box argument, its centre a
// point, from the Inference API's list, models_server's annotated
// {"predicted": …}, or the rendered text; no detection is an error naming
// the task.
func TestBoxFrom(t *testing.T) {
	list := `[{"score":0.5,"label":"cat","box":{"xmin":1,"ymin":2,"xmax":3,"ymax":4}},{"score":0.9,"label":"dog","box":{"xmin":10,"ymin":20,"xmax":31,"ymax":41}}]`
	run := func(data, text string) *flow.TaskRun {
		return &flow.TaskRun{Task: flow.Task{ID: 3, Task: "object-detection"}, Data: json.RawMessage(data), Text: text}
	}
	for _, tc := range []struct {
		dep  *flow.TaskRun
		m    skills.Modality
		want string
	}{
		{run(list, ""), skills.Box, "10,20,31,41"},
		{run(list, ""), skills.Point, "20.5,30.5"},
		{run(`{"generated image":"/images/a.jpg","predicted":`+list+`}`, ""), skills.Box, "10,20,31,41"},
		{run("", "1 object: cat (0.50) at [5,6,7,8]"), skills.Box, "5,6,7,8"},
	} {
		got, err := boxFrom(tc.dep, tc.m)
		if err != nil || got != tc.want {
			t.Errorf("boxFrom(%s, %s) = %q, %v; want %q", tc.dep.Data, tc.m, got, err, tc.want)
		}
	}
	if _, err := boxFrom(run(`[]`, "no objects found"), skills.Box); err == nil || !strings.Contains(err.Error(), "task 3 (object-detection) found no objects") {
		t.Errorf("no detections: %v", err)
	}
}
