package pipeline_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
)

func (r *rig) audio() string {
	p := r.t.TempDir() + "/speech.wav"
	if err := os.WriteFile(p, fakehf.WAV(16000, 16000), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.mu.Lock()
	r.given = append(r.given, p)
	r.mu.Unlock()
	return p
}

// serveASR registers every test ASR model at the fake.
func (r *rig) serveASR() {
	for _, m := range []string{"test/asr-large", "test/asr-base", "test/asr-tiny", "test/asr-nolicence"} {
		r.hf.Model(m, "automatic-speech-recognition")
	}
}

func TestConstraintNothingQualifies(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.serveASR()
	wav := r.audio()
	// The planner extracts the constraint from the request, as HIVE does.
	r.plans = []fakeollama.Reply{{Content: `{"tasks":[{"task":"automatic-speech-recognition","id":1,"dep":[],"args":{"audio":"` + wav + `"}}],"constraints":{"licenses":["gpl-3.0"]}}`}}
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "transcribe " + wav + " with GPL models only"})
	if err != nil {
		t.Fatal(err)
	}
	m := r.model(1)
	if m.Decided != "no candidate" || m.Model != "" || !strings.Contains(m.Reason, "gpl-3.0") || len(m.Excluded) != 4 {
		t.Fatalf("model event = %+v", m)
	}
	for _, x := range m.Excluded {
		if !strings.Contains(x.Reason, "allow-list") {
			t.Fatalf("exclusion without the licence reason: %+v", x)
		}
	}
	if end := r.taskEnd(1); !end.Skipped || end.Status != pipeline.StatusError {
		t.Fatalf("task_end = %+v", end)
	}
	if starts := eventsOf[pipeline.TaskStartEvent](r); len(starts) != 0 {
		t.Fatalf("a task that never ran has a task_start event: %+v", starts)
	}
	if n := len(r.hf.Requests()); n != 0 {
		t.Fatalf("%d requests reached Hugging Face although no model qualified", n)
	}
	if !strings.Contains(rep.Answer, "no model satisfies the constraints") || !strings.Contains(rep.Answer, "license=gpl-3.0") {
		t.Fatalf("the answer does not say why nothing ran: %q", rep.Answer)
	}
	// The response prompt tells the controller, so its prose can explain too.
	var respond *api.ChatRequest
	for _, req := range r.chatRequests() {
		if stage(&req) == "respond" {
			respond = &req
		}
	}
	if respond == nil || !strings.Contains(respond.Messages[len(respond.Messages)-1].Content, "no model satisfies the constraints") {
		t.Fatal("the response stage was not told why the task did not run")
	}
}

func TestConstraintSmallestAndBest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		standing  pipeline.Constraints
		planned   string
		wantModel string
		decided   string
	}{
		{"smallest", pipeline.Constraints{Prefer: pipeline.PreferSmallest}, "", "test/asr-nolicence", "constraint: smallest"},
		{"smallest apache", pipeline.Constraints{}, `{"licenses":["apache-2.0"],"prefer":"smallest"}`, "test/asr-tiny", "constraint: smallest"},
		{"best common voice", pipeline.Constraints{}, `{"prefer":"best","benchmark":"common voice english wer"}`, "test/asr-large", "constraint: best common voice english wer"},
		{"best librispeech", pipeline.Constraints{Prefer: pipeline.PreferBest, Benchmark: "librispeech wer"}, "", "test/asr-tiny", "constraint: best librispeech wer"},
		{"downloads when free", pipeline.Constraints{}, "", "test/asr-base", "controller choice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.serveASR()
			r.pick = func(req *api.ChatRequest) fakeollama.Reply {
				return fakeollama.Reply{Content: `{"choices":[{"id":1,"model":"test/asr-base","reason":"most downloaded"}]}`}
			}
			wav := r.audio()
			cons := tt.planned
			if cons == "" {
				cons = "{}"
			}
			r.plans = []fakeollama.Reply{{Content: `{"tasks":[{"task":"automatic-speech-recognition","id":1,"dep":[],"args":{"audio":"` + wav + `"}}],"constraints":` + cons + `}`}}
			rep, err := r.run(context.Background(), pipeline.Turn{Request: "transcribe", Constraints: tt.standing})
			if err != nil {
				t.Fatal(err)
			}
			m := r.model(1)
			if m.Model != tt.wantModel || m.Decided != tt.decided {
				t.Fatalf("chose %s (%s: %s), want %s by %q", m.Model, m.Decided, m.Reason, tt.wantModel, tt.decided)
			}
			if strings.HasPrefix(tt.decided, "constraint") && r.calls("select") != 0 {
				t.Fatal("a constraint decided the model, yet the controller was asked")
			}
			if reqs := r.hf.RequestsFor(tt.wantModel); len(reqs) != 1 {
				t.Fatalf("%s got %d requests", tt.wantModel, len(reqs))
			}
			if rep.Tasks[0].Model != tt.wantModel || rep.Tasks[0].Decided != tt.decided {
				t.Fatalf("report = %+v", rep.Tasks[0])
			}
		})
	}
}

// TestReportMatchesWhatRan checks the execution record against the requests
// the fake servers actually received: every attempt in the report reached
// its endpoint, and nothing reached an endpoint that the report omits.
func TestReportMatchesWhatRan(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("a.png", 30, 20)
	r.hf.Model("test/captioner-small", "image-to-text")
	r.hf.Model("test/captioner-big", "image-to-text").Status(503, "Service Unavailable")
	r.hf.Model("test/voice", "text-to-speech")
	r.hf.Model("test/classifier", "image-classification")
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"choices":[{"id":1,"model":"test/captioner-big","reason":"bigger"}]}`}
	}
	r.planJSON(
		task(1, "image-to-text", nil, map[string]string{"image": img}),
		task(2, "text-to-speech", []int{1}, map[string]string{"text": "<resource>-1"}),
		task(3, "image-classification", nil, map[string]string{"image": img}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "x"})
	if err != nil {
		t.Fatal(err)
	}
	reports := eventsOf[pipeline.ReportEvent](r)
	if len(reports) != 1 {
		t.Fatalf("report events = %d", len(reports))
	}
	claimed := map[string]int{}
	for _, tr := range reports[0].Report.Tasks {
		for _, a := range tr.Attempts {
			claimed[a.Model]++
		}
	}
	seen := map[string]int{}
	for _, req := range r.hf.Requests() {
		seen[req.Model]++
	}
	// The 503 model is retried once by the endpoint: one attempt, two requests.
	if seen["test/captioner-big"] != 2 {
		t.Fatalf("requests = %v", seen)
	}
	seen["test/captioner-big"] = 1
	if len(seen) != len(claimed) {
		t.Fatalf("report claims %v, servers saw %v", claimed, seen)
	}
	for m, n := range seen {
		if claimed[m] != n {
			t.Fatalf("report claims %v, servers saw %v", claimed, seen)
		}
	}
	for _, tr := range rep.Tasks {
		if tr.Status != pipeline.StatusOK {
			t.Fatalf("task %d: %+v", tr.ID, tr)
		}
		if !strings.Contains(rep.Answer, "`"+tr.Model+"` on "+pipeline.Where(tr.Endpoint, tr.Provider)) || tr.Provider != "hf-inference" {
			t.Fatalf("the workflow section does not name %s: %q", tr.Model, rep.Answer)
		}
	}
	if strings.Contains(rep.Answer, "— `test/captioner-big` on") || !strings.Contains(rep.Answer, "after `test/captioner-big` failed: hf-inference failed (503): Service Unavailable") {
		t.Fatalf("the workflow misreports the failed model: %q", rep.Answer)
	}
}

func TestVisualGrounding(t *testing.T) {
	t.Parallel()
	for _, vision := range []bool{true, false} {
		name := "text-only controller"
		caps := []string{fakeollama.CapCompletion}
		if vision {
			name = "vision controller"
			caps = append(caps, fakeollama.CapVision)
		}
		t.Run(name, func(t *testing.T) {
			r := newRig(t, withControllerCaps(caps...))
			img := r.image("photo.png", 24, 24)
			r.hf.Model("test/editor", "image-editing")
			r.planJSON(task(1, "image-editing", nil, map[string]string{"image": img, "text": "make it autumn"}))
			if _, err := r.run(context.Background(), pipeline.Turn{Request: "make this photo look like autumn", Attachments: []string{img}}); err != nil {
				t.Fatal(err)
			}
			edited := r.taskEnd(1).Files
			if len(edited) != 1 {
				t.Fatalf("edit produced %v", edited)
			}
			attached, _ := os.ReadFile(img)
			made, _ := os.ReadFile(edited[0])
			for _, req := range r.chatRequests() {
				var images []api.ImageData
				for _, m := range req.Messages {
					images = append(images, m.Images...)
				}
				st := stage(&req)
				if !vision {
					if len(images) != 0 {
						t.Fatalf("%s request sent %d images to a text-only controller", st, len(images))
					}
					continue
				}
				has := func(b []byte) bool {
					return slices.ContainsFunc(images, func(d api.ImageData) bool { return string(d) == string(b) })
				}
				switch st {
				case "plan":
					if !has(attached) {
						t.Fatal("planning did not show the controller the attached image")
					}
				case "respond":
					if !has(attached) || !has(made) {
						t.Fatal("the response stage did not show the controller the attached and the generated image")
					}
				}
			}
		})
	}
}

func TestComposedSkillsEditCaptionPost(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("street.png", 40, 30)
	r.hf.Model("test/editor", "image-editing")
	r.hf.Model("test/captioner-small", "image-to-text")
	r.hf.Model("test/captioner-big", "image-to-text")
	r.pick = func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: `{"choices":[{"id":2,"model":"test/captioner-small","reason":"fast"}]}`}
	}
	r.planJSON(
		task(1, "image-editing", nil, map[string]string{"image": img, "text": "make it look like autumn"}),
		task(2, "image-to-text", []int{1}, map[string]string{"image": "<resource>-1"}),
		task(3, "social-media-post", []int{2}, map[string]string{"text": "<resource>-2"}),
	)
	rep, err := r.run(context.Background(), pipeline.Turn{Request: "make this photo look like autumn and write an Instagram post about it", Attachments: []string{img}})
	if err != nil {
		t.Fatal(err)
	}
	edit := r.hf.RequestsFor("test/editor")
	if len(edit) != 1 || !strings.Contains(string(edit[0].Body), "make it look like autumn") {
		t.Fatalf("editor request = %v", edit)
	}
	editedFile := r.taskEnd(1).Files[0]
	edited, _ := os.ReadFile(editedFile)
	capReq := r.hf.RequestsFor("test/captioner-small")
	if len(capReq) != 1 || string(capReq[0].Body) != string(edited) {
		t.Fatal("the captioner did not receive the edited image")
	}
	caption := r.taskEnd(2).Result
	var post *api.ChatRequest
	for _, req := range r.chatRequests() {
		if stage(&req) == "task" {
			post = &req
		}
	}
	if post == nil || !strings.Contains(post.Messages[len(post.Messages)-1].Content, caption) {
		t.Fatal("the post was not written from the caption")
	}
	if e := r.taskEnd(3); e.Status != pipeline.StatusOK || e.Endpoint != pipeline.EndpointController {
		t.Fatalf("task 3 = %+v", e)
	}
	if !strings.Contains(rep.Answer, editedFile) {
		t.Fatalf("answer lacks the edited image path: %q", rep.Answer)
	}
}

func TestVisualPromptReachesSkill(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	img := r.image("dogs.png", 200, 100)
	r.hf.Model("test/sam", "mask-generation")
	r.planJSON(task(1, "mask-generation", nil, map[string]string{"image": img, "point": "[120, 80]"}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "segment the dog at (120, 80) in " + img}); err != nil {
		t.Fatal(err)
	}
	reqs := r.hf.RequestsFor("test/sam")
	if len(reqs) != 1 {
		t.Fatalf("requests = %d", len(reqs))
	}
	var body struct {
		Inputs     string         `json:"inputs"`
		Parameters map[string]any `json:"parameters"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	pts, _ := json.Marshal(body.Parameters["input_points"])
	if string(pts) != "[[[120,80]]]" {
		t.Fatalf("input_points = %s", pts)
	}
	if _, err := base64.StdEncoding.DecodeString(body.Inputs); err != nil {
		t.Fatal("the image was not sent base64-encoded")
	}
	if end := r.taskEnd(1); end.Status != pipeline.StatusOK || len(end.Files) == 0 {
		t.Fatalf("task_end = %+v (a mask overlay image is expected)", end)
	}
}
