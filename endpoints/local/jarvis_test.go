package local

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
)

// TestJarvisTasks runs models_server's tasks through the fake and checks the
// JSON body it received and the Result.
func TestJarvisTasks(t *testing.T) {
	f := testkit.WriteInputs(t)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relPNG, err := filepath.Rel(cwd, f.PNG)
	if err != nil {
		t.Fatal(err)
	}
	// The server is sent the checked files' real paths.
	png, errPNG := filepath.EvalSymlinks(f.PNG)
	wav, errWAV := filepath.EvalSymlinks(f.WAV)
	if errPNG != nil || errWAV != nil {
		t.Fatal(errPNG, errWAV)
	}
	img := `{"img_url":"` + png + `"}`
	imgText := func(text string) string {
		if text == "" {
			return `{"img_url":"` + png + `","text":null}`
		}
		return `{"img_url":"` + png + `","text":"` + text + `"}`
	}
	aud := `{"audio_url":"` + wav + `"}`
	caption := endpointstest.WantText("a 40x30 photo of a cat sitting on a sofa")
	control := endpointstest.WantBlob("image/png", testkit.ImageSize(40, 30))
	sameSize := endpointstest.WantBlob("image/jpeg", testkit.ImageSize(40, 30))
	// One row per model id models_server.py answers (fakehf.JarvisServed,
	// checked below to be all here), plus the branches whose loading is
	// commented out there; body is what awesome_chat.py sends and the
	// branch reads, result what Chorus makes of the branch's answer.
	cases := []struct {
		model, task string
		args        map[string]string
		body        string // the JSON models_server must receive
		result      func(*testing.T, endpoints.Result)
	}{
		{"Salesforce/blip-image-captioning-large", "image-to-text", map[string]string{"image": f.PNG}, imgText(""), caption},
		{"nlpconnect/vit-gpt2-image-captioning", "image-to-text", map[string]string{"image": relPNG}, imgText(""), caption},
		{"ydshieh/vit-gpt2-coco-en", "image-to-text", map[string]string{"image": f.PNG}, imgText(""), caption},
		{"microsoft/trocr-base-printed", "ocr", map[string]string{"image": f.PNG}, imgText(""), endpointstest.WantText("TOTAL 40.30")},
		{"runwayml/stable-diffusion-v1-5", "text-to-image", map[string]string{"text": "a red fox"},
			`{"text":"a red fox"}`, endpointstest.WantBlob("image/jpeg", testkit.ImageSize(9, 8))},
		{"espnet/kan-bayashi_ljspeech_vits", "text-to-speech", map[string]string{"text": "hello"},
			`{"text":"hello"}`, func(t *testing.T, r endpoints.Result) {
				endpointstest.WantBlob("audio/wav", func(t *testing.T, b []byte) {
					if n, _, err := fakehf.WAVInfo(b); err != nil || n != 5*160 {
						t.Errorf("WAV: %d samples, %v", n, err)
					}
				})(t, r)
				if r.Text != "" {
					t.Errorf("Text = %q, want none", r.Text)
				}
			}},
		{"damo-vilab/text-to-video-ms-1.7b", "text-to-video", map[string]string{"text": "a dancing fox"},
			`{"text":"a dancing fox"}`, endpointstest.WantBlob("video/mp4", nil)},
		{"lllyasviel/sd-controlnet-canny", "canny-text-to-image", map[string]string{"image": f.PNG, "text": "a castle"}, imgText("a castle"), control},
		{"lllyasviel/sd-controlnet-depth", "depth-text-to-image", map[string]string{"image": f.PNG, "text": "a castle"}, imgText("a castle"), control},
		{"lllyasviel/sd-controlnet-hed", "hed-text-to-image", map[string]string{"image": f.PNG, "text": "a castle"}, imgText("a castle"), control},
		{"lllyasviel/sd-controlnet-mlsd", "mlsd-text-to-image", map[string]string{"image": f.PNG, "text": "a castle"}, imgText("a castle"), control},
		{"lllyasviel/sd-controlnet-openpose", "openpose-text-to-image", map[string]string{"image": f.PNG, "text": "a dancer"}, imgText("a dancer"), control},
		{"lllyasviel/sd-controlnet-scribble", "scribble-text-to-image", map[string]string{"image": f.PNG, "text": "a house"}, imgText("a house"), control},
		{"lllyasviel/sd-controlnet-seg", "seg-text-to-image", map[string]string{"image": f.PNG, "text": "a room"}, imgText("a room"), control},
		{"canny-control", "canny-control", map[string]string{"image": f.PNG}, img, control},
		{"openpose-control", "openpose-control", map[string]string{"image": f.PNG}, img, control},
		{"mlsd-control", "mlsd-control", map[string]string{"image": f.PNG}, img, control},
		{"hed-control", "hed-control", map[string]string{"image": f.PNG}, img, control},
		{"scribble-control", "scribble-control", map[string]string{"image": f.PNG}, img, control},
		{"midas-control", "depth-control", map[string]string{"image": f.PNG}, img, control},
		{"facebook/detr-resnet-101", "object-detection", map[string]string{"image": f.PNG},
			img, endpointstest.WantText("2 objects: cat (1.00) at [0,0,20,30], remote (0.87) at [20,15,39,29]")},
		// models_server's OWL-ViT reads only the image and searches its
		// fixed COCO list: the labels are applied to its answer.
		{"google/owlvit-base-patch32", "zero-shot-object-detection", map[string]string{"image": f.PNG, "labels": "the cats, a red umbrella"},
			img, endpointstest.WantText("1 object: cat (1.00) at [0,0,20,30]")},
		{"dandelin/vilt-b32-finetuned-vqa", "visual-question-answering", map[string]string{"image": f.PNG, "text": "what?"},
			imgText("what?"), endpointstest.WantText(`a cat (40x30 image, asked "what?") (0.93)`)},
		{"impira/layoutlm-document-qa", "document-question-answering", map[string]string{"image": f.PNG, "text": "total?"},
			imgText("total?"), endpointstest.WantText("page 40x30 (0.87)")},
		{"Intel/dpt-large", "depth-estimation", map[string]string{"image": f.PNG}, img, sameSize},
		{"facebook/detr-resnet-50-panoptic", "image-segmentation", map[string]string{"image": f.PNG}, img, sameSize},
		{"facebook/maskformer-swin-base-coco", "image-segmentation", map[string]string{"image": f.PNG}, img, sameSize},
		{"lambdalabs/sd-image-variations-diffusers", "image-to-image", map[string]string{"image": f.PNG}, img, sameSize},
		{"openai/whisper-base", "automatic-speech-recognition", map[string]string{"audio": f.WAV}, aud, endpointstest.WantText("hello from 0.50 seconds of audio")},
		{"microsoft/speecht5_asr", "automatic-speech-recognition", map[string]string{"audio": f.WAV}, aud, endpointstest.WantText("hello from 0.50 seconds of audio")},
		{"JorisCos/DCCRNet_Libri1Mix_enhsingle_16k", "audio-to-audio", map[string]string{"audio": f.WAV}, aud, endpointstest.WantBlob("audio/wav", nil)},
		{"microsoft/speecht5_vc", "audio-to-audio", map[string]string{"audio": f.WAV}, aud, endpointstest.WantBlob("audio/wav", nil)},
		// Not a models_server model: SAM on a deployment that adds it,
		// sent the documented shape (visual prompts as numbers).
		{"facebook/sam-vit-base", "mask-generation", map[string]string{"image": f.PNG, "box": "4,3,30,20", "point": "10,12"},
			`{"img_url":"` + png + `","points":[[10,12]],"boxes":[[4,3,30,20]]}`, endpointstest.WantBlob("image/png", testkit.ImageSize(40, 30))},
	}
	covered := map[string]bool{
		// Loaded by models_server, but no branch of models() runs it
		// (TestJarvisDeadBranch).
		"Intel/dpt-hybrid-midas": true,
	}
	for _, tc := range cases {
		covered[tc.model] = true
		if want, ok := fakehf.JarvisServed[tc.model]; ok && want != tc.task {
			t.Errorf("%s is served for %s, the table runs it as %s", tc.model, want, tc.task)
		}
	}
	for id := range fakehf.JarvisServed {
		if !covered[id] {
			t.Errorf("models_server serves %s, which the table does not replay", id)
		}
	}
	j := fakehf.NewJarvis(t)
	ep := New(Options{URL: j.URL, Protocol: ProtocolJarvis, PublicDir: j.PublicDir()})
	for _, tc := range cases {
		t.Run(tc.task+"/"+tc.model, func(t *testing.T) {
			j.Model(tc.model, tc.task)
			if err := ep.Check(context.Background(), tc.task, tc.model); err != nil {
				t.Fatalf("Check: %v", err)
			}
			res, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: tc.task, Model: tc.model, Args: tc.args}))
			if err != nil {
				t.Fatalf("Infer: %v", err)
			}
			var posts []fakehf.Request
			for _, r := range j.RequestsFor(tc.model) {
				if r.Method == http.MethodPost {
					posts = append(posts, r)
				}
			}
			if len(posts) == 0 {
				t.Fatal("no POST /models request")
			}
			last := posts[len(posts)-1]
			if last.Path != "/models/"+tc.model || last.Headers.Get("Content-Type") != "application/json" {
				t.Errorf("POST %s (%s)", last.Path, last.Headers.Get("Content-Type"))
			}
			var got, want any
			if err := json.Unmarshal(last.Body, &got); err != nil {
				t.Fatalf("body %s: %v", last.Body, err)
			}
			_ = json.Unmarshal([]byte(tc.body), &want)
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if !bytes.Equal(g, w) {
				t.Errorf("body = %s, want %s", g, w)
			}
			tc.result(t, res)
		})
	}
}

func TestJarvisFilesOverHTTP(t *testing.T) {
	j := fakehf.NewJarvis(t)
	j.Model("runwayml/stable-diffusion-v1-5", "text-to-image")
	req := endpoints.Request{Task: "text-to-image", Model: "runwayml/stable-diffusion-v1-5", Args: map[string]string{"text": "abc"}}

	// Without public_dir, and a server that does not serve its files (the
	// real models_server), the error names the setting.
	ep := New(Options{URL: j.URL})
	_, err := ep.Infer(context.Background(), req)
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "local.public_dir") || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("err = %v, want ErrUnavailable naming local.public_dir", err)
	}
	// Behind a static file server the file is fetched from {URL}{path}.
	j.ServePublic(true)
	res, err := ep.Infer(context.Background(), req)
	if err != nil {
		t.Fatalf("Infer: %v", err)
	}
	endpointstest.WantBlob("image/jpeg", testkit.ImageSize(3, 8))(t, res)
	var fetched bool
	for _, r := range j.Requests() {
		fetched = fetched || (r.Method == http.MethodGet && strings.HasPrefix(r.Path, "/images/"))
	}
	if !fetched {
		t.Error("the file was not fetched over HTTP")
	}
}

func TestJarvisAnswers(t *testing.T) {
	f := testkit.WriteInputs(t)
	j := fakehf.NewJarvis(t)
	ep := New(Options{URL: j.URL, PublicDir: j.PublicDir()})
	respond := func(body string) fakehf.ResponderFunc {
		return func(*http.Request, []byte) (int, string, []byte) { return 200, "application/json", []byte(body) }
	}
	if err := os.WriteFile(filepath.Join(j.PublicDir(), "images", "boxes.png"), fakehf.PNG(5, 5), 0o644); err != nil {
		t.Fatal(err)
	}
	j.Model("m/annotated", "object-detection").Respond(respond(
		`{"generated image": "/images/boxes.png", "predicted": [{"score": 0.5, "label": "dog", "box": {"xmin": 1, "ymin": 2, "xmax": 3, "ymax": 4}}]}`))
	res, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "object-detection", Model: "m/annotated", Args: map[string]string{"image": f.PNG}}))
	if err != nil || res.Text != "1 object: dog (0.50) at [1,2,3,4]" || len(res.Blobs) != 1 || !json.Valid(res.Data) {
		t.Errorf("awesome_chat-style detection: %v, %q, %d blobs", err, res.Text, len(res.Blobs))
	}
	j.Model("m/traversal", "text-to-image").Respond(respond(`{"path": "/../../../../etc/hostname"}`))
	if _, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/traversal", Args: map[string]string{"text": "x"}}); !errors.Is(err, endpoints.ErrUnavailable) {
		t.Errorf("a path outside the public directory was read: %v", err)
	}

	// A server that answers an absolute path outside any public
	// directory names a file Chorus was never given: it is not read.
	j.Model("m/abs", "text-to-image").Respond(respond(`{"path": "` + f.PNG + `"}`))
	res, err = New(Options{URL: j.URL}).Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/abs", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || len(res.Blobs) != 0 || !strings.Contains(err.Error(), "local.public_dir") {
		t.Fatalf("absolute path answer: %v, %d blobs; want it refused, naming local.public_dir", err, len(res.Blobs))
	}

	cases := []struct {
		model, task string
		setup       func(*fakehf.JarvisModel)
		args        map[string]string
		is          error
		want        string
	}{
		{"m/fails", "image-to-text", func(m *fakehf.JarvisModel) {}, map[string]string{"image": "/no/such.png"},
			endpoints.ErrBadInput, "argument image (/no/such.png) was not given as a file this turn may read"},
		{"m/fails2", "image-to-text", func(m *fakehf.JarvisModel) { m.Fail("Error when running the model inference.") },
			map[string]string{"image": f.PNG}, endpoints.ErrUnavailable, "Error when running the model inference."},
		{"m/nlp", "summarization", func(m *fakehf.JarvisModel) {}, map[string]string{"text": "a. b."},
			endpoints.ErrUnavailable, "no inference code"},
		{"m/html", "image-to-text", func(m *fakehf.JarvisModel) {
			m.Respond(func(*http.Request, []byte) (int, string, []byte) {
				return 200, "text/html", []byte("<html>oops</html>")
			})
		}, map[string]string{"image": f.PNG}, endpoints.ErrUnavailable, "other than JSON"},
		{"m/vqa", "visual-question-answering", func(m *fakehf.JarvisModel) {}, map[string]string{"image": f.PNG},
			endpoints.ErrBadInput, `"text" argument`},
		{"m/x", "time-travel", func(m *fakehf.JarvisModel) {}, map[string]string{"text": "x"},
			endpoints.ErrUnsupported, "time-travel"},
	}
	for _, tc := range cases {
		tc.setup(j.Model(tc.model, tc.task))
		_, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: tc.task, Model: tc.model, Args: tc.args}))
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %v mentioning %q", tc.model, err, tc.is, tc.want)
		}
	}
	for _, model := range []string{"m/fails", "m/vqa"} {
		if n := len(j.RequestsFor(model)); n != 0 {
			t.Errorf("%s: %d requests sent for bad input", model, n)
		}
	}
	// A model the server never loaded: Flask's HTML 500.
	_, err = ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "image-to-text", Model: "never/loaded", Args: map[string]string{"image": f.PNG}}))
	var he *endpoints.HTTPError
	if !errors.Is(err, endpoints.ErrUnavailable) || !errors.As(err, &he) || he.Status != 500 || !strings.Contains(err.Error(), "not loaded") {
		t.Errorf("unloaded model: %v", err)
	}
}

func TestJarvisCancel(t *testing.T) {
	j := fakehf.NewJarvis(t)
	release := j.Model("runwayml/stable-diffusion-v1-5", "text-to-image").Hold()
	defer release()
	ep := New(Options{URL: j.URL, PublicDir: j.PublicDir()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ep.Infer(ctx, endpoints.Request{Task: "text-to-image", Model: "runwayml/stable-diffusion-v1-5", Args: map[string]string{"text": "x"}})
		done <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := j.WaitInFlight(wctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, endpoints.ErrUnreachable) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Infer did not return after cancellation")
	}
}

// TestJarvisDeadBranch: models_server loads Intel/dpt-hybrid-midas but its
// branch tests two ids at once and never runs; the answer is "model not
// found", which Chorus reports as that server lacking code for the model.
func TestJarvisDeadBranch(t *testing.T) {
	f := testkit.WriteInputs(t)
	j := fakehf.NewJarvis(t)
	j.Model("Intel/dpt-hybrid-midas", "depth-estimation")
	ep := New(Options{URL: j.URL, PublicDir: j.PublicDir()})
	_, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "depth-estimation", Model: "Intel/dpt-hybrid-midas", Args: map[string]string{"image": f.PNG}}))
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "no inference code") {
		t.Fatalf("err = %v, want ErrUnavailable: no inference code", err)
	}
}

// TestJarvisZeroShotLabels: labels no COCO class matches are refused
// before the call (another candidate can ground them), and the classes
// named are found through plurals and synonyms.
func TestJarvisZeroShotLabels(t *testing.T) {
	f := testkit.WriteInputs(t)
	j := fakehf.NewJarvis(t)
	j.Model("google/owlvit-base-patch32", "zero-shot-object-detection")
	ep := New(Options{URL: j.URL, PublicDir: j.PublicDir()})
	_, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "zero-shot-object-detection",
		Model: "google/owlvit-base-patch32", Args: map[string]string{"image": f.PNG, "labels": "giant squid"}}))
	if !errors.Is(err, endpoints.ErrUnavailable) || errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), "COCO") {
		t.Fatalf("err = %v, want ErrUnavailable explaining the fixed COCO classes", err)
	}
	if n := len(j.RequestsFor("google/owlvit-base-patch32")); n != 0 {
		t.Errorf("%d requests sent for labels the server cannot find", n)
	}
	for labels, want := range map[string]string{
		"two dogs, the benches":   "dog,bench",
		"a man on a sofa":         "person,couch",
		"Red Umbrella":            "umbrella",
		"the remote control, cat": "remote,cat",
		"glass":                   "",
	} {
		if got := strings.Join(jarvisClasses(labels), ","); got != want {
			t.Errorf("jarvisClasses(%q) = %q, want %q", labels, got, want)
		}
	}
}
