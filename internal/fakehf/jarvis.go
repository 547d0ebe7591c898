package fakehf

import (
	"context"
	"encoding/json"
	"fmt"
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
	result, err := j.run(task, r, body)
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

// run does what models_server does for a model of task; a nil result means
// the server has no branch for the model ("model not found").
func (j *Jarvis) run(task string, r *http.Request, body []byte) (any, error) {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return nil, fmt.Errorf("415 Unsupported Media Type")
	}
	var b jarvisBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
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
