package fakehf

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// prediction is a Replicate prediction.
type prediction struct {
	mu        sync.Mutex
	id        string
	pm        *ProviderModel
	polls     int
	output    any
	cancelled bool
}

// ReplicateCancelled reports how many predictions were cancelled.
func (s *Server) ReplicateCancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, p := range s.predictions {
		p.mu.Lock()
		if p.cancelled {
			n++
		}
		p.mu.Unlock()
	}
	return n
}

// serveReplicate answers Replicate's API behind the router: POST
// v1/models/{owner}/{name}/predictions (or v1/predictions with a version)
// creates a prediction — finished at once when it is quick and the client
// sent Prefer: wait — GET v1/predictions/{id} reads it, POST
// v1/predictions/{id}/cancel cancels it.
func (s *Server) serveReplicate(w http.ResponseWriter, r *http.Request, rest string, body []byte, rr *Request) {
	if id, ok := strings.CutPrefix(rest, "v1/predictions/"); ok {
		id, cancel := strings.CutSuffix(id, "/cancel")
		s.mu.Lock()
		p := s.predictions[id]
		s.mu.Unlock()
		if p == nil {
			providerError(w, "replicate", http.StatusNotFound, "Not found.")
			return
		}
		rr.Model, rr.Route = p.pm.snapshot().hub, "prediction"
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case cancel && r.Method == http.MethodPost:
			rr.Route = "cancel"
			p.cancelled = true
		case !cancel && r.Method == http.MethodGet:
			p.polls++
		default:
			providerError(w, "replicate", http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		writeJSON(w, http.StatusOK, s.predictionJSON(p))
		return
	}
	var target string
	switch {
	case rest == "v1/predictions":
		target = "" // the version in the body names the model
	case strings.HasPrefix(rest, "v1/models/") && strings.HasSuffix(rest, "/predictions"):
		target = strings.TrimSuffix(strings.TrimPrefix(rest, "v1/models/"), "/predictions")
	default:
		providerError(w, "replicate", http.StatusNotFound, "Not found.")
		return
	}
	var in struct {
		Version string         `json:"version"`
		Input   map[string]any `json:"input"`
	}
	if r.Method != http.MethodPost || !isJSON(r) || json.Unmarshal(body, &in) != nil || in.Input == nil {
		providerError(w, "replicate", http.StatusUnprocessableEntity, "- input: input is required")
		return
	}
	if target == "" {
		target = s.replicateVersionModel(in.Version)
	}
	pm := s.byProviderID("replicate", target)
	if pm == nil {
		writeError(w, http.StatusNotFound, "Model "+target+" is not supported by provider replicate")
		return
	}
	rr.Model, rr.Route = pm.snapshot().hub, "create"
	if code, msg := pm.start(); code != 0 {
		providerError(w, "replicate", code, msg)
		return
	}
	pp := pm.snapshot()
	out, msg := s.replicateRun(pp, in.Input)
	if msg != "" {
		providerError(w, "replicate", http.StatusUnprocessableEntity, msg)
		return
	}
	s.mu.Lock()
	s.seq++
	p := &prediction{id: fmt.Sprintf("rp%06dxq", s.seq), pm: pm, output: out}
	if s.predictions == nil {
		s.predictions = map[string]*prediction{}
	}
	s.predictions[p.id] = p
	s.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Header.Get("Prefer") == "wait" && pp.queued+pp.running == 0 {
		// Sync mode: Replicate holds the answer until the model is done.
		p.polls = 1
	}
	writeJSON(w, http.StatusCreated, s.predictionJSON(p))
}

// replicateVersionModel finds the model id a version belongs to: ids
// registered as owner/name:version.
func (s *Server) replicateVersionModel(version string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, list := range s.mapping {
		for _, pm := range list {
			p := pm.snapshot()
			if _, v, ok := strings.Cut(p.id, ":"); ok && p.provider == "replicate" && v == version {
				return p.id
			}
		}
	}
	return version
}

// predictionJSON is the prediction as Replicate answers it now.
func (s *Server) predictionJSON(p *prediction) map[string]any {
	pp := p.pm.snapshot()
	base := "https://api.replicate.com/v1/predictions/" + p.id
	out := map[string]any{"id": p.id, "model": pp.id, "version": "5599ed30703defd1d160a25a63321b4dec97101d98b4674bcc56e41f62f35637",
		"output": nil, "error": nil, "logs": "", "urls": map[string]string{"get": base, "cancel": base + "/cancel", "stream": "https://stream.replicate.com/v1/files/" + p.id}}
	switch {
	case p.cancelled:
		out["status"] = "canceled"
	case p.polls <= pp.queued:
		out["status"] = "starting"
	case p.polls <= pp.queued+pp.running:
		out["status"] = "processing"
		out["logs"] = fmt.Sprintf("%d%%|###       | step %d", 100*(p.polls-pp.queued)/max(pp.running, 1), p.polls-pp.queued)
	case pp.jobFail != "":
		out["status"] = "failed"
		out["error"] = pp.jobFail
	default:
		out["status"] = "succeeded"
		out["output"] = p.output
	}
	return out
}

// replicateRun is what the model outputs for its input, or why Replicate
// rejects the input.
func (s *Server) replicateRun(p providerState, in map[string]any) (any, string) {
	str := func(k string) string { v, _ := in[k].(string); return v }
	file := func(path, ctype string, data []byte) string {
		if p.resultURL != "" {
			return p.resultURL
		}
		return s.publish("replicate.delivery", path, ctype, data)
	}
	switch p.task {
	case "text-to-image":
		prompt := str("prompt")
		if strings.TrimSpace(prompt) == "" {
			return nil, "- input: prompt is required"
		}
		// flux-schnell answers a list of files.
		return []string{file("/xezq/%d/out-0.jpg", "image/jpeg", jpegOf(min(max(len([]rune(prompt)), 1), 512), 8))}, ""
	case "image-to-image", "image-text-to-image":
		mt, img, err := dataURL(str("input_image"))
		if err != nil {
			return nil, "- input: input_image: " + err.Error()
		}
		w, h, err := ImageSize(img)
		if err != nil || !strings.HasPrefix(mt, "image/") {
			return nil, "- input: input_image is not an image"
		}
		return file("/xezq/%d/output.png", "image/png", PNG(w, h)), ""
	case "text-to-video":
		prompt := str("prompt")
		if strings.TrimSpace(prompt) == "" {
			return nil, "- input: prompt is required"
		}
		return file("/xezq/%d/output.mp4", "video/mp4", MP4(prompt)), ""
	case "text-to-speech":
		text := str("text")
		if strings.TrimSpace(text) == "" {
			return nil, "- input: text is required"
		}
		return file("/xezq/%d/output.wav", "audio/wav", WAV(160*len([]rune(text)), 24000)), ""
	case "automatic-speech-recognition":
		mt, audio, err := dataURL(str("audio"))
		if err != nil || !strings.HasPrefix(mt, "audio/") {
			return nil, "- input: audio: a file or a data URL is required"
		}
		// openai/whisper's output object.
		return map[string]any{"transcription": "hello from " + audioSummary(audio), "segments": []any{}, "detected_language": "english"}, ""
	}
	return nil, "task " + p.task + " is not served by the fake"
}
