package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCacheRoundTrip(t *testing.T) {
	c := Cache{Dir: filepath.Join(t.TempDir(), "nested", "hub")}
	fetched := time.Date(2026, 2, 3, 4, 5, 6, 789, time.FixedZone("CET", 3600))
	in := []Model{
		{ID: "google/vit-base-patch16-224", Downloads: 3, Likes: 2, License: "apache-2.0", Params: 86567656, SizeBytes: 346270624,
			Endpoints:  []EndpointKind{EndpointLocal, EndpointHuggingFace},
			Benchmarks: []Benchmark{{Dataset: "imagenet-1k", Metric: "top1", Value: 81.1}}},
		{ID: "someuser/no-licence", Endpoints: []EndpointKind{EndpointLocal}},
	}
	if err := c.Save("image-classification", in, fetched); err != nil {
		t.Fatal(err)
	}
	if in[0].Fetched != (time.Time{}) {
		t.Error("Save modified the caller's models")
	}
	out, at, err := c.Load("image-classification")
	if err != nil {
		t.Fatal(err)
	}
	wantAt := time.Date(2026, 2, 3, 3, 5, 6, 0, time.UTC)
	if !at.Equal(wantAt) {
		t.Errorf("fetched %v, want %v", at, wantAt)
	}
	if len(out) != 2 {
		t.Fatalf("loaded %d models", len(out))
	}
	for i := range in {
		want := in[i]
		want.Fetched = wantAt
		got := out[i]
		if got.ID != want.ID || got.License != want.License || got.Params != want.Params || got.SizeBytes != want.SizeBytes ||
			!slices.Equal(got.Endpoints, want.Endpoints) || !slices.Equal(got.Benchmarks, want.Benchmarks) || !got.Fetched.Equal(want.Fetched) {
			t.Errorf("model %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if got, ok := c.Fetched("image-classification"); !ok || !got.Equal(wantAt) {
		t.Errorf("Fetched = %v %v", got, ok)
	}
	entries, _ := os.ReadDir(c.Dir)
	if len(entries) != 1 || entries[0].Name() != "image-classification.json" {
		t.Errorf("cache dir holds %v; want only the task file, no temporaries", entries)
	}
	if tasks, err := c.Tasks(); err != nil || !slices.Equal(tasks, []string{"image-classification"}) {
		t.Errorf("Tasks = %v %v", tasks, err)
	}
}

func TestCacheRefusesBadInput(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	now := time.Now()
	good := []Model{{ID: "a/b", Endpoints: []EndpointKind{EndpointLocal}}}
	if err := c.Save("object-detection", good, now); err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"", "../etc/passwd", "a/b", "Object-Detection", ".hidden", "x..y"} {
		if err := c.Save(task, good, now); err == nil {
			t.Errorf("Save(%q) accepted a task name that is not a plain file name", task)
		}
	}
	if err := c.Save("object-detection", nil, now); err == nil || !strings.Contains(err.Error(), "previous listing is kept") {
		t.Errorf("Save with no models: %v", err)
	}
	if err := c.Save("object-detection", []Model{{Endpoints: []EndpointKind{EndpointLocal}}}, now); err == nil {
		t.Error("Save accepted a model without an id")
	}
	if ms, _, err := c.Load("object-detection"); err != nil || len(ms) != 1 || ms[0].ID != "a/b" {
		t.Errorf("a refused Save changed the stored listing: %v %v", ms, err)
	}
	if err := (Cache{}).Save("object-detection", good, now); err == nil {
		t.Error("Save without a directory")
	}
	if _, _, err := c.Load("depth-estimation"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a never-synced task: %v", err)
	}
	if _, ok := c.Fetched("depth-estimation"); ok {
		t.Error("Fetched reports a never-synced task")
	}
	if tasks, err := (Cache{Dir: filepath.Join(c.Dir, "missing")}).Tasks(); err != nil || tasks != nil {
		t.Errorf("Tasks of a missing directory: %v %v", tasks, err)
	}
}

// Readers never see a half-written file while a sync rewrites it.
func TestCacheSaveIsAtomic(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	listing := func(n int) []Model {
		ms := make([]Model, n)
		for i := range ms {
			ms[i] = Model{ID: fmt.Sprintf("org/model-%d", i), Description: strings.Repeat("x", 2000), Endpoints: []EndpointKind{EndpointLocal}}
		}
		return ms
	}
	if err := c.Save("text-classification", listing(1), time.Now()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				if err := c.Save("text-classification", listing(1+(w*15+i)%40), time.Now()); err != nil {
					errs <- err
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				ms, _, err := c.Load("text-classification")
				if err != nil {
					errs <- fmt.Errorf("reader saw a broken file: %w", err)
					return
				}
				if len(ms) == 0 || ms[len(ms)-1].ID != fmt.Sprintf("org/model-%d", len(ms)-1) {
					errs <- fmt.Errorf("reader saw a mixed listing of %d models", len(ms))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries, _ := os.ReadDir(c.Dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestMergeSynced(t *testing.T) {
	fetched := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	current := []Model{
		{ID: "org/a", Description: "ours: A", License: "mit", Params: 100, Endpoints: []EndpointKind{EndpointLocal, EndpointHuggingFace},
			Benchmarks: []Benchmark{{Dataset: "d", Metric: "wer", Value: 5, LowerIsBetter: true}}},
		{ID: "org/b", Description: "ours: B", Endpoints: []EndpointKind{EndpointHuggingFace}},
		{ID: "tesseract", Description: "ours: C", Endpoints: []EndpointKind{EndpointCommand}, Command: []string{"tesseract"}},
		{ID: "chorus/d", Endpoints: []EndpointKind{EndpointBuiltin}},
		{ID: "org/gone", Description: "served only by the cloud, no longer listed", Endpoints: []EndpointKind{EndpointHuggingFace}},
	}
	snapshot := fmt.Sprintf("%+v", current)
	synced := []Model{
		{ID: "ORG/B", Description: "Hub text", Downloads: 500, License: "apache-2.0", Params: 7, Endpoints: []EndpointKind{EndpointHuggingFace}},
		{ID: "org/new", Description: "Hub text for new", Downloads: 400, Endpoints: []EndpointKind{EndpointLocal, EndpointHuggingFace}},
		{ID: "org/a", Downloads: 300, Endpoints: []EndpointKind{EndpointLocal}}, // hf-inference stopped serving it
		{ID: "", Endpoints: []EndpointKind{EndpointLocal}},
		{ID: "org/new", Downloads: 1, Endpoints: []EndpointKind{EndpointLocal}},
	}
	got := MergeSynced(current, synced, fetched)
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if want := []string{"org/b", "org/new", "org/a", "tesseract", "chorus/d"}; !slices.Equal(ids, want) {
		t.Fatalf("ids %v, want %v (Hub order first, then kept local experts; cloud-only models the Hub dropped go)", ids, want)
	}
	b, n, a := got[0], got[1], got[2]
	if b.Description != "ours: B" || b.Downloads != 500 || b.License != "apache-2.0" || b.Params != 7 || !b.Fetched.Equal(fetched) {
		t.Errorf("org/b keeps our description and takes the Hub's facts: %+v", b)
	}
	if n.Description != "Hub text for new" || !slices.Equal(n.Endpoints, []EndpointKind{EndpointHuggingFace, EndpointLocal}) {
		t.Errorf("org/new: %+v", n)
	}
	if a.ServedBy(EndpointHuggingFace) || !a.ServedBy(EndpointLocal) {
		t.Errorf("org/a endpoints %v: the Hub decides huggingface", a.Endpoints)
	}
	if a.License != "mit" || a.Params != 100 || len(a.Benchmarks) != 1 || a.Downloads != 300 {
		t.Errorf("org/a keeps the facts the Hub lacks: %+v", a)
	}
	if got[3].Command[0] != "tesseract" || !got[3].ServedBy(EndpointCommand) {
		t.Errorf("command model lost: %+v", got[3])
	}
	got[3].Command[0] = "changed"
	got[2].Benchmarks[0].Value = 99
	if fmt.Sprintf("%+v", current) != snapshot {
		t.Error("MergeSynced shares or changed the catalog's slices")
	}
}

func TestOverlay(t *testing.T) {
	f := newFakeHub(t)
	cache := Cache{Dir: t.TempDir()}
	cat := embeddedCatalog(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, r := range Sync(context.Background(), f.hub(), cache, cat, []string{"image-classification", "automatic-speech-recognition"}, func() time.Time { return now }) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	// A synced listing for a task the catalog no longer has is ignored.
	if err := cache.Save("retired-task", []Model{{ID: "x/y", Endpoints: []EndpointKind{EndpointLocal}}}, now); err != nil {
		t.Fatal(err)
	}

	fresh := embeddedCatalog(t)
	before, _ := fresh.Skill("image-classification")
	applied, err := fresh.Overlay(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(applied) != 2 || !applied["image-classification"].Equal(now) || !applied["automatic-speech-recognition"].Equal(now) {
		t.Errorf("applied = %v", applied)
	}
	ic, _ := fresh.Skill("image-classification")
	if ic == before {
		t.Error("Overlay changed the skill in place instead of replacing it")
	}
	if ic.Models[0].ID != "google/vit-base-patch16-224" || ic.Models[0].Downloads != 3120457 {
		t.Errorf("first model %+v, want the Hub's top model with the Hub's downloads", ic.Models[0])
	}
	if !strings.HasPrefix(ic.Models[0].Description, "Vision Transformer") {
		t.Errorf("our description was replaced: %q", ic.Models[0].Description)
	}
	if m, ok := ic.Model("timm/mobilenetv3_large_100.ra_in1k"); !ok || !m.Fetched.Equal(now) {
		t.Errorf("new Hub model missing or unstamped: %+v", m)
	}
	for _, id := range []string{"google/efficientnet-b0", "nateraw/vit-age-classifier"} {
		if _, ok := ic.Model(id); !ok {
			t.Errorf("local expert %s was lost by the sync", id)
		}
	}
	if _, ok := fresh.Skill("retired-task"); ok {
		t.Error("a cached task the catalog lacks was added")
	}
	if s, _, ok := fresh.Resolve("asr"); !ok || s.Models[0].ID != "openai/whisper-small" {
		t.Error("the overlaid skill is not what Resolve returns")
	}
	tts, _ := fresh.Skill("text-to-speech")
	if orig, _ := cat.Skill("text-to-speech"); len(tts.Models) != len(orig.Models) {
		t.Error("a task without a synced listing changed")
	}
}

func TestOverlayReportsDamageAndKeepsGoing(t *testing.T) {
	cache := Cache{Dir: t.TempDir()}
	now := time.Now()
	if err := cache.Save("object-detection", []Model{{ID: "facebook/detr-resnet-50", Downloads: 42, Endpoints: []EndpointKind{EndpointHuggingFace}}}, now); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache.Dir, "depth-estimation.json"), []byte(`{"version": 1, "task": "depth-est`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache.Dir, "translation.json"), []byte(`{"version": 99, "task": "translation", "models": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache.Dir, "summarization.json"), []byte(`{"version": 1, "task": "summarization", "fetched": "2026-01-01T00:00:00Z", "models": [{"id": "x/y", "endpoints": ["warp-drive"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cache.Dir, "image-to-text.json"), []byte(`{"version": 1, "task": "image-to-text", "models": [{"id": "x/y", "endpoints": ["local"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cat := embeddedCatalog(t)
	applied, err := cat.Overlay(cache)
	if _, ok := applied["object-detection"]; !ok || len(applied) != 1 {
		t.Errorf("applied %v, want only object-detection", applied)
	}
	if err == nil {
		t.Fatal("damaged files were not reported")
	}
	for _, w := range []string{"depth-estimation.json is damaged", "models sync depth-estimation", "format 99", "models sync translation", "summarization", "image-to-text.json has no fetch time"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	od, _ := cat.Skill("object-detection")
	if m, _ := od.Model("facebook/detr-resnet-50"); m.Downloads != 42 || !strings.HasPrefix(m.Description, "DETR") || !m.ServedBy(EndpointLocal) {
		t.Errorf("detr after overlay: %+v", m)
	}
	for _, task := range []string{"depth-estimation", "translation", "summarization", "image-to-text"} {
		s, _ := cat.Skill(task)
		if !strings.HasPrefix(s.Source, "embedded:") || len(s.Models) < 2 {
			t.Errorf("%s lost its embedded models", task)
		}
	}
	if applied, err := cat.Overlay(Cache{}); err != nil || len(applied) != 0 {
		t.Errorf("empty cache: %v %v", applied, err)
	}
}
