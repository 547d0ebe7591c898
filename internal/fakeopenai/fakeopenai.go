// Package fakeopenai is for tests only: a protocol-faithful fake of an
// OpenAI-compatible server (what LocalAI, vLLM, llama.cpp's server,
// speaches and Kokoro-FastAPI speak). It serves GET /v1/models,
// POST /v1/images/generations, POST /v1/images/edits (multipart),
// POST /v1/audio/transcriptions (multipart), POST /v1/audio/speech,
// POST /v1/chat/completions (text and image_url parts) and
// POST /v1/embeddings, checks the bearer
// key, parses every body as the real servers do and refuses what they
// refuse with OpenAI's error shape ({"error":{"message","type","code"}}),
// and answers with outputs derived from the input — an image as wide as
// the prompt is long, an edit the size of the uploaded image, a
// transcript naming the uploaded file's size, a WAV whose length encodes
// the text, a vision answer naming the image's size, embeddings that
// count each word's letters (the same words, the same vector) — so a test
// can tell its input arrived.
//
// Controller (controller.go) is the same protocol as a serving engine that
// runs Chorus's controller model meets it — vLLM or llama-server: streamed
// chat completions, JSON schemas honoured or refused in the engine's own
// words, usage with cached prompt tokens, and slots.
package fakeopenai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chorusai/chorus/internal/fakehf"
)

// Request is one request the fake received.
type Request struct {
	Method, Path string
	// Model is the model the body named.
	Model string
	// Fields are the form fields of a multipart request, or the top-level
	// string fields of a JSON one (an object field, such as a chat's
	// response_format, by its "type").
	Fields map[string]string
	// Files are the uploaded files of a multipart request by field name,
	// with their file names.
	Files map[string]string
	// Images counts the image_url parts of a chat request.
	Images int
	// Auth is the Authorization header.
	Auth string
}

// Server is the fake. Configure it before the code under test calls it.
type Server struct {
	// URL is the server's base URL, without /v1.
	URL string

	mu       sync.Mutex
	key      string
	models   []string
	noList   bool
	urls     bool
	fail     map[string]failure
	reqs     []Request
	voices   []string
	speechMT string
	replies  map[string]string
}

type failure struct {
	status int
	body   string
	times  int
}

// New starts a fake serving models, closed when the test ends.
func New(t testing.TB, models ...string) *Server {
	s := &Server{models: models, fail: map[string]failure{}, voices: []string{"alloy", "af_heart"}, speechMT: "audio/wav"}
	ts := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Reply makes chat completions of model answer content, whatever was
// asked (the fake otherwise echoes the user's text or describes the image).
func (s *Server) Reply(model, content string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replies == nil {
		s.replies = map[string]string{}
	}
	s.replies[model] = content
}

// RequireKey makes every route demand "Authorization: Bearer key".
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// NoModelList makes GET /v1/models answer 404, as speech servers without
// a model list do.
func (s *Server) NoModelList() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noList = true
}

// AnswerURLs makes the image routes answer {"url": …} on the server's own
// /generated-images/ path, as LocalAI does, instead of b64_json.
func (s *Server) AnswerURLs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = true
}

// Fail makes the next times requests to path (every one when times is
// negative) answer status with body, or with an OpenAI error body when
// body is "".
func (s *Server) Fail(path string, status, times int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[path] = failure{status: status, body: body, times: times}
}

// Requests returns the requests received so far to path ("" for all).
func (s *Server) Requests(path string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.reqs {
		if path == "" || r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// apiError writes OpenAI's error body.
func apiError(w http.ResponseWriter, status int, typ, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// maxBody bounds what the fake reads, as real servers bound uploads.
const maxBody = 64 << 20

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	rec := Request{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Fields: map[string]string{}, Files: map[string]string{}}
	defer func() {
		s.mu.Lock()
		s.reqs = append(s.reqs, rec)
		s.mu.Unlock()
	}()
	s.mu.Lock()
	key, f := s.key, s.fail[r.URL.Path]
	failing := f.status != 0 && f.times != 0
	if f.times > 0 {
		s.fail[r.URL.Path] = failure{status: f.status, body: f.body, times: f.times - 1}
	}
	s.mu.Unlock()
	if key != "" && rec.Auth != "Bearer "+key {
		apiError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
		return
	}
	if failing {
		if f.body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.status)
			_, _ = io.WriteString(w, f.body)
			return
		}
		apiError(w, f.status, "server_error", "", fmt.Sprintf("scripted failure %d", f.status))
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.listModels(w)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/generated-images/"):
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(fakehf.PNG(imageWidth(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/generated-images/"), ".png")), 8))
	case r.Method != http.MethodPost:
		apiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path)
	case r.URL.Path == "/v1/images/generations":
		s.generations(w, r, &rec)
	case r.URL.Path == "/v1/images/edits":
		s.edits(w, r, &rec)
	case r.URL.Path == "/v1/audio/transcriptions":
		s.transcriptions(w, r, &rec)
	case r.URL.Path == "/v1/audio/speech":
		s.speech(w, r, &rec)
	case r.URL.Path == "/v1/chat/completions":
		s.chat(w, r, &rec)
	case r.URL.Path == "/v1/embeddings":
		s.embeddings(w, r, &rec)
	default:
		apiError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: POST "+r.URL.Path)
	}
}

func (s *Server) listModels(w http.ResponseWriter) {
	s.mu.Lock()
	noList, models := s.noList, slices.Clone(s.models)
	s.mu.Unlock()
	if noList {
		http.NotFound(w, nil)
		return
	}
	data := make([]map[string]any, 0, len(models))
	for _, m := range models {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 1700000000, "owned_by": "fake"})
	}
	writeJSON(w, map[string]any{"object": "list", "data": data})
}

// knownModel checks the body's model against the list, as vLLM and
// LocalAI do: 404 model_not_found otherwise.
func (s *Server) knownModel(w http.ResponseWriter, model string) bool {
	s.mu.Lock()
	ok := slices.Contains(s.models, model)
	s.mu.Unlock()
	if model == "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "you must provide a model parameter")
		return false
	}
	if !ok {
		apiError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", fmt.Sprintf("The model `%s` does not exist.", model))
		return false
	}
	return true
}

// readJSON decodes a JSON object body, refusing another content type.
func readJSON(w http.ResponseWriter, r *http.Request, rec *Request) (map[string]any, bool) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var in map[string]any
	if mt != "application/json" || json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&in) != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_json", "We could not parse the JSON body of your request.")
		return nil, false
	}
	for k, v := range in {
		switch v := v.(type) {
		case string:
			rec.Fields[k] = v
		case map[string]any: // response_format as an object: its type
			if typ, ok := v["type"].(string); ok {
				rec.Fields[k] = typ
			}
		}
	}
	rec.Model = rec.Fields["model"]
	return in, true
}

// readForm parses a multipart form as the real servers do, refusing
// another content type.
func readForm(w http.ResponseWriter, r *http.Request, rec *Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if mt != "multipart/form-data" || r.ParseMultipartForm(maxBody) != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_form", "Expected a multipart/form-data body.")
		return false
	}
	for k, v := range r.MultipartForm.Value {
		rec.Fields[k] = v[0]
	}
	for k, v := range r.MultipartForm.File {
		rec.Files[k] = v[0].Filename
	}
	rec.Model = rec.Fields["model"]
	return true
}

// formFile reads the uploaded file of field.
func formFile(r *http.Request, field string) ([]byte, bool) {
	fh := r.MultipartForm.File[field]
	if len(fh) == 0 {
		return nil, false
	}
	f, err := fh[0].Open()
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	return b, err == nil && len(b) > 0
}

// imageWidth is the width of the fake's image for a prompt.
func imageWidth(prompt string) int { return min(max(len([]rune(prompt)), 1), 512) }

// images answers an image route with one image of w×h.
func (s *Server) images(w http.ResponseWriter, format string, width, height int, tag string) {
	s.mu.Lock()
	urls := s.urls
	s.mu.Unlock()
	if urls || format == "url" {
		writeJSON(w, map[string]any{"created": 1700000000, "data": []map[string]any{{"url": s.URL + "/generated-images/" + strings.Repeat("x", width) + ".png"}}})
		return
	}
	writeJSON(w, map[string]any{"created": 1700000000, "data": []map[string]any{{"b64_json": base64.StdEncoding.EncodeToString(fakehf.PNG(width, height)), "revised_prompt": tag}}})
}

func (s *Server) generations(w http.ResponseWriter, r *http.Request, rec *Request) {
	in, ok := readJSON(w, r, rec)
	if !ok || !s.knownModel(w, rec.Model) {
		return
	}
	prompt, _ := in["prompt"].(string)
	if strings.TrimSpace(prompt) == "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "prompt is required")
		return
	}
	format, _ := in["response_format"].(string)
	if format != "" && format != "b64_json" && format != "url" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "response_format must be url or b64_json")
		return
	}
	s.images(w, format, imageWidth(prompt), 8, prompt)
}

func (s *Server) edits(w http.ResponseWriter, r *http.Request, rec *Request) {
	if !readForm(w, r, rec) || !s.knownModel(w, rec.Model) {
		return
	}
	img, ok := formFile(r, "image")
	if !ok {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "image is required: upload the image to edit as the image field")
		return
	}
	iw, ih, err := fakehf.ImageSize(img)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_image", "Invalid image file: "+err.Error())
		return
	}
	if strings.TrimSpace(rec.Fields["prompt"]) == "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "prompt is required")
		return
	}
	s.images(w, rec.Fields["response_format"], iw, ih, rec.Fields["prompt"])
}

func (s *Server) transcriptions(w http.ResponseWriter, r *http.Request, rec *Request) {
	if !readForm(w, r, rec) || !s.knownModel(w, rec.Model) {
		return
	}
	audio, ok := formFile(r, "file")
	if !ok {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "file is required: upload the audio as the file field")
		return
	}
	text := fmt.Sprintf("transcript of %s (%d bytes)", rec.Files["file"], len(audio))
	if samples, rate, err := fakehf.WAVInfo(audio); err == nil {
		text = fmt.Sprintf("transcript of %s (%d samples at %d Hz)", rec.Files["file"], samples, rate)
	}
	switch rec.Fields["response_format"] {
	case "", "json":
		writeJSON(w, map[string]any{"text": text})
	case "text":
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, text)
	default:
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "response_format must be json, text, srt, verbose_json or vtt")
	}
}

func (s *Server) speech(w http.ResponseWriter, r *http.Request, rec *Request) {
	in, ok := readJSON(w, r, rec)
	if !ok || !s.knownModel(w, rec.Model) {
		return
	}
	input, _ := in["input"].(string)
	voice, _ := in["voice"].(string)
	s.mu.Lock()
	voices := s.voices
	s.mu.Unlock()
	switch {
	case strings.TrimSpace(input) == "":
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "input is required")
		return
	case !slices.Contains(voices, voice):
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", fmt.Sprintf("voice %q is not one of %s", voice, strings.Join(voices, ", ")))
		return
	}
	format, _ := in["response_format"].(string)
	if format != "" && format != "wav" && format != "mp3" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "response_format must be mp3, opus, aac, flac, wav or pcm")
		return
	}
	// 100 samples a character at 16 kHz: the length encodes the input.
	w.Header().Set("Content-Type", "audio/wav")
	_, _ = w.Write(fakehf.WAV(100*len([]rune(input)), 16000))
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, rec *Request) {
	in, ok := readJSON(w, r, rec)
	if !ok || !s.knownModel(w, rec.Model) {
		return
	}
	if rf, ok := in["response_format"].(map[string]any); ok {
		js, _ := rf["json_schema"].(map[string]any)
		if rf["type"] == "json_schema" && (js == nil || js["schema"] == nil || js["name"] == nil) {
			apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "response_format.json_schema needs a name and a schema")
			return
		}
	}
	msgs, _ := in["messages"].([]any)
	if len(msgs) == 0 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "messages is required")
		return
	}
	var system, user string
	var sizes []string
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		var text string
		switch c := mm["content"].(type) {
		case string:
			text = c
		case []any:
			for _, p := range c {
				pm, _ := p.(map[string]any)
				switch pm["type"] {
				case "text":
					t, _ := pm["text"].(string)
					text += t
				case "image_url":
					iu, _ := pm["image_url"].(map[string]any)
					u, _ := iu["url"].(string)
					data, err := decodeDataURL(u)
					if err != nil {
						apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_image_url", "image_url must be a base64 data URL: "+err.Error())
						return
					}
					iw, ih, err := fakehf.ImageSize(data)
					if err != nil {
						apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_image", "Invalid image: "+err.Error())
						return
					}
					rec.Images++
					sizes = append(sizes, fmt.Sprintf("%dx%d", iw, ih))
				default:
					apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", fmt.Sprintf("unknown content part type %v", pm["type"]))
					return
				}
			}
		default:
			apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "content must be a string or an array of parts")
			return
		}
		switch role {
		case "system":
			system = text
		case "user":
			user = text
		}
	}
	rec.Fields["system"], rec.Fields["user"] = system, user
	answer := "echo: " + user
	if len(sizes) > 0 {
		answer = fmt.Sprintf("an image of %s px; asked: %s", strings.Join(sizes, ", "), user)
	}
	s.mu.Lock()
	if reply, ok := s.replies[rec.Model]; ok {
		answer = reply
	}
	s.mu.Unlock()
	writeJSON(w, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": rec.Model,
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer}}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
	})
}

func decodeDataURL(u string) ([]byte, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !strings.HasPrefix(u, "data:") || !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, fmt.Errorf("not a base64 data URL")
	}
	return base64.StdEncoding.DecodeString(payload)
}

// embeddings answers /v1/embeddings with a bag-of-words vector per input:
// 26 dimensions counting the letters of its words, so equal texts have
// cosine 1 and texts sharing no letters 0.
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request, rec *Request) {
	in, ok := readJSON(w, r, rec)
	if !ok || !s.knownModel(w, rec.Model) {
		return
	}
	var inputs []string
	switch v := in["input"].(type) {
	case string:
		inputs = []string{v}
	case []any:
		for _, x := range v {
			str, ok := x.(string)
			if !ok {
				apiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_value", "input must be a string or an array of strings")
				return
			}
			inputs = append(inputs, str)
		}
	}
	if len(inputs) == 0 {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "missing_required_parameter", "input is required")
		return
	}
	data := make([]map[string]any, len(inputs))
	for i, text := range inputs {
		vec := make([]float64, 26)
		for _, c := range strings.ToLower(text) {
			if c >= 'a' && c <= 'z' {
				vec[c-'a']++
			}
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vec}
	}
	writeJSON(w, map[string]any{"object": "list", "model": rec.Model, "data": data, "usage": map[string]any{"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})
}
