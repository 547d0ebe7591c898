package planning

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chorusai/chorus/pipeline/flow"
)

func TestValidateRepairs(t *testing.T) {
	e := testPlanner(t)
	dir := t.TempDir()
	img := touch(t, dir, "cat.png")
	wav := filepath.Join(dir, "voice.wav")
	if err := os.WriteFile(wav, []byte("RIFF0000WAVE"), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("near-miss task names are mapped", func(t *testing.T) {
		p := e.validate([]flow.Task{{ID: 1, Task: "image-cls", Args: map[string]string{"image": img}}}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 1 || p.Tasks[0].Task != "image-classification" || !hasNote(p, `read "image-cls" as image-classification`) {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("unknown task dropped with its dependents", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "teleportation", Args: map[string]string{"text": "x"}},
			{ID: 2, Task: "text-to-speech", Dep: []int{1}, Args: map[string]string{"text": "<resource>-1"}},
			{ID: 3, Task: "image-to-text", Args: map[string]string{"image": img}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if !slices.Equal(ids(p), []int{3}) || !hasNote(p, `"teleportation" is not a known task`) || !hasNote(p, "depends on task 1, which was dropped") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("resource reference adds the missing dep", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "image-to-text", Args: map[string]string{"image": img}},
			{ID: 2, Task: "text-to-speech", Args: map[string]string{"text": "<resource>-1"}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		// The schema has a task leave out the dep its arguments state:
		// adding it is no repair, so no note says so.
		if len(p.Tasks) != 2 || !slices.Equal(p.Tasks[1].Dep, []int{1}) || len(p.Notes) != 0 {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("deps on missing ids are removed, later ids reordered", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "text-to-speech", Dep: []int{2, 9}, Args: map[string]string{"text": "<resource>-2"}},
			{ID: 2, Task: "image-to-text", Args: map[string]string{"image": img}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if !slices.Equal(ids(p), []int{2, 1}) || !hasNote(p, "task 9, which does not exist") || !hasNote(p, "reordered") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("ordering-only cycle is broken", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "image-to-text", Dep: []int{2}, Args: map[string]string{"image": img}},
			{ID: 2, Task: "text-to-speech", Dep: []int{1}, Args: map[string]string{"text": "<resource>-1"}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if !slices.Equal(ids(p), []int{1, 2}) || len(p.Tasks[0].Dep) != 0 || !hasNote(p, "break a dependency cycle") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("data cycle is dropped", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "image-to-text", Dep: []int{2}, Args: map[string]string{"image": "<resource>-2"}},
			{ID: 2, Task: "text-to-image", Dep: []int{1}, Args: map[string]string{"text": "<resource>-1"}},
			{ID: 3, Task: "image-to-text", Args: map[string]string{"image": img}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if !slices.Equal(ids(p), []int{3}) || !hasNote(p, "cycle") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("wrong modality from a dependency", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "text-generation", Args: map[string]string{"text": "a poem"}},
			{ID: 2, Task: "image-to-text", Dep: []int{1}, Args: map[string]string{"image": "<resource>-1"}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if !slices.Equal(ids(p), []int{1}) || !hasNote(p, "needs an image, but task 1 (text-generation) produces text") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("wrong modality of a file", func(t *testing.T) {
		p := e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{"image": wav}}}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 0 || !hasNote(p, "is audio, but argument image needs an image") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("missing file dropped", func(t *testing.T) {
		p := e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "/nope/missing.jpg"}}}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 0 || !hasNote(p, "file /nope/missing.jpg does not exist") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("bare file name resolved through attachments", func(t *testing.T) {
		p := e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "cat.png"}}}, flow.Constraints{}, turn{Attachments: []string{img}}, nil)
		if len(p.Tasks) != 1 || p.Tasks[0].Args["image"] != img {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("missing image filled from the chat log", func(t *testing.T) {
		// The only image of the conversation: the schema lets a plan
		// leave it out, so filling it in is no repair. (The chat's user
		// gave it in an earlier turn: a chat log read from a session
		// grants nothing by itself.)
		h := []flow.Message{{Role: "assistant", Content: "here is your cat", Resources: []string{img}}}
		gave := []given{{Request: "a cat", Attachments: []string{img}}}
		p := e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{}}}, flow.Constraints{}, turn{History: h, Earlier: gave}, nil)
		if len(p.Tasks) != 1 || p.Tasks[0].Args["image"] != img || len(p.Notes) != 0 {
			t.Fatalf("plan = %+v", p)
		}
		// Among two, the newest is taken, and a note says which.
		older := touch(t, t.TempDir(), "older.png")
		h = append([]flow.Message{{Role: "assistant", Content: "an older one", Resources: []string{older}}}, h...)
		gave = append(gave, given{Attachments: []string{older}})
		p = e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{}}}, flow.Constraints{}, turn{History: h, Earlier: gave}, nil)
		if len(p.Tasks) != 1 || p.Tasks[0].Args["image"] != img || !hasNote(p, "from the chat log") {
			t.Fatalf("plan = %+v", p)
		}
		// A chat log read from a session, nothing given in this chat:
		// its image is not taken.
		p = e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{}}}, flow.Constraints{}, turn{History: h}, nil)
		if len(p.Tasks) != 0 {
			t.Fatalf("a session's image filled the argument: %+v", p)
		}
	})
	t.Run("argument aliases and duplicate ids", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "visual-question-answering", Args: map[string]string{"img_url": img, "question": "what colour?"}},
			{ID: 1, Task: "image-to-text", Args: map[string]string{"image": img}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if !slices.Equal(ids(p), []int{1, 2}) || p.Tasks[0].Args["image"] != img || p.Tasks[0].Args["text"] != "what colour?" {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("visual prompt normalised", func(t *testing.T) {
		p := e.validate([]flow.Task{{ID: 1, Task: "mask-generation", Args: map[string]string{"image": img, "point": "(120, 80)"}}}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 1 || p.Tasks[0].Args["point"] != "120,80" {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("visual prompt from a detection", func(t *testing.T) {
		p := e.validate([]flow.Task{
			{ID: 1, Task: "zero-shot-object-detection", Args: map[string]string{"image": img, "labels": "dog"}},
			{ID: 2, Task: "mask-generation", Dep: []int{1}, Args: map[string]string{"image": img, "box": "<resource>-1"}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 2 || p.Tasks[1].Args["box"] != "<resource>-1" {
			t.Fatalf("plan = %+v", p)
		}
		p = e.validate([]flow.Task{
			{ID: 1, Task: "image-to-text", Args: map[string]string{"image": img}},
			{ID: 2, Task: "mask-generation", Dep: []int{1}, Args: map[string]string{"image": img, "point": "<resource>-1"}},
		}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 1 || !hasNote(p, "takes a box from object-detection or zero-shot-object-detection, but task 1 is image-to-text") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("plan capped", func(t *testing.T) {
		var tasks []flow.Task
		for i := 1; i <= 10; i++ {
			tasks = append(tasks, flow.Task{ID: i, Task: "image-to-text", Args: map[string]string{"image": img}})
		}
		p := e.validate(tasks, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 6 || !hasNote(p, "kept the first 6") {
			t.Fatalf("plan = %+v", p)
		}
	})
	t.Run("self reference dropped", func(t *testing.T) {
		p := e.validate([]flow.Task{{ID: 1, Task: "image-to-text", Args: map[string]string{"image": "<resource>-1"}}}, flow.Constraints{}, typedTurn(img, wav), nil)
		if len(p.Tasks) != 0 || !hasNote(p, "refers to its own output") {
			t.Fatalf("plan = %+v", p)
		}
	})
}

// TestValidateNeverOpensPipes: a plan naming a FIFO, a directory or a
// missing attachment is repaired or refused without blocking — opening a
// FIFO for reading waits for a writer forever.
func TestValidateNeverOpensPipes(t *testing.T) {
	e := testPlanner(t)
	w := newFuzzWorld(t)
	done := make(chan flow.Plan, 1)
	go func() {
		if m := flow.ModalityOf(w.fifoBare); m != "" {
			t.Errorf("ModalityOf(FIFO) = %q, want \"\"", m)
		}
		done <- e.validate([]flow.Task{
			{ID: 1, Task: "image-to-text", Args: map[string]string{"image": w.fifoBare}},
			{ID: 2, Task: "image-classification", Args: map[string]string{"image": w.fifo}},
			{ID: 3, Task: "automatic-speech-recognition", Args: map[string]string{"audio": w.dir}},
			{ID: 4, Task: "image-to-text", Args: map[string]string{}},
		}, flow.Constraints{}, turn{Attachments: []string{w.img, w.missing}}, nil)
	}()
	var p flow.Plan
	select {
	case p = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("validate blocked on a FIFO")
	}
	if !slices.Equal(ids(p), []int{4}) || p.Tasks[0].Args["image"] != w.img {
		t.Fatalf("want only task 4, filled with the attachment that exists (%s): %+v\nnotes %q", w.img, p.Tasks, p.Notes)
	}
	if !hasNote(p, "pipe is not a regular file") || !hasNote(p, "pipe.png is not a regular file") || !hasNote(p, w.dir+" is not a regular file") {
		t.Fatalf("notes do not say why the pipes and the directory were refused: %q", p.Notes)
	}
}
