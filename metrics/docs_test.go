package metrics_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/metrics"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sshd"
)

// docMetric is a row of docs/deploy.md's table of the metrics.
type docMetric struct {
	typ    string
	labels []string
	values map[string][]string // a label's values where the row lists them
}

// deployDocs reads docs/deploy.md and its table of the metrics, by name.
func deployDocs(t *testing.T) (string, map[string]docMetric) {
	t.Helper()
	b, err := os.ReadFile("../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "### The metrics")
	if i < 0 {
		t.Fatal(`docs/deploy.md has no "### The metrics" section`)
	}
	tick := regexp.MustCompile("`([a-z_]+)`")
	names := regexp.MustCompile("^ *(?:`[a-z_]+`(?:, )?)+")
	listed := regexp.MustCompile("`([a-z_]+)`: ([a-z_]+(?:, [a-z_]+)+)(?:;|$)")
	rows := map[string]docMetric{}
	for _, line := range strings.Split(text[i:], "\n") {
		if !strings.HasPrefix(line, "| `chorus_") {
			continue
		}
		cols := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
		if len(cols) != 4 {
			t.Fatalf("a row of the metrics table without 4 columns: %s", line)
		}
		row := docMetric{typ: strings.TrimSpace(cols[1]), values: map[string][]string{}}
		for _, part := range strings.Split(cols[2], ";") {
			// The label names open the part: "`kind`: …", "`kind`, `provider`".
			for _, m := range tick.FindAllStringSubmatch(names.FindString(part), -1) {
				row.labels = append(row.labels, m[1])
			}
			if m := listed.FindStringSubmatch(strings.TrimSpace(part)); m != nil {
				row.values[m[1]] = strings.Split(m[2], ", ")
			}
		}
		slices.Sort(row.labels)
		for _, m := range tick.FindAllStringSubmatch(cols[0], -1) { // `a`, `b`: two metrics, one row
			rows[m[1]] = row
		}
	}
	return text, rows
}

// TestDeployDocsListTheMetrics: docs/deploy.md's table of the metrics
// is the metrics a server serves — every chorus_ family and no other,
// each with its type and label names, and the values it lists for
// outcome, stage, kind and reason are those the code gives; every
// chorus_ series its panels and alerts query exists.
func TestDeployDocsListTheMetrics(t *testing.T) {
	q := &queueSource{st: controller.QueueStats{Slots: 1, Waits: make([]uint64, len(controller.WaitBounds()))}}
	m := metrics.New(metrics.Options{Queue: q, RefusalReasons: sshd.RefusalReasons()})
	turn := m.TurnStarted()
	turn.Event(pipeline.TaskEndEvent{Status: pipeline.StatusOK, Attempts: []pipeline.Attempt{{Endpoint: "openai", ElapsedMS: 10}}})
	turn.Ended(conversation.Result{Ran: true, Report: &pipeline.Report{Calls: []pipeline.ControllerCall{{Stage: pipeline.StagePlanning}}}})
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	code := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		if strings.HasPrefix(f.GetName(), "chorus_") {
			code[f.GetName()] = f
		}
	}
	text, doc := deployDocs(t)
	for name, f := range code {
		row, ok := doc[name]
		if !ok {
			t.Errorf("%s is served but not in docs/deploy.md's table", name)
			continue
		}
		if typ := strings.ToLower(f.GetType().String()); row.typ != typ {
			t.Errorf("%s: the docs say %s, it is a %s", name, row.typ, typ)
		}
		var labels []string
		for _, l := range f.GetMetric()[0].GetLabel() {
			labels = append(labels, l.GetName())
		}
		slices.Sort(labels)
		if !slices.Equal(row.labels, labels) {
			t.Errorf("%s: the docs give the labels %v, it has %v", name, row.labels, labels)
		}
	}
	for name := range doc {
		if code[name] == nil {
			t.Errorf("docs/deploy.md lists %s, which is not served", name)
		}
	}
	stages := []string{string(pipeline.StagePlanning), string(pipeline.StageSelection), string(pipeline.StageExecution),
		string(pipeline.StageRevision), string(pipeline.StageResponse)}
	for _, c := range []struct {
		metric, label string
		want          []string
	}{
		{"chorus_turns_total", "outcome", []string{metrics.OK, metrics.Failed, metrics.Cancelled}},
		{"chorus_expert_calls_total", "outcome", []string{metrics.OK, metrics.Failed, metrics.Cancelled}},
		{"chorus_controller_tokens_total", "stage", stages},
		{"chorus_controller_tokens_total", "kind", []string{"prompt", "prefilled", "decoded"}},
		{"chorus_ssh_refused_total", "reason", sshd.RefusalReasons()},
	} {
		if got := doc[c.metric].values[c.label]; !slices.Equal(got, c.want) {
			t.Errorf("%s's %s: the docs list %v, the code gives %v", c.metric, c.label, got, c.want)
		}
	}
	for _, used := range regexp.MustCompile(`chorus_[a-z_]+`).FindAllString(text, -1) {
		base := used
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			if f := code[strings.TrimSuffix(used, suffix)]; f != nil && f.GetType() == dto.MetricType_HISTOGRAM {
				base = strings.TrimSuffix(used, suffix)
			}
		}
		if code[base] == nil && !strings.HasPrefix(used, "chorus_load") {
			t.Errorf("docs/deploy.md queries %s, which is not served", used)
		}
	}
}
