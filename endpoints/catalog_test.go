package endpoints_test

// These tests run the real embedded skill catalog end to end: every skill,
// on every endpoint kind its models name, through the real endpoint and the
// protocol-faithful fake (or the real program, or the built-in Go code) on
// the other side. They iterate the catalog, so a new skill file, a new
// argument type or a model on a new endpoint kind fails here until the test
// knows what that skill's requests must look like.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decode GIF outputs
	_ "image/jpeg"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/endpoints/local"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeweb"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/skills"
)

// catToken is the Hugging Face token the runs send; the fake requires it.
const catToken = "hf_catalogtest"

// catTextArgs are the values of text, point and box arguments, by
// "skill/argument" and then by argument name. An optional argument is
// passed only when its "skill/argument" key is here, so each run uses the
// shape a planner would write for that skill.
var catTextArgs = map[string]string{
	"text":      "a red fox standing in fresh snow",
	"context":   "Chorus was written in Lisbon in 2025 by a small team of engineers.",
	"sentences": "a fox in the snow\na cat asleep on a sofa",
	"labels":    "cat, dog",
	"box":       "4,3,30,20",
	"point":     "10,12",

	"question-answering/text":          "Where was Chorus written?",
	"visual-question-answering/text":   "What animal is in the picture?",
	"document-question-answering/text": "What is the total amount?",
	"tabular-classification/text":      "age,income\n31,52000\n45,61000",
	"text-classification/text":         "What a terrible, boring film.",
	"token-classification/text":        "Sarah moved from Paris to Lisbon.",
	"summarization/text":               "Chorus plans each request into tasks. It runs them on local or cloud models. It then writes one answer.",
	"translation/src_lang":             "en",
	"translation/tgt_lang":             "fr",
	"image-to-image/text":              "as a watercolour painting",
	"retrieval/text":                   "red fox",
	"image-editing/text":               "make it look like winter",
	"canny-control/text":               "low 50 high 150",
	"mask-generation/point":            "10,12",
	"mask-generation/box":              "4,3,30,20",
	"mask-overlay/text":                "cat",
	"draw-boxes/text":                  "cat (0.98) at [2,2,20,20], remote (0.71) at [22,10,38,28]",
	"image-resize/text":                "20x15",
	"image-convert/text":               "jpeg",
	"image-crop/box":                   "4,3,30,20",
	"social-media-post/text":           "a red fox standing in fresh snow; playful tone, for Instagram",
}

// catInputs are the files and arguments of one run.
type catInputs struct {
	png, mask, wav, mp4 string // absolute paths
	pngData, wavData    []byte
	mp4Data             []byte
	args                map[string]string
}

// catImageW and catImageH are the input image's size; boxes and points in
// catTextArgs lie inside it.
const catImageW, catImageH = 40, 30

// newCatInputs writes the input files and fills the skill's arguments: the
// PNG for image arguments (a mask PNG for one named mask), the WAV for
// audio, the MP4 for video.
func newCatInputs(t *testing.T, s *skills.Skill) *catInputs {
	t.Helper()
	dir := t.TempDir()
	in := &catInputs{
		pngData: fakehf.PNG(catImageW, catImageH),
		wavData: fakehf.WAV(8000, 16000),
		mp4Data: fakehf.MP4("a fox dancing in the snow"),
		args:    map[string]string{},
	}
	mask := image.NewGray(image.Rect(0, 0, catImageW, catImageH))
	for y := 5; y < 25; y++ {
		for x := 5; x < 20; x++ {
			mask.SetGray(x, y, color.Gray{Y: 255})
		}
	}
	var mb bytes.Buffer
	if err := png.Encode(&mb, mask); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in.png, in.mask = write("photo.png", in.pngData), write("mask.png", mb.Bytes())
	in.wav, in.mp4 = write("speech.wav", in.wavData), write("clip.mp4", in.mp4Data)

	for _, a := range s.Args {
		v, specific := catTextArgs[s.Name+"/"+a.Name]
		if a.Optional && !specific {
			continue
		}
		switch a.Type {
		case skills.Image:
			v = in.png
			if a.Name == "mask" {
				v = in.mask
			}
		case skills.Audio:
			v = in.wav
		case skills.Video:
			v = in.mp4
		case skills.Text, skills.Point, skills.Box:
			if !specific {
				var ok bool
				if v, ok = catTextArgs[a.Name]; !ok && a.Type == skills.Text {
					v = catTextArgs["text"]
				} else if !ok {
					t.Fatalf("%s: no value for %s argument %q — add one to catTextArgs", s.Name, a.Type, a.Name)
				}
			}
		default:
			t.Fatalf("%s: argument %q has type %q, which this test cannot make an input for — teach newCatInputs", s.Name, a.Name, a.Type)
		}
		in.args[a.Name] = v
	}
	return in
}

// catKinds returns the endpoint kinds the skill's models name, in the
// order of skills.EndpointKinds, with the first model of each kind.
func catKinds(s *skills.Skill) ([]skills.EndpointKind, map[skills.EndpointKind]skills.Model) {
	first := map[skills.EndpointKind]skills.Model{}
	for _, m := range s.Models {
		for _, k := range m.Endpoints {
			if _, ok := first[k]; !ok {
				first[k] = m
			}
		}
	}
	var kinds []skills.EndpointKind
	for _, k := range skills.EndpointKinds {
		if _, ok := first[k]; ok {
			kinds = append(kinds, k)
		}
	}
	return kinds, first
}

func catCatalog(t *testing.T) *skills.Catalog {
	t.Helper()
	c, err := skills.Embedded()
	if err != nil {
		t.Fatalf("embedded catalog: %v", err)
	}
	if len(c.All()) < 50 {
		t.Fatalf("the embedded catalog has %d skills; expected the full catalog", len(c.All()))
	}
	return c
}

func catContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestCatalogSkillsRunEndToEnd runs every skill of the embedded catalog on
// every endpoint kind its models list, through the real endpoint, and
// checks both sides: the request the server received has the task's real
// shape, and the Result carries the skill's declared outputs.
func TestCatalogSkillsRunEndToEnd(t *testing.T) {
	c := catCatalog(t)
	for _, s := range c.All() {
		kinds, first := catKinds(s)
		if len(kinds) == 0 {
			t.Errorf("%s: no model lists an endpoint", s.Name)
			continue
		}
		for _, kind := range kinds {
			m := first[kind]
			t.Run(s.Name+"/"+string(kind), func(t *testing.T) {
				switch kind {
				case skills.EndpointHuggingFace:
					catRunHF(t, s, m, false)
				case skills.EndpointLocal:
					catRunLocal(t, s, m)
				case skills.EndpointOllama:
					catRunOllama(t, s, m)
				case skills.EndpointCommand:
					catRunCommand(t, s, m)
				case skills.EndpointBuiltin:
					catRunBuiltin(t, s, m)
				case skills.EndpointRetrieval:
					catRunRetrieval(t, s)
				default:
					t.Fatalf("endpoint kind %q has no end-to-end run — add one to this test", kind)
				}
			})
		}
	}
}

// catFakeHFTask is the task a model is registered for on the fake Hugging
// Face server: the Hub's pipeline, which for Chorus's own task names is
// another one (TrOCR is an image-to-text model, a post is a chat turn).
func catFakeHFTask(task string) string {
	switch task {
	case "ocr":
		return "image-to-text"
	case "social-media-post":
		return "conversational"
	}
	return task
}

// catRunHF runs the skill on the huggingface endpoint, or with onLocal set on
// the local endpoint speaking the hf protocol, against fakehf.
func catRunHF(t *testing.T, s *skills.Skill, m skills.Model, onLocal bool) {
	srv := fakehf.New(t)
	srv.Model(m.ID, catFakeHFTask(s.Name))
	var ep endpoints.Endpoint
	if onLocal {
		ep = local.New(local.Options{URL: srv.URL, Protocol: local.ProtocolHF,
			HTTPClient: srv.Client(), MaxWait: -1, MaxRetries: -1})
	} else {
		srv.RequireToken(catToken)
		ep = huggingface.New(huggingface.Options{BaseURL: srv.URL, Token: catToken,
			HTTPClient: srv.Client(), MaxWait: -1, MaxRetries: -1})
	}
	in := newCatInputs(t, s)
	ctx := catContext(t)
	if err := ep.Check(ctx, s.Name, m.ID); err != nil {
		t.Fatalf("Check(%s, %s): %v", s.Name, m.ID, err)
	}
	res, err := ep.Infer(ctx, endpointstest.Request(t, s.Name, m.ID, in.args))
	if err != nil {
		t.Fatalf("Infer(%s, %s): %v", s.Name, m.ID, err)
	}
	reqs := srv.RequestsFor(m.ID)
	if len(reqs) != 1 {
		t.Fatalf("the server got %d requests for %s, want 1", len(reqs), m.ID)
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Status != http.StatusOK {
		t.Errorf("%s %s answered %d", r.Method, r.Path, r.Status)
	}
	auth := r.Headers.Get("Authorization")
	switch {
	case onLocal && auth != "":
		t.Errorf("a local server was sent credentials: %q", auth)
	case !onLocal && auth != "Bearer "+catToken:
		t.Errorf("Authorization = %q, want the token", auth)
	}
	catCheckHFRequest(t, s.Name, m.ID, in, r)
	catCheckOutputs(t, s, res, nil)
}

// catCheckHFRequest asserts the Inference API request shape of task, as the
// official client (@huggingface/inference, provider hf-inference) sends it.
func catCheckHFRequest(t *testing.T, task, model string, in *catInputs, r fakehf.Request) {
	t.Helper()
	ctype := r.Headers.Get("Content-Type")
	b64 := base64.StdEncoding.EncodeToString(in.pngData)
	raw := func(mime string, data []byte) {
		t.Helper()
		if r.Route != "" || ctype != mime || !bytes.Equal(r.Body, data) {
			t.Errorf("%s: route %q, Content-Type %q, %d body bytes; want the raw %s file (%d bytes) on the model's route",
				task, r.Route, ctype, len(r.Body), mime, len(data))
		}
	}
	jsonBody := func(route string, want any) {
		t.Helper()
		if r.Route != route || ctype != "application/json" {
			t.Errorf("%s: route %q, Content-Type %q; want JSON on route %q", task, r.Route, ctype, route)
		}
		catSameJSON(t, task, r.Body, want)
	}
	a := in.args
	switch task {
	case "image-classification", "object-detection", "image-to-text", "depth-estimation", "ocr":
		raw("image/png", in.pngData)
	case "automatic-speech-recognition", "audio-classification", "audio-to-audio":
		raw("audio/wav", in.wavData)
	case "video-classification":
		raw("video/mp4", in.mp4Data)
	case "text-classification", "token-classification", "text2text-generation", "summarization",
		"text-to-image", "text-to-speech", "text-to-video":
		jsonBody("", map[string]any{"inputs": a["text"]})
	case "translation":
		jsonBody("", map[string]any{"inputs": a["text"], "parameters": map[string]any{"src_lang": a["src_lang"], "tgt_lang": a["tgt_lang"]}})
	case "question-answering":
		jsonBody("", map[string]any{"inputs": map[string]any{"question": a["text"], "context": a["context"]}})
	case "sentence-similarity":
		jsonBody("/pipeline/sentence-similarity", map[string]any{"inputs": map[string]any{
			"source_sentence": a["text"], "sentences": []any{"a fox in the snow", "a cat asleep on a sofa"}}})
	case "tabular-classification":
		jsonBody("", map[string]any{"inputs": map[string]any{"data": map[string]any{
			"age": []any{"31", "45"}, "income": []any{"52000", "61000"}}}})
	case "conversational", "social-media-post", "text-generation":
		// Text generation is a chat completion, as the official client
		// sends it.
		var body struct {
			Model    string `json:"model"`
			Messages []struct{ Role, Content string }
		}
		if r.Route != "/v1/chat/completions" || ctype != "application/json" || json.Unmarshal(r.Body, &body) != nil {
			t.Fatalf("%s: route %q, Content-Type %q, body %s; want a chat completion", task, r.Route, ctype, r.Body)
		}
		if body.Model != model || len(body.Messages) == 0 {
			t.Fatalf("%s: chat completion for model %q with %d messages", task, body.Model, len(body.Messages))
		}
		last := body.Messages[len(body.Messages)-1]
		if last.Role != "user" || last.Content != a["text"] {
			t.Errorf("%s: last message %+v, want the user's text", task, last)
		}
		if task == "social-media-post" && (body.Messages[0].Role != "system" || !strings.Contains(body.Messages[0].Content, "hashtag")) {
			t.Errorf("%s: want a system message briefing a post with hashtags, got %+v", task, body.Messages[0])
		}
	case "image-segmentation":
		jsonBody("", map[string]any{"inputs": b64})
	case "image-to-image", "image-editing":
		jsonBody("", map[string]any{"inputs": b64, "parameters": map[string]any{"prompt": a["text"]}})
	case "zero-shot-image-classification", "zero-shot-object-detection":
		jsonBody("", map[string]any{"inputs": b64, "parameters": map[string]any{"candidate_labels": []any{"cat", "dog"}}})
	case "visual-question-answering", "document-question-answering":
		jsonBody("", map[string]any{"inputs": map[string]any{"image": b64, "question": a["text"]}})
	case "mask-generation":
		jsonBody("", map[string]any{"inputs": b64, "parameters": map[string]any{
			"input_points": []any{[]any{[]any{10.0, 12.0}}}, "input_boxes": []any{[]any{4.0, 3.0, 30.0, 20.0}}}})
	default:
		t.Errorf("%s: this test does not know the task's Hugging Face request shape — add it to catCheckHFRequest", task)
	}
}

// catSameJSON asserts that body decodes to want.
func catSameJSON(t *testing.T, what string, body []byte, want any) {
	t.Helper()
	var got any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Errorf("%s: body is not JSON (%v): %.200s", what, err, body)
		return
	}
	w, _ := json.Marshal(want)
	var norm any
	_ = json.Unmarshal(w, &norm)
	if !reflect.DeepEqual(got, norm) {
		t.Errorf("%s: body\n  %s\nwant\n  %s", what, catCompact(body), w)
	}
}

func catCompact(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// catJarvisTask reports whether HuggingGPT's models_server has inference
// code for task (which the fake reproduces) and the task its model is
// registered under on the fake: models_server dispatches on the model id,
// and reads TrOCR's text with its image-to-text code.
func catJarvisTask(task, model string) (string, bool) {
	if served, ok := fakehf.JarvisServed[model]; ok && served == task {
		return task, true
	}
	if hfapi.IsControlNetTask(task) {
		return task, true
	}
	switch task {
	case "image-to-text", "text-to-image", "text-to-video", "text-to-speech", "image-to-image",
		"depth-estimation", "image-segmentation", "object-detection", "visual-question-answering",
		"document-question-answering", "automatic-speech-recognition", "audio-to-audio":
		return task, true
	case "ocr":
		return "image-to-text", true
	case "mask-generation":
		// Not in models_server.py: the shape Chorus documents for a
		// deployment that adds SAM, which the fake answers.
		return task, true
	}
	return "", false
}

// catRunLocal runs the skill on the local endpoint: with the jarvis
// protocol where models_server serves the task, and with the hf protocol
// where the task has an Inference API shape. A local model no protocol can
// serve is a catalog error.
func catRunLocal(t *testing.T, s *skills.Skill, m skills.Model) {
	ran := false
	if fakeTask, ok := catJarvisTask(s.Name, m.ID); ok {
		ran = true
		t.Run("jarvis", func(t *testing.T) { catRunJarvis(t, s, m, fakeTask) })
	}
	if hfapi.Supported(s.Name) && !hfapi.IsControlNetTask(s.Name) {
		ran = true
		t.Run("hf", func(t *testing.T) { catRunHF(t, s, m, true) })
	}
	if !ran {
		t.Errorf("%s lists %s on the local endpoint, but neither models_server (jarvis) nor an hf-protocol server can run %s",
			s.Name, m.ID, s.Name)
	}
}

// catJarvisPartial lists outputs models_server does not give for a task,
// with the reason; the run asserts the rest.
var catJarvisPartial = map[string]map[skills.Modality]string{
	// models_server paints the segments onto the image and answers only
	// {"path": …}: no labels come back.
	"image-segmentation": {skills.Text: "models_server answers only the painted segmentation map"},
}

func catRunJarvis(t *testing.T, s *skills.Skill, m skills.Model, fakeTask string) {
	j := fakehf.NewJarvis(t)
	j.Model(m.ID, fakeTask)
	ep := local.New(local.Options{URL: j.URL, Protocol: local.ProtocolJarvis, PublicDir: j.PublicDir()})
	in := newCatInputs(t, s)
	ctx := catContext(t)
	if err := ep.Check(ctx, s.Name, m.ID); err != nil {
		t.Fatalf("Check(%s, %s): %v", s.Name, m.ID, err)
	}
	res, err := ep.Infer(ctx, endpointstest.Request(t, s.Name, m.ID, in.args))
	if err != nil {
		t.Fatalf("Infer(%s, %s): %v", s.Name, m.ID, err)
	}
	var posts []fakehf.Request
	for _, r := range j.RequestsFor(m.ID) {
		if r.Method == http.MethodPost {
			posts = append(posts, r)
		}
	}
	if len(posts) != 1 {
		t.Fatalf("models_server got %d POSTs for %s, want 1", len(posts), m.ID)
	}
	r := posts[0]
	if r.Path != "/models/"+m.ID || r.Headers.Get("Content-Type") != "application/json" {
		t.Errorf("POST %s (%s), want POST /models/%s with JSON", r.Path, r.Headers.Get("Content-Type"), m.ID)
	}
	// The bodies awesome_chat.py sends: local paths the server opens
	// itself; "text" (null when not asked) only to the branches that read
	// it — captioning, OCR, VQA, DQA and ControlNet generation.
	text := func() any {
		if v, ok := in.args["text"]; ok {
			return v
		}
		return nil
	}
	var want map[string]any
	switch {
	case catTakes(s, skills.Image) && (strings.HasSuffix(s.Name, "-text-to-image") || slices.Contains([]string{"image-to-text", "ocr",
		"image-classification", "visual-question-answering", "document-question-answering"}, s.Name)):
		want = map[string]any{"img_url": in.png, "text": text()}
	case s.Name == "mask-generation":
		want = map[string]any{"img_url": in.png, "points": [][]float64{{10, 12}}, "boxes": [][]float64{{4, 3, 30, 20}}}
	case catTakes(s, skills.Image):
		want = map[string]any{"img_url": in.png}
	case catTakes(s, skills.Audio):
		want = map[string]any{"audio_url": in.wav}
	default:
		want = map[string]any{"text": in.args["text"]}
	}
	catSameJSON(t, s.Name, r.Body, want)
	catCheckOutputs(t, s, res, catJarvisPartial[s.Name])
}

// catRunOllama runs the skill on a model pulled into the fake Ollama, a
// vision model when the skill takes an image. The fake answers structured
// calls with a document that satisfies the JSON schema the call sent.
func catRunOllama(t *testing.T, s *skills.Skill, m skills.Model) {
	srv := fakeollama.New(t)
	caps := []string{fakeollama.CapCompletion}
	vision := catTakes(s, skills.Image)
	if vision {
		caps = append(caps, fakeollama.CapVision)
	}
	srv.AddModel(fakeollama.Model{Name: m.ID, Capabilities: caps})
	srv.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if len(req.Format) == 0 {
			return fakeollama.Reply{Content: "A red fox stands in fresh snow."}
		}
		var schema map[string]any
		if err := json.Unmarshal(req.Format, &schema); err != nil {
			return fakeollama.Reply{Status: http.StatusBadRequest, Error: "format is not a JSON schema: " + err.Error()}
		}
		doc, _ := json.Marshal(catExample(schema, 0))
		if err := fakeollama.Validate(req.Format, doc); err != nil {
			return fakeollama.Reply{Status: http.StatusInternalServerError, Error: "test: " + err.Error()}
		}
		return fakeollama.Reply{Content: string(doc)}
	})
	ep := ollama.New(ollama.Options{Host: srv.URL})
	in := newCatInputs(t, s)
	ctx := catContext(t)
	if err := ep.Check(ctx, s.Name, m.ID); err != nil {
		t.Fatalf("Check(%s, %s): %v", s.Name, m.ID, err)
	}
	res, err := ep.Infer(ctx, endpointstest.Request(t, s.Name, m.ID, in.args))
	if err != nil {
		t.Fatalf("Infer(%s, %s): %v", s.Name, m.ID, err)
	}
	chats := srv.ChatRequests()
	if len(chats) != 1 {
		t.Fatalf("Ollama got %d chat requests, want 1", len(chats))
	}
	req := chats[0]
	if req.Model != m.ID || req.Stream == nil || *req.Stream {
		t.Errorf("chat for model %q, stream %v; want %s without streaming", req.Model, req.Stream, m.ID)
	}
	user := req.Messages[len(req.Messages)-1]
	if user.Role != "user" {
		t.Errorf("last message is from %q, want the user", user.Role)
	}
	switch {
	case vision && (len(user.Images) != 1 || !bytes.Equal(user.Images[0], in.pngData)):
		t.Errorf("the user message carries %d images; want the input PNG", len(user.Images))
	case !vision && len(user.Images) != 0:
		t.Errorf("a text task sent %d images", len(user.Images))
	}
	if q, ok := in.args["text"]; ok && !strings.Contains(user.Content, q) {
		t.Errorf("the user message %q does not carry the text argument %q", user.Content, q)
	}
	catCheckOutputs(t, s, res, nil)
}

// catExample builds a document that satisfies schema (the subset Ollama's
// structured outputs use); i varies enum picks across array items.
func catExample(schema map[string]any, i int) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[i%len(enum)]
	}
	typ, _ := schema["type"].(string)
	if list, ok := schema["type"].([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			if ps, ok := p.(map[string]any); ok {
				out[name] = catExample(ps, i)
			}
		}
		return out
	case "array":
		n := 1
		if v, ok := schema["minItems"].(float64); ok && int(v) > n {
			n = int(v)
		}
		items, _ := schema["items"].(map[string]any)
		out := make([]any, n)
		for k := range out {
			out[k] = catExample(items, k)
		}
		return out
	case "number", "integer":
		lo, hasLo := schema["minimum"].(float64)
		hi, hasHi := schema["maximum"].(float64)
		switch {
		case hasLo && hasHi:
			return lo + (hi-lo)*0.8/float64(i+1)
		case hasLo:
			return lo + 1
		}
		return 1
	case "boolean":
		return true
	}
	return "cat"
}

// catTakes reports whether the skill has an argument of modality m.
func catTakes(s *skills.Skill, m skills.Modality) bool { return slices.Contains(s.Inputs(), m) }

// catPrograms are the Debian packages of the programs command models run.
var catPrograms = map[string]string{"tesseract": "tesseract-ocr", "espeak-ng": "espeak-ng", "ffmpeg": "ffmpeg"}

// catRunCommand runs the catalog's command (program and fixed arguments)
// with the real program, on inputs it can really work on: an image with
// printed words for OCR, text to speak, a video with a sound track.
func catRunCommand(t *testing.T, s *skills.Skill, m skills.Model) {
	if len(m.Command) == 0 {
		t.Fatalf("%s lists the command endpoint without a command", m.ID)
	}
	prog := m.Command[0]
	pkg, known := catPrograms[filepath.Base(prog)]
	if !known {
		t.Fatalf("%s runs %q, which this test does not know how to feed — add it to catPrograms and catRunCommand", m.ID, prog)
	}
	testkit.NeedProgram(t, prog, pkg)
	in := newCatInputs(t, s)
	switch s.Name {
	case "ocr", "image-to-text":
		in.args["image"] = testkit.TextImage(t, "HELLO CHORUS", 6)
	case "video-to-audio":
		video := filepath.Join(t.TempDir(), "talk.mkv")
		gen := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=32x24:rate=5:duration=1",
			"-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-shortest", "-c:v", "ffv1", "-c:a", "pcm_s16le", video)
		if out, err := gen.CombinedOutput(); err != nil {
			t.Fatalf("make a test video: %v\n%s", err, out)
		}
		in.args["video"] = video
	}
	ep := command.New(command.Options{TempDir: t.TempDir()})
	ctx := catContext(t)
	if err := ep.Check(ctx, s.Name, prog); err != nil {
		t.Fatalf("Check(%s, %s): %v", s.Name, prog, err)
	}
	res, err := ep.Infer(ctx, endpointstest.WithFiles(t, endpoints.Request{Task: s.Name, Model: m.ID, Command: m.Command, Args: in.args}))
	if err != nil {
		t.Fatalf("Infer(%s, %v): %v", s.Name, m.Command, err)
	}
	switch s.Name {
	case "ocr", "image-to-text":
		if !strings.Contains(res.Text, "HELLO") {
			t.Errorf("%s read %q from an image saying HELLO CHORUS", prog, res.Text)
		}
	case "text-to-speech":
		testkit.CheckWAV(t, res.Blobs[0].Data, 1)
	case "video-to-audio":
		testkit.CheckWAV(t, res.Blobs[0].Data, 0.8)
	}
	catCheckOutputs(t, s, res, nil)
}

// catRunBuiltin runs the built-in Go tool.
func catRunBuiltin(t *testing.T, s *skills.Skill, m skills.Model) {
	ep := builtin.New()
	in := newCatInputs(t, s)
	ctx := catContext(t)
	if err := ep.Check(ctx, s.Name, m.ID); err != nil {
		t.Fatalf("Check(%s, %s): %v", s.Name, m.ID, err)
	}
	res, err := ep.Infer(ctx, endpointstest.Request(t, s.Name, m.ID, in.args))
	if err != nil {
		t.Fatalf("Infer(%s, %s): %v", s.Name, m.ID, err)
	}
	catCheckOutputs(t, s, res, nil)
	// The tool did what its arguments asked.
	if len(res.Blobs) == 0 {
		return
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(res.Blobs[0].Data))
	if err != nil {
		return // catCheckOutputs reported it
	}
	switch s.Name {
	case "image-resize":
		if cfg.Width != 20 || cfg.Height != 15 {
			t.Errorf("resized to %d×%d, asked for 20x15", cfg.Width, cfg.Height)
		}
	case "image-crop":
		if cfg.Width != 26 || cfg.Height != 17 {
			t.Errorf("cropped to %d×%d, asked for box 4,3,30,20", cfg.Width, cfg.Height)
		}
	case "image-convert":
		if format != "jpeg" {
			t.Errorf("converted to %s, asked for jpeg", format)
		}
	default:
		if cfg.Width != catImageW || cfg.Height != catImageH {
			t.Errorf("output is %d×%d, want the input's %d×%d", cfg.Width, cfg.Height, catImageW, catImageH)
		}
	}
}

// catCheckOutputs asserts that res carries every output modality the skill
// declares (skip lists the ones this endpoint cannot give, with why): text
// as non-empty Text, media as a Blob of that MIME family whose bytes are
// such a file. Blobs of a family the skill does not declare are errors too,
// since the planner only expects the declared outputs.
func catCheckOutputs(t *testing.T, s *skills.Skill, res endpoints.Result, skip map[skills.Modality]string) {
	t.Helper()
	for _, o := range s.Outputs {
		if why, ok := skip[o]; ok {
			t.Logf("%s: no %s output here: %s", s.Name, o, why)
			continue
		}
		switch o {
		case skills.Text:
			if strings.TrimSpace(res.Text) == "" {
				t.Errorf("%s declares a text output, but Result.Text is empty", s.Name)
			}
		case skills.Image, skills.Audio, skills.Video:
			i := slices.IndexFunc(res.Blobs, func(b endpoints.Blob) bool { return strings.HasPrefix(b.MIME, string(o)+"/") })
			if i < 0 {
				t.Errorf("%s declares an %s output, but the result has blobs %v", s.Name, o, catBlobTypes(res))
				continue
			}
			if err := catCheckMedia(res.Blobs[i]); err != nil {
				t.Errorf("%s: %s blob: %v", s.Name, res.Blobs[i].MIME, err)
			}
		default:
			t.Errorf("%s declares output %q, which this test cannot check — teach catCheckOutputs", s.Name, o)
		}
	}
	for _, b := range res.Blobs {
		family, _, _ := strings.Cut(b.MIME, "/")
		if !slices.Contains(s.Outputs, skills.Modality(family)) {
			t.Errorf("%s returned a %s blob, but declares outputs %v", s.Name, b.MIME, s.Outputs)
		}
	}
}

func catBlobTypes(res endpoints.Result) []string {
	var out []string
	for _, b := range res.Blobs {
		out = append(out, b.MIME+" ("+strconv.Itoa(len(b.Data))+" bytes)")
	}
	return out
}

// catCheckMedia checks that a blob's bytes are the file its MIME type says,
// whether it is held in memory or was spooled to a temporary file.
func catCheckMedia(blob endpoints.Blob) error {
	data, err := blob.Bytes(64 << 20)
	if err != nil {
		return err
	}
	b := endpoints.Blob{MIME: blob.MIME, Data: data}
	switch {
	case len(b.Data) == 0:
		return fmt.Errorf("empty")
	case strings.HasPrefix(b.MIME, "image/"):
		if _, _, err := image.DecodeConfig(bytes.NewReader(b.Data)); err != nil {
			return fmt.Errorf("does not decode as an image: %w", err)
		}
	case b.MIME == "audio/wav":
		if _, _, err := fakehf.WAVInfo(b.Data); err != nil {
			return err
		}
	case b.MIME == "video/mp4":
		if len(b.Data) < 8 || string(b.Data[4:8]) != "ftyp" {
			return fmt.Errorf("no ftyp box")
		}
	}
	return nil
}

// TestCatalogModelsPassEndpointChecks asks, for every model of every skill
// and every endpoint kind it lists, whether that endpoint accepts the model
// for the task — so a model added on a kind that cannot serve its task
// fails here, not in a user's turn. Nothing is installed or pulled for
// real: programs are "found", the Hugging Face check is offline, and the
// models are registered on the fakes.
func TestCatalogModelsPassEndpointChecks(t *testing.T) {
	c := catCatalog(t)
	ctx := catContext(t)
	found := func(name string) (string, error) { return "/usr/bin/" + filepath.Base(name), nil }
	programs := command.New(command.Options{LookPath: found})
	builtin := builtin.New()
	hf := huggingface.New(huggingface.Options{Token: catToken, BaseURL: "http://127.0.0.1:1/unused"})
	j := fakehf.NewJarvis(t)
	jarvis := local.New(local.Options{URL: j.URL, Protocol: local.ProtocolJarvis, CheckTTL: time.Hour})
	hfSrv := fakehf.New(t)
	hfLocal := local.New(local.Options{URL: hfSrv.URL, Protocol: local.ProtocolHF, CheckTTL: time.Hour})
	oll := fakeollama.New(t)
	web := retrieval.New(retrieval.Options{WikipediaURL: retrieval.DefaultWikipediaURL, SearxNGURL: "http://127.0.0.1:1/unused"})
	for _, s := range c.All() {
		for _, m := range s.Models {
			for _, k := range m.Endpoints {
				var err error
				switch k {
				case skills.EndpointBuiltin:
					err = builtin.Check(ctx, s.Name, m.ID)
				case skills.EndpointCommand:
					err = programs.Check(ctx, s.Name, m.Command[0])
				case skills.EndpointHuggingFace:
					err = hf.Check(ctx, s.Name, m.ID)
				case skills.EndpointLocal:
					j.Model(m.ID, s.Name)
					err = jarvis.Check(ctx, s.Name, m.ID)
					if hfapi.IsControlNetTask(s.Name) {
						break
					}
					if herr := hfLocal.Check(ctx, s.Name, m.ID); herr != nil && err != nil {
						err = fmt.Errorf("jarvis: %w; hf: %w", err, herr)
					} else if herr == nil {
						err = nil
					}
				case skills.EndpointOllama:
					err = catOllamaCheck(ctx, oll, s, m)
				case skills.EndpointRetrieval:
					err = web.Check(ctx, s.Name, m.ID)
				default:
					err = fmt.Errorf("unknown endpoint kind %q", k)
				}
				if err != nil {
					t.Errorf("%s: %s on %s: %v", s.Name, m.ID, k, err)
				}
			}
		}
	}
}

// catOllamaCheck pulls m into the fake Ollama (a vision model when the
// skill takes an image) and asks a fresh endpoint whether it serves the
// skill's task.
func catOllamaCheck(ctx context.Context, oll *fakeollama.Server, s *skills.Skill, m skills.Model) error {
	caps := []string{fakeollama.CapCompletion}
	if catTakes(s, skills.Image) {
		caps = append(caps, fakeollama.CapVision)
	}
	oll.AddModel(fakeollama.Model{Name: m.ID, Capabilities: caps})
	return ollama.New(ollama.Options{Host: oll.URL}).Check(ctx, s.Name, m.ID)
}

// TestCatalogCarriesModelsServer: every model HuggingGPT's models_server
// loads is a candidate of the skill it serves, on the local endpoint, so a
// user with that server has each of its routes reachable.
func TestCatalogCarriesModelsServer(t *testing.T) {
	c := catCatalog(t)
	for id, task := range fakehf.JarvisServed {
		s, ok := c.Skill(task)
		if !ok {
			t.Errorf("models_server serves %s for %s, which is not a skill", id, task)
			continue
		}
		i := slices.IndexFunc(s.Models, func(m skills.Model) bool { return m.ID == id })
		switch {
		case i < 0:
			t.Errorf("%s: models_server's %s is not a candidate", task, id)
		case !s.Models[i].ServedBy(skills.EndpointLocal):
			t.Errorf("%s: %s does not list the local endpoint", task, id)
		}
	}
}

// catRunRetrieval runs every retrieval model of the skill against the fake
// Wikipedia and SearxNG: each asks its API with the plan's query and
// answers the skill's text.
func catRunRetrieval(t *testing.T, s *skills.Skill) {
	in := newCatInputs(t, s)
	wiki := fakeweb.NewWikipedia(t, fakeweb.Article{Title: "Red fox", Description: "species of fox",
		Extract: "The red fox is the largest of the true foxes."})
	searx := fakeweb.NewSearxNG(t, fakeweb.Page{URL: "https://example.org/fox", Title: "Red fox facts", Content: "Red foxes live in snow."})
	ep := retrieval.New(retrieval.Options{WikipediaURL: wiki.URL, SearxNGURL: searx.URL})
	ctx := catContext(t)
	for _, m := range s.Models {
		if !m.ServedBy(skills.EndpointRetrieval) {
			continue
		}
		if err := ep.Check(ctx, s.Name, m.ID); err != nil {
			t.Fatalf("Check(%s): %v", m.ID, err)
		}
		res, err := ep.Infer(ctx, endpointstest.Request(t, s.Name, m.ID, in.args))
		if err != nil {
			t.Fatalf("Infer(%s): %v", m.ID, err)
		}
		catCheckOutputs(t, s, res, nil)
		if !strings.Contains(res.Text, "Red fox") {
			t.Errorf("%s: text %q lacks the found page", m.ID, res.Text)
		}
	}
	if n, q := len(wiki.Requests()), wiki.Requests()[0].Query.Get("q"); n != 2 || q != "red fox" {
		t.Errorf("Wikipedia: %d requests, q=%q; want a search for the query and a summary", n, q)
	}
	if r := searx.Requests(); len(r) != 1 || r[0].Query.Get("format") != "json" || r[0].Query.Get("q") != "red fox" {
		t.Errorf("SearxNG requests %+v", r)
	}
}
