package fakehf

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flask's stock error pages, which models_server answers with when a route
// or model is unknown.
const (
	flaskNotFound = "<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.</p>\n"
	flaskInternal = "<!doctype html>\n<html lang=en>\n<title>500 Internal Server Error</title>\n<h1>Internal Server Error</h1>\n<p>The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.</p>\n"
	flaskMethod   = "<!doctype html>\n<html lang=en>\n<title>405 Method Not Allowed</title>\n<h1>Method Not Allowed</h1>\n<p>The method is not allowed for the requested URL.</p>\n"
)

// Jarvis is a fake of HuggingGPT's models_server
// (microsoft/JARVIS hugginggpt/server/models_server.py): GET /running,
// GET /status/{model_id} and POST /models/{model_id} with the JSON bodies
// awesome_chat.py sends ({"img_url": path}, {"text": ...},
// {"audio_url": path}). Like the real server it reads input files from local
// paths, writes generated files under its public directory and answers
// {"path": "/images/xxxx.png"}, answers every inference failure with HTTP 200
// and {"error": {"message": ...}}, and answers an unknown model with Flask's
// HTML 500 page.
type Jarvis struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8005.
	URL string

	srv    *httptest.Server
	once   sync.Once
	rec    recorder
	public string

	mu          sync.Mutex
	models      map[string]*JarvisModel
	servePublic bool
	files       int
}

// NewJarvis starts a fake models_server that is closed when the test ends.
// Its public directory is a fresh temporary directory.
func NewJarvis(t testing.TB) *Jarvis {
	t.Helper()
	j := &Jarvis{models: map[string]*JarvisModel{}, public: t.TempDir()}
	for _, d := range []string{"images", "audios", "videos"} {
		if err := os.MkdirAll(filepath.Join(j.public, d), 0o755); err != nil {
			t.Fatalf("fakehf: %v", err)
		}
	}
	j.srv = httptest.NewServer(http.HandlerFunc(j.serve))
	j.URL = j.srv.URL
	t.Cleanup(j.Close)
	return j
}

// Close shuts the server down; later requests fail to connect. It is safe to
// call more than once.
func (j *Jarvis) Close() {
	j.once.Do(func() {
		j.srv.CloseClientConnections()
		j.srv.Close()
	})
}

// PublicDir is the directory the server writes generated files under (the
// real server's hugginggpt/server/public).
func (j *Jarvis) PublicDir() string { return j.public }

// ServePublic makes GET /images/…, /audios/… and /videos/… serve the public
// directory, as a deployment behind a static file server would. The real
// models_server does not serve them (Flask answers 404), which is the
// default.
func (j *Jarvis) ServePublic(on bool) {
	j.mu.Lock()
	j.servePublic = on
	j.mu.Unlock()
}

// Model registers a loaded model for task (a HuggingGPT task name, or a
// ControlNet one such as "canny-control" or "canny-text-to-image"). Models
// that are not registered report {"loaded": false}.
func (j *Jarvis) Model(id, task string) *JarvisModel {
	j.mu.Lock()
	defer j.mu.Unlock()
	if m, ok := j.models[id]; ok {
		m.mu.Lock()
		m.task = task
		m.mu.Unlock()
		return m
	}
	m := &JarvisModel{id: id, task: task}
	j.models[id] = m
	return m
}

// Requests returns every request received so far, in arrival order.
func (j *Jarvis) Requests() []Request { return j.rec.requests() }

// RequestsFor returns the requests that named model.
func (j *Jarvis) RequestsFor(model string) []Request {
	var out []Request
	for _, r := range j.Requests() {
		if r.Model == model {
			out = append(out, r)
		}
	}
	return out
}

// WaitInFlight blocks until at least n requests are being handled at once.
func (j *Jarvis) WaitInFlight(ctx context.Context, n int) error { return j.rec.waitInFlight(ctx, n) }

// JarvisModel is how one model on the fake models_server behaves.
type JarvisModel struct {
	mu       sync.Mutex
	id, task string
	disabled bool
	failMsg  string
	delay    time.Duration
	hold     chan struct{}
	respond  ResponderFunc
	calls    int
}

// Disable makes /status report the model as not loaded while inference
// still runs, as models_server does for its disabled TrOCR models.
func (m *JarvisModel) Disable() *JarvisModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.disabled = true
	return m
}

// Fail makes every inference answer {"error": {"message": msg}} with HTTP
// 200, as models_server does when the pipeline raises.
func (m *JarvisModel) Fail(msg string) *JarvisModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failMsg = msg
	return m
}

// Delay makes every inference take d (less if the client goes away).
func (m *JarvisModel) Delay(d time.Duration) *JarvisModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.delay = d
	return m
}

// Hold makes every inference wait until release is called.
func (m *JarvisModel) Hold() (release func()) {
	ch := make(chan struct{})
	m.mu.Lock()
	m.hold = ch
	m.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// Respond replaces the default answer.
func (m *JarvisModel) Respond(f ResponderFunc) *JarvisModel {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.respond = f
	return m
}

// Calls returns how many inference requests reached the model.
func (m *JarvisModel) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

func writeHTML(w http.ResponseWriter, status int, page string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, page)
}

func (j *Jarvis) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rr := j.rec.begin(r, body)
	sw := &statusWriter{ResponseWriter: w}
	defer func() { j.rec.end(rr, sw.status) }()
	if err != nil {
		writeHTML(sw, http.StatusBadRequest, flaskInternal)
		return
	}
	path := r.URL.Path
	switch {
	case path == "/running":
		if r.Method != http.MethodGet {
			writeHTML(sw, http.StatusMethodNotAllowed, flaskMethod)
			return
		}
		writeJSON(sw, http.StatusOK, map[string]bool{"running": true})
	case strings.HasPrefix(path, "/status/"):
		id := strings.TrimPrefix(path, "/status/")
		j.rec.label(rr, id, "", "")
		if r.Method != http.MethodGet {
			writeHTML(sw, http.StatusMethodNotAllowed, flaskMethod)
			return
		}
		j.mu.Lock()
		m := j.models[id]
		j.mu.Unlock()
		loaded := false
		if m != nil {
			m.mu.Lock()
			loaded = !m.disabled
			m.mu.Unlock()
		}
		writeJSON(sw, http.StatusOK, map[string]bool{"loaded": loaded})
	case strings.HasPrefix(path, "/models/"):
		id := strings.TrimPrefix(path, "/models/")
		j.rec.label(rr, id, "", "")
		if r.Method != http.MethodPost {
			writeHTML(sw, http.StatusMethodNotAllowed, flaskMethod)
			return
		}
		j.mu.Lock()
		m := j.models[id]
		j.mu.Unlock()
		if m == nil {
			// pipes[model_id] raises KeyError outside the try block.
			writeHTML(sw, http.StatusInternalServerError, flaskInternal)
			return
		}
		j.rec.label(rr, "", "", m.taskName())
		j.infer(sw, r, body, m)
	default:
		j.mu.Lock()
		serve := j.servePublic
		j.mu.Unlock()
		if serve && r.Method == http.MethodGet && isPublicPath(path) {
			http.ServeFile(sw, r, filepath.Join(j.public, filepath.FromSlash(filepath.Clean("/"+path))))
			return
		}
		writeHTML(sw, http.StatusNotFound, flaskNotFound)
	}
}

func isPublicPath(p string) bool {
	for _, d := range []string{"/images/", "/audios/", "/videos/"} {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

func (m *JarvisModel) taskName() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.task
}

func (j *Jarvis) infer(w http.ResponseWriter, r *http.Request, body []byte, m *JarvisModel) {
	m.mu.Lock()
	m.calls++
	task, failMsg, delay, hold, respond := m.task, m.failMsg, m.delay, m.hold, m.respond
	m.mu.Unlock()

	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if respond != nil {
		status, ctype, out := respond(r, body)
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		_, _ = w.Write(out)
		return
	}
	if failMsg != "" {
		writeJSON(w, http.StatusOK, jarvisError(failMsg))
		return
	}
	result, err := j.run(m.id, task, r, body)
	if err != nil {
		// models_server logs the exception and answers this fixed message.
		writeJSON(w, http.StatusOK, jarvisError("Error when running the model inference."))
		return
	}
	if result == nil {
		writeJSON(w, http.StatusOK, jarvisError("model not found"))
		return
	}
	writeJSON(w, http.StatusOK, result)
}

func jarvisError(msg string) map[string]any {
	return map[string]any{"error": map[string]string{"message": msg}}
}

// jarvisBody is the union of the fields models_server reads.
type jarvisBody map[string]any

func (b jarvisBody) str(key string) (string, error) {
	v, ok := b[key]
	if !ok {
		return "", fmt.Errorf("KeyError: %q", key)
	}
	s, _ := v.(string)
	return s, nil
}

// text reads a field the server passes on as a string (a prompt, a
// question): a missing key is a KeyError and a JSON null is None, which the
// pipeline fails on — both end in the server's fixed error message.
func (b jarvisBody) text(key string) (string, error) {
	v, ok := b[key]
	if !ok {
		return "", fmt.Errorf("KeyError: %q", key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s is %T, not a string", key, v)
	}
	return s, nil
}

// run does what models_server does for model id, registered for task; a
// nil result means the server has no branch for the model ("model not
// found"). The models models_server.py has code for are answered by id,
// exactly as its models() route does; any other id stands for a model a
// deployment added, answered by task in the same shapes.
func (j *Jarvis) run(id, task string, r *http.Request, body []byte) (any, error) {
	// request.get_json() refuses a body that is not typed JSON, inside the
	// try block: the fixed error message.
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return nil, fmt.Errorf("415 Unsupported Media Type")
	}
	var b jarvisBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	if _, ok := jarvisBranches[id]; ok || strings.HasPrefix(id, "lllyasviel/sd-controlnet-") || strings.HasSuffix(id, "-control") {
		return j.runServed(id, b)
	}
	loadImage := func() (w, h int, err error) {
		p, err := b.str("img_url")
		if err != nil {
			return 0, 0, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return 0, 0, err
		}
		return ImageSize(data)
	}
	switch {
	case strings.HasSuffix(task, "-control"):
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("images", ".png", PNG(w, h))}, nil
	case strings.HasSuffix(task, "-text-to-image"):
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		if _, err := b.str("text"); err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("images", ".png", PNG(w, h))}, nil
	}
	switch task {
	case "image-to-text":
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		if _, err := b.str("text"); err != nil { // blip reads it even when unused
			return nil, err
		}
		return map[string]string{"generated text": fmt.Sprintf("a %dx%d photo of a cat sitting on a sofa", w, h)}, nil
	case "text-to-image":
		text, err := b.str("text")
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("images", ".jpg", jpegOf(min(max(len([]rune(text)), 1), 512), 8))}, nil
	case "text-to-video":
		text, err := b.str("text")
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("videos", ".mp4", MP4(text))}, nil
	case "text-to-speech":
		text, err := b.str("text")
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("audios", ".wav", WAV(160*len([]rune(text)), 16000))}, nil
	case "image-to-image", "depth-estimation", "image-segmentation":
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("images", ".jpg", jpegOf(w, h))}, nil
	case "object-detection":
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		return []detection{
			{Score: 0.998, Label: "cat", Box: box{0, 0, w / 2, h}},
			{Score: 0.871, Label: "remote", Box: box{w / 2, h / 2, w - 1, h - 1}},
		}, nil
	case "visual-question-answering", "document-question-answering":
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		q, err := b.str("text")
		if err != nil {
			return nil, err
		}
		if task == "document-question-answering" {
			return []map[string]any{{"score": 0.87, "answer": fmt.Sprintf("page %dx%d", w, h), "start": 3, "end": 4}}, nil
		}
		return []label2{{Answer: fmt.Sprintf("a cat (%dx%d image, asked %q)", w, h, q), Score: 0.93}}, nil
	case "mask-generation":
		// Not in models_server.py: the request shape Chorus documents for
		// a deployment that adds SAM — {"img_url", "points": [[x, y]],
		// "boxes": [[x0, y0, x1, y1]]} — answered like its other image
		// models, the mask saved under public/.
		w, h, err := loadImage()
		if err != nil {
			return nil, err
		}
		region := image.Rect(0, 0, w/2, h/2)
		if bs, ok := b["boxes"].([]any); ok && len(bs) > 0 {
			if c, ok := bs[0].([]any); ok && len(c) == 4 {
				f := func(i int) int { v, _ := c[i].(float64); return int(v) }
				region = image.Rect(f(0), f(1), f(2), f(3)).Intersect(image.Rect(0, 0, w, h))
			}
		} else if v, ok := b["point"]; ok {
			return nil, fmt.Errorf("unexpected field point=%v: send points: [[x, y]]", v)
		}
		return map[string]any{"path": j.save("images", ".png", maskPNG(w, h, region)), "score": 0.95}, nil
	case "automatic-speech-recognition", "audio-to-audio":
		p, err := b.str("audio_url")
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if task == "automatic-speech-recognition" {
			return map[string]string{"text": "hello from " + audioSummary(data)}, nil
		}
		n, rate, err := WAVInfo(data)
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": j.save("audios", ".wav", WAV(n, rate))}, nil
	}
	return nil, nil
}

// save writes a generated file under the public directory and returns its
// public path, "/images/000a.png".
func (j *Jarvis) save(dir, ext string, data []byte) string {
	j.mu.Lock()
	j.files++
	name := fmt.Sprintf("%04x%s", j.files, ext)
	j.mu.Unlock()
	// A failed write surfaces to the client as a missing file, which is
	// what a full disk on the real server looks like too.
	_ = os.WriteFile(filepath.Join(j.public, dir, name), data, 0o644)
	return "/" + dir + "/" + name
}

// JarvisServed maps every model models_server.py loads (local_deployment
// "full", which includes "standard" and "minimal") to the Chorus task it
// serves: the ids HuggingGPT's local server answers on
// POST /models/{id}. The catalog must carry each under its task.
var JarvisServed = map[string]string{
	"nlpconnect/vit-gpt2-image-captioning":     "image-to-text",
	"ydshieh/vit-gpt2-coco-en":                 "image-to-text",
	"damo-vilab/text-to-video-ms-1.7b":         "text-to-video",
	"runwayml/stable-diffusion-v1-5":           "text-to-image",
	"lambdalabs/sd-image-variations-diffusers": "image-to-image",
	"JorisCos/DCCRNet_Libri1Mix_enhsingle_16k": "audio-to-audio",
	"microsoft/speecht5_vc":                    "audio-to-audio",
	"espnet/kan-bayashi_ljspeech_vits":         "text-to-speech",
	"openai/whisper-base":                      "automatic-speech-recognition",
	"microsoft/speecht5_asr":                   "automatic-speech-recognition",
	"facebook/maskformer-swin-base-coco":       "image-segmentation",
	"facebook/detr-resnet-50-panoptic":         "image-segmentation",
	"facebook/detr-resnet-101":                 "object-detection",
	"google/owlvit-base-patch32":               "zero-shot-object-detection",
	"Intel/dpt-large":                          "depth-estimation",
	// Loaded, but models() tests model_id == "Intel/dpt-hybrid-midas" and
	// model_id == "Intel/dpt-large" at once, so no branch ever runs it:
	// the server answers "model not found".
	"Intel/dpt-hybrid-midas":            "depth-estimation",
	"impira/layoutlm-document-qa":       "document-question-answering",
	"dandelin/vilt-b32-finetuned-vqa":   "visual-question-answering",
	"openpose-control":                  "openpose-control",
	"mlsd-control":                      "mlsd-control",
	"hed-control":                       "hed-control",
	"scribble-control":                  "scribble-control",
	"midas-control":                     "depth-control",
	"canny-control":                     "canny-control",
	"lllyasviel/sd-controlnet-canny":    "canny-text-to-image",
	"lllyasviel/sd-controlnet-depth":    "depth-text-to-image",
	"lllyasviel/sd-controlnet-hed":      "hed-text-to-image",
	"lllyasviel/sd-controlnet-mlsd":     "mlsd-text-to-image",
	"lllyasviel/sd-controlnet-openpose": "openpose-text-to-image",
	"lllyasviel/sd-controlnet-scribble": "scribble-text-to-image",
	"lllyasviel/sd-controlnet-seg":      "seg-text-to-image",
}

// jarvisBranches are the model ids models() has a branch for, besides the
// ControlNet families matched by prefix and suffix: the served models and
// those whose loading is commented out in load_pipes (BLIP, TrOCR,
// SpeechT5 TTS, MaskFormer ADE), which a deployment may enable.
var jarvisBranches = map[string]bool{
	"damo-vilab/text-to-video-ms-1.7b": true, "lambdalabs/sd-image-variations-diffusers": true,
	"Salesforce/blip-image-captioning-large": true, "ydshieh/vit-gpt2-coco-en": true,
	"nlpconnect/vit-gpt2-image-captioning": true, "microsoft/trocr-base-printed": true,
	"microsoft/trocr-base-handwritten": true, "runwayml/stable-diffusion-v1-5": true,
	"google/owlvit-base-patch32": true, "facebook/detr-resnet-101": true,
	"dandelin/vilt-b32-finetuned-vqa": true, "impira/layoutlm-document-qa": true,
	"Intel/dpt-large": true, "Intel/dpt-hybrid-midas": true,
	"espnet/kan-bayashi_ljspeech_vits": true, "microsoft/speecht5_tts": true,
	"openai/whisper-base": true, "microsoft/speecht5_asr": true,
	"JorisCos/DCCRNet_Libri1Mix_enhsingle_16k": true, "microsoft/speecht5_vc": true,
	"facebook/detr-resnet-50-panoptic": true, "facebook/maskformer-swin-base-coco": true,
	"facebook/maskformer-swin-large-ade": true,
}

// JarvisOpenTypes is the fixed label list models_server passes to both of
// its detectors (OWL-ViT as candidate_labels, DETR ignoring it): whatever
// the request says, these are the only classes it can answer.
var JarvisOpenTypes = []string{"cat", "couch", "person", "car", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard", "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch", "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone", "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear", "hair drier", "toothbrush", "traffic light", "fire hydrant", "stop sign", "parking meter", "bench", "bird"}

// runServed is models() for the ids models_server.py has code for: the
// fields each branch reads (request.get_json()[…]) and the answer it
// builds, generated files saved under public/ and answered as
// {"path": "/images/xxxx.png"}.
func (j *Jarvis) runServed(id string, b jarvisBody) (any, error) {
	image := func() (w, h int, err error) {
		p, err := b.text("img_url")
		if err != nil {
			return 0, 0, err
		}
		data, err := os.ReadFile(p) // load_image(img_url)
		if err != nil {
			return 0, 0, err
		}
		return ImageSize(data)
	}
	audio := func() ([]byte, error) {
		p, err := b.text("audio_url")
		if err != nil {
			return nil, err
		}
		return os.ReadFile(p) // torchaudio.load / the pipeline's reader
	}
	path := func(dir, ext string, data []byte) map[string]string {
		return map[string]string{"path": j.save(dir, ext, data)}
	}
	switch {
	case id == "damo-vilab/text-to-video-ms-1.7b":
		prompt, err := b.text("text")
		if err != nil {
			return nil, err
		}
		return path("videos", ".mp4", MP4(prompt)), nil
	case strings.HasPrefix(id, "lllyasviel/sd-controlnet-"):
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		if _, err := b.text("text"); err != nil {
			return nil, err
		}
		return path("images", ".png", PNG(w, h)), nil
	case strings.HasSuffix(id, "-control"):
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return path("images", ".png", PNG(w, h)), nil
	case id == "lambdalabs/sd-image-variations-diffusers", id == "Intel/dpt-large",
		id == "facebook/detr-resnet-50-panoptic", id == "facebook/maskformer-swin-base-coco", id == "facebook/maskformer-swin-large-ade":
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return path("images", ".jpg", jpegOf(w, h)), nil
	case id == "Salesforce/blip-image-captioning-large":
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		if _, ok := b["text"]; !ok { // read, though unused
			return nil, fmt.Errorf("KeyError: \"text\"")
		}
		return map[string]string{"generated text": fmt.Sprintf("a %dx%d photo of a cat sitting on a sofa", w, h)}, nil
	case id == "ydshieh/vit-gpt2-coco-en", id == "nlpconnect/vit-gpt2-image-captioning":
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return map[string]string{"generated text": fmt.Sprintf("a %dx%d photo of a cat sitting on a sofa", w, h)}, nil
	case id == "microsoft/trocr-base-printed", id == "microsoft/trocr-base-handwritten":
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return map[string]string{"generated text": fmt.Sprintf("TOTAL %d.%02d", w, h)}, nil
	case id == "runwayml/stable-diffusion-v1-5":
		prompt, err := b.text("text")
		if err != nil {
			return nil, err
		}
		return path("images", ".jpg", jpegOf(min(max(len([]rune(prompt)), 1), 512), 8)), nil
	case id == "google/owlvit-base-patch32", id == "facebook/detr-resnet-101":
		// pipe(img_url, candidate_labels=open_types): nothing else in the
		// request is read.
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return []detection{
			{Score: 0.998, Label: "cat", Box: box{0, 0, w / 2, h}},
			{Score: 0.871, Label: "remote", Box: box{w / 2, h / 2, w - 1, h - 1}},
		}, nil
	case id == "dandelin/vilt-b32-finetuned-vqa":
		q, err := b.text("text")
		if err != nil {
			return nil, err
		}
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return []label2{{Answer: fmt.Sprintf("a cat (%dx%d image, asked %q)", w, h, q), Score: 0.93}}, nil
	case id == "impira/layoutlm-document-qa":
		if _, err := b.text("text"); err != nil {
			return nil, err
		}
		w, h, err := image()
		if err != nil {
			return nil, err
		}
		return []map[string]any{{"score": 0.87, "answer": fmt.Sprintf("page %dx%d", w, h), "start": 3, "end": 4}}, nil
	case id == "espnet/kan-bayashi_ljspeech_vits", id == "microsoft/speecht5_tts":
		text, err := b.text("text")
		if err != nil {
			return nil, err
		}
		return path("audios", ".wav", WAV(160*len([]rune(text)), 16000)), nil
	case id == "openai/whisper-base", id == "microsoft/speecht5_asr":
		data, err := audio()
		if err != nil {
			return nil, err
		}
		return map[string]string{"text": "hello from " + audioSummary(data)}, nil
	case id == "JorisCos/DCCRNet_Libri1Mix_enhsingle_16k", id == "microsoft/speecht5_vc":
		data, err := audio()
		if err != nil {
			return nil, err
		}
		n, rate, err := WAVInfo(data)
		if err != nil {
			return nil, err
		}
		return path("audios", ".wav", WAV(n, rate)), nil
	}
	// Intel/dpt-hybrid-midas: loaded, no branch runs it.
	return nil, nil
}
