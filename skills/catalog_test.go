package skills

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// huggingGPTTasks are the task types of HuggingGPT (paper Table 11 and the
// JARVIS code).
var huggingGPTTasks = []string{
	"token-classification", "text-classification", "text2text-generation", "summarization", "translation",
	"question-answering", "conversational", "text-generation", "sentence-similarity", "tabular-classification",
	"image-to-text", "text-to-image", "visual-question-answering", "document-question-answering",
	"image-segmentation", "image-classification", "image-to-image", "object-detection", "depth-estimation",
	"text-to-speech", "automatic-speech-recognition", "audio-to-audio", "audio-classification",
	"text-to-video", "video-classification",
}

// controlNets are HuggingGPT's ControlNet families. Normal and seg
// annotators, and the normal ControlNet, are not in the catalog: no
// serving stack Chorus speaks to runs them (models_server.py loads none);
// docs/skills-extra has their skill files for a server that adds them.
var controlNets = []string{"canny", "hed", "mlsd", "openpose", "depth", "scribble"}

var llavaPlusSkills = []string{
	"zero-shot-object-detection", "mask-generation", "image-editing", "ocr", "zero-shot-image-classification",
	"social-media-post", "draw-boxes", "mask-overlay", "image-resize", "image-convert", "image-crop",
	"video-to-audio", "retrieval",
}

// singleModel lists the skills that honestly have one model: Go built-ins,
// a local program, and ControlNet annotators only a JARVIS-style local
// server provides.
var singleModel = map[string]bool{
	"draw-boxes": true, "mask-overlay": true, "image-resize": true, "image-convert": true, "image-crop": true,
	"video-to-audio": true,
	"hed-control":    true, "mlsd-control": true, "openpose-control": true, "scribble-control": true,
}

func embeddedCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := Embedded()
	if err != nil {
		t.Fatalf("Embedded: %v", err)
	}
	return c
}

func TestEmbeddedCatalogCoversEveryTask(t *testing.T) {
	c := embeddedCatalog(t)
	want := slices.Clone(huggingGPTTasks)
	for _, cn := range controlNets {
		want = append(want, cn+"-control", cn+"-text-to-image")
	}
	want = append(want, "seg-text-to-image") // models_server loads sd-controlnet-seg
	want = append(want, llavaPlusSkills...)
	for _, name := range want {
		s, ok := c.Skill(name)
		if !ok {
			t.Errorf("catalog has no skill %q", name)
			continue
		}
		if !strings.HasPrefix(s.Source, "embedded:") || !strings.HasSuffix(s.Source, name+".yaml") {
			t.Errorf("%s: source %q, want embedded:%s.yaml (one file per task, named for it)", name, s.Source, name)
		}
	}
	if len(c.Names()) != len(want) {
		t.Errorf("catalog has %d skills, want %d: %v", len(c.Names()), len(want), c.Names())
	}
}

func TestEveryCatalogFileParsesStrictly(t *testing.T) {
	files, err := fs.Glob(embedded, "catalog/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no embedded catalog files: %v", err)
	}
	for _, f := range files {
		data, err := fs.ReadFile(embedded, f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if s.Name+".yaml" != filepath.Base(f) {
			t.Errorf("%s declares skill %q; the file must be named for its skill", f, s.Name)
		}
	}
}

func TestCatalogModelsAreUsable(t *testing.T) {
	c := embeddedCatalog(t)
	for _, s := range c.All() {
		if len(s.Models) < 2 && !singleModel[s.Name] {
			t.Errorf("%s lists %d model(s); want at least two candidates", s.Name, len(s.Models))
		}
		if len(s.Models) == 0 {
			t.Errorf("%s lists no model", s.Name)
		}
		if len(strings.Fields(s.Description)) < 12 {
			t.Errorf("%s: description %q is too thin to tell the planner when to use it", s.Name, s.Description)
		}
		if !slices.Contains([]string{"nlp", "cv", "audio", "video", "multimodal"}, s.Domain) {
			t.Errorf("%s: domain %q", s.Name, s.Domain)
		}
		if len(s.Examples) == 0 {
			t.Errorf("%s has no examples for the planner", s.Name)
		}
		ids := map[string]bool{}
		for _, m := range s.Models {
			key := strings.ToLower(m.ID)
			if ids[key] {
				t.Errorf("%s lists %s twice", s.Name, m.ID)
			}
			ids[key] = true
			if m.Description == "" {
				t.Errorf("%s/%s has no description", s.Name, m.ID)
			}
			for _, k := range m.Endpoints {
				if !KnownEndpoint(k) {
					t.Errorf("%s/%s: unknown endpoint kind %q", s.Name, m.ID, k)
				}
			}
			if m.ServedBy(EndpointCommand) != (len(m.Command) > 0) {
				t.Errorf("%s/%s: command %v with endpoints %v; command models need both", s.Name, m.ID, m.Command, m.Endpoints)
			}
			if m.ServedBy(EndpointBuiltin) && !strings.HasPrefix(m.ID, "chorus/") {
				t.Errorf("%s/%s: built-in models are named chorus/…", s.Name, m.ID)
			}
			for _, b := range m.Benchmarks {
				if b.Dataset == "" || b.Metric == "" {
					t.Errorf("%s/%s: benchmark %+v lacks a dataset or metric", s.Name, m.ID, b)
				}
				if lowerIsBetter(b.Metric) != b.LowerIsBetter {
					t.Errorf("%s/%s: %s on %s has lower_is_better=%v", s.Name, m.ID, b.Metric, b.Dataset, b.LowerIsBetter)
				}
			}
		}
	}
}

// The constraint stages (licence allow-list, size bound, smallest, best
// benchmark) need real differences to choose between.
func TestCatalogGivesConstraintsSomethingToChoose(t *testing.T) {
	c := embeddedCatalog(t)
	allLicenses := map[string]bool{}
	for _, name := range huggingGPTTasks {
		s, _ := c.Skill(name)
		licenses, sizes := map[string]bool{}, map[int64]bool{}
		for _, m := range s.Models {
			licenses[m.License] = true
			allLicenses[m.License] = true
			if m.Size() <= 0 {
				t.Errorf("%s/%s has no size or parameter count; size constraints would always exclude it", name, m.ID)
			}
			sizes[m.Size()] = true
		}
		if len(licenses) < 2 {
			t.Errorf("%s: every model has licence %v; a licence constraint has nothing to choose", name, licenses)
		}
		if len(sizes) < 2 {
			t.Errorf("%s: all models are the same size", name)
		}
	}
	for _, l := range []string{"apache-2.0", "mit", "cc-by-nc-4.0", "creativeml-openrail-m", "openrail++", "gpl-3.0", ""} {
		if !allLicenses[l] {
			t.Errorf("no HuggingGPT-task model has licence %q", l)
		}
	}
	// best=common_voice wer and best=fid must have rivals to rank.
	for _, tc := range []struct{ task, dataset, metric string }{
		{"automatic-speech-recognition", "common_voice", "wer"},
		{"automatic-speech-recognition", "librispeech", "wer"},
		{"text-to-image", "coco", "fid"},
		{"object-detection", "coco", "ap"},
		{"image-classification", "imagenet", "top-1 accuracy"},
	} {
		s, _ := c.Skill(tc.task)
		n := 0
		for _, m := range s.Models {
			for _, b := range m.Benchmarks {
				if strings.Contains(b.Dataset, tc.dataset) && b.Metric == tc.metric {
					n++
					break
				}
			}
		}
		if n < 2 {
			t.Errorf("%s: %d models report %s on %s, want at least 2", tc.task, n, tc.metric, tc.dataset)
		}
	}
}

func TestControllerTasks(t *testing.T) {
	c := embeddedCatalog(t)
	want := map[string]bool{"summarization": true, "translation": true, "text-generation": true,
		"conversational": true, "text2text-generation": true, "social-media-post": true}
	for _, s := range c.All() {
		if s.Controller != want[s.Name] {
			t.Errorf("%s: controller=%v, want %v", s.Name, s.Controller, want[s.Name])
		}
		if s.Controller && (len(s.Outputs) != 1 || s.Outputs[0] != Text) {
			t.Errorf("%s: a controller task must produce text, has %v", s.Name, s.Outputs)
		}
	}
}

// The argument contract shared by skill files, planner and endpoints.
func TestArgumentContract(t *testing.T) {
	c := embeddedCatalog(t)
	type arg struct {
		name     string
		typ      Modality
		optional bool
	}
	want := map[string][]arg{
		"question-answering":             {{"text", Text, false}, {"context", Text, false}},
		"visual-question-answering":      {{"image", Image, false}, {"text", Text, false}},
		"document-question-answering":    {{"image", Image, false}, {"text", Text, false}},
		"zero-shot-image-classification": {{"image", Image, false}, {"labels", Text, false}},
		"zero-shot-object-detection":     {{"image", Image, false}, {"labels", Text, false}},
		"sentence-similarity":            {{"text", Text, false}, {"sentences", Text, false}},
		"translation":                    {{"text", Text, false}, {"src_lang", Text, true}, {"tgt_lang", Text, true}},
		"mask-generation":                {{"image", Image, false}, {"point", Point, true}, {"box", Box, true}},
		"image-editing":                  {{"image", Image, false}, {"text", Text, false}},
		"image-to-image":                 {{"image", Image, false}, {"text", Text, true}},
		"automatic-speech-recognition":   {{"audio", Audio, false}},
		"audio-to-audio":                 {{"audio", Audio, false}},
		"audio-classification":           {{"audio", Audio, false}},
		"video-classification":           {{"video", Video, false}},
		"text-to-speech":                 {{"text", Text, false}},
		"text-to-video":                  {{"text", Text, false}},
		"text-to-image":                  {{"text", Text, false}},
		"image-to-text":                  {{"image", Image, false}},
		"ocr":                            {{"image", Image, false}},
		"draw-boxes":                     {{"image", Image, false}, {"text", Text, false}},
		"mask-overlay":                   {{"image", Image, false}, {"mask", Image, false}, {"text", Text, true}},
		"image-resize":                   {{"image", Image, false}, {"text", Text, false}},
		"image-convert":                  {{"image", Image, false}, {"text", Text, false}},
		"image-crop":                     {{"image", Image, false}, {"box", Box, false}},
		"video-to-audio":                 {{"video", Video, false}},
		"canny-control":                  {{"image", Image, false}, {"text", Text, true}},
	}
	for _, cn := range controlNets {
		want[cn+"-text-to-image"] = []arg{{"image", Image, false}, {"text", Text, false}}
		if cn != "canny" {
			want[cn+"-control"] = []arg{{"image", Image, false}}
		}
	}
	for name, args := range want {
		s, ok := c.Skill(name)
		if !ok {
			t.Errorf("no skill %s", name)
			continue
		}
		var got []arg
		for _, a := range s.Args {
			got = append(got, arg{a.Name, a.Type, a.Optional})
		}
		if !slices.Equal(got, args) {
			t.Errorf("%s args = %v, want %v", name, got, args)
		}
	}
	// Every skill names its media arguments after their modality.
	for _, s := range c.All() {
		for _, a := range s.Args {
			if a.Type.Media() && a.Name != string(a.Type) && a.Name != "mask" {
				t.Errorf("%s: media argument %q of type %s should be called %s", s.Name, a.Name, a.Type, a.Type)
			}
		}
	}
}

func TestHubTagsAreHubPipelineTags(t *testing.T) {
	// The Hub's pipeline tags (huggingface.js tasks).
	hubTags := map[string]bool{}
	for _, tag := range []string{
		"token-classification", "text-classification", "text2text-generation", "summarization", "translation",
		"question-answering", "text-generation", "sentence-similarity", "tabular-classification", "image-to-text",
		"text-to-image", "visual-question-answering", "document-question-answering", "image-segmentation",
		"image-classification", "image-to-image", "object-detection", "depth-estimation", "text-to-speech",
		"automatic-speech-recognition", "audio-to-audio", "audio-classification", "text-to-video",
		"video-classification", "zero-shot-object-detection", "mask-generation", "zero-shot-image-classification",
	} {
		hubTags[tag] = true
	}
	c := embeddedCatalog(t)
	synced := 0
	for _, s := range c.All() {
		tag, ok := s.HubPipelineTag()
		if !ok {
			continue
		}
		synced++
		if !hubTags[tag] {
			t.Errorf("%s syncs from %q, which is not a Hub pipeline tag (set hub_tag)", s.Name, tag)
		}
	}
	if synced < len(huggingGPTTasks) {
		t.Errorf("only %d skills can sync from the Hub", synced)
	}
}

func TestAliasesNeverCollide(t *testing.T) {
	c := embeddedCatalog(t)
	owner := map[string]string{}
	for _, s := range c.All() {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			key := normalizeTask(n)
			if prev, ok := owner[key]; ok && prev != s.Name {
				t.Errorf("%q of %s normalises to %q, already taken by %s", n, s.Name, key, prev)
			}
			owner[key] = s.Name
		}
	}
	// And every alias resolves to its own skill.
	for _, s := range c.All() {
		for _, a := range s.Aliases {
			got, _, ok := c.Resolve(a)
			if !ok || got.Name != s.Name {
				t.Errorf("Resolve(%q) = %v, want %s", a, skillName(got), s.Name)
			}
		}
	}
}

func skillName(s *Skill) string {
	if s == nil {
		return "<none>"
	}
	return s.Name
}

func TestResolveNearMisses(t *testing.T) {
	c := embeddedCatalog(t)
	for _, tc := range []struct {
		in, want string
		exact    bool
	}{
		{"image-classification", "image-classification", true},
		{"image-cls", "image-classification", false},
		{"Image_Classification", "image-classification", false},
		{"img2txt", "image-to-text", false},
		{"image2text", "image-to-text", false},
		{"vqa", "visual-question-answering", false},
		{"VQA", "visual-question-answering", false},
		{"asr", "automatic-speech-recognition", false},
		{"speech-to-text", "automatic-speech-recognition", false},
		{"tts", "text-to-speech", false},
		{"ner", "token-classification", false},
		{"NER", "token-classification", false},
		{"objct-detection", "object-detection", false},
		{"object detection", "object-detection", false},
		{"caption", "image-to-text", false},
		{"image-captioning", "image-to-text", false},
		{"detection", "object-detection", false},
		{"txt2img", "text-to-image", false},
		{"text2image", "text-to-image", false},
		{"summarize", "summarization", false},
		{"translate", "translation", false},
		{"docqa", "document-question-answering", false},
		{"depth", "depth-estimation", false},
		{"segment-anything", "mask-generation", false},
		{"grounding", "zero-shot-object-detection", false},
		{"image-tagging", "zero-shot-image-classification", false},
		{"instruct-pix2pix", "image-editing", false},
		{"canny", "canny-control", false},
		{"openpose", "openpose-control", false},
		{"controlnet-canny", "canny-text-to-image", false},
		{"pose-to-image", "openpose-text-to-image", false},
		{"resize", "image-resize", false},
		{"optical-character-recognition", "ocr", false},
		{"OCR", "ocr", false},
		{"zero-shot-object-detecton", "zero-shot-object-detection", false},
		{"automatic_speech_recognition", "automatic-speech-recognition", false},
		{"text-to-vidoe", "text-to-video", false},
		{"draw-bboxes", "draw-boxes", false},
	} {
		s, exact, ok := c.Resolve(tc.in)
		if !ok || s.Name != tc.want || exact != tc.exact {
			t.Errorf("Resolve(%q) = %s exact=%v ok=%v, want %s exact=%v", tc.in, skillName(s), exact, ok, tc.want, tc.exact)
		}
	}
	for _, bad := range []string{"", "   ", "make-coffee", "banana", "quantum-teleportation", "stock-prediction", "send-email", "xyz", "-", "image", "text"} {
		if s, _, ok := c.Resolve(bad); ok {
			t.Errorf("Resolve(%q) = %s, want refusal", bad, s.Name)
		}
	}
}

func TestUserSkillOverridesEmbedded(t *testing.T) {
	dir := t.TempDir()
	custom := `name: ocr
aliases: [read-text]
domain: cv
description: Read text from an image using only the local tesseract program and nothing else.
args:
  - {name: image, type: image}
outputs: [text]
models:
  - {id: tesseract, endpoints: [command], command: [tesseract, --psm, "6"]}
`
	if err := os.WriteFile(filepath.Join(dir, "ocr.yaml"), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := c.Skill("ocr")
	if len(s.Models) != 1 || !slices.Equal(s.Models[0].Command, []string{"tesseract", "--psm", "6"}) {
		t.Errorf("user ocr.yaml did not replace the embedded skill: %+v", s.Models)
	}
	if !strings.HasPrefix(s.Source, dir) {
		t.Errorf("source %q, want the user file", s.Source)
	}

	// A typo in an endpoint kind is caught with the choices named.
	bad := strings.Replace(custom, "[command], command: [tesseract, --psm, \"6\"]", "[hugginface]", 1)
	if err := os.WriteFile(filepath.Join(dir, "ocr.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), `unknown endpoint "hugginface"`) || !strings.Contains(err.Error(), "huggingface, local") {
		t.Errorf("Load with a misspelt endpoint: %v", err)
	}
}

// TestCatalogRanking: in every embedded skill with a choice, the model that
// ranks first is a general-purpose one — the curated default where there is
// one, never a niche model (an NSFW detector for image classification, a
// table detector for object detection) — and every default is one of the
// skill's models. Each skill has a one-line brief for the planner.
func TestCatalogRanking(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat.All() {
		if s.Brief == "" || len(s.Brief) > 100 || strings.Contains(s.Brief, "\n") {
			t.Errorf("%s: brief %q should be one line of at most 100 bytes", s.Name, s.Brief)
		}
		if s.Default != "" {
			if _, ok := s.Model(s.Default); !ok {
				t.Errorf("%s: default %s is not one of its models", s.Name, s.Default)
			}
		}
		if len(s.Models) < 2 {
			continue
		}
		first := s.Rank(s.Models)[0]
		if first.Niche != "" {
			t.Errorf("%s: a niche model ranks first: %s (%s)", s.Name, first.ID, first.Niche)
		}
		if s.Default != "" && first.ID != s.Default {
			t.Errorf("%s: %s ranks first, not the default %s", s.Name, first.ID, s.Default)
		}
	}
	ic, _ := cat.Skill("image-classification")
	if got := ic.Rank(ic.Models)[0].ID; got != "google/vit-base-patch16-224" {
		t.Errorf("image-classification ranks %s first", got)
	}
	od, _ := cat.Skill("object-detection")
	ranked := od.Rank(od.Models)
	if ranked[0].ID != "facebook/detr-resnet-50" || ranked[len(ranked)-1].ID != "microsoft/table-transformer-detection" {
		t.Errorf("object-detection ranking: first %s, last %s", ranked[0].ID, ranked[len(ranked)-1].ID)
	}
}
