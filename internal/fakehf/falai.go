package fakehf

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// falJob is a job on fal's queue.
type falJob struct {
	mu        sync.Mutex
	pm        *ProviderModel
	app       string // the app's path on the queue host: owner/app
	polls     int
	result    map[string]any
	cancelled bool
}

// FalCancelled reports how many fal jobs were cancelled.
func (s *Server) FalCancelled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, j := range s.falJobs {
		j.mu.Lock()
		if j.cancelled {
			n++
		}
		j.mu.Unlock()
	}
	return n
}

// serveFal answers fal-ai's routes behind the router: POST {app}?_subdomain=queue
// submits a job, GET {owner/app}/requests/{id}/status polls it, GET
// {owner/app}/requests/{id} fetches its result, PUT …/cancel cancels it;
// POST {app} without the queue runs it synchronously (speech).
func (s *Server) serveFal(w http.ResponseWriter, r *http.Request, rest string, body []byte, rr *Request) {
	queue := r.URL.Query().Get("_subdomain") == "queue"
	if app, id, sub, ok := falRequestPath(rest); ok && queue {
		rr.Route = "queue" + sub // queue/status, queue/cancel
		if sub == "" {
			rr.Route = "queue/result"
		}
		s.mu.Lock()
		j := s.falJobs[id]
		s.mu.Unlock()
		if j == nil || j.app != app {
			providerError(w, "fal-ai", http.StatusNotFound, "Request "+id+" not found")
			return
		}
		rr.Model = j.pm.snapshot().hub
		s.falJob(w, r, j, sub)
		return
	}
	pm := s.byProviderID("fal-ai", rest)
	if pm == nil {
		writeError(w, http.StatusNotFound, "Model "+rest+" is not supported by provider fal-ai")
		return
	}
	rr.Model = pm.snapshot().hub
	if r.Method != http.MethodPost {
		providerError(w, "fal-ai", http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	if code, msg := pm.start(); code != 0 {
		providerError(w, "fal-ai", code, msg)
		return
	}
	var in map[string]any
	if !isJSON(r) || json.Unmarshal(body, &in) != nil {
		providerError(w, "fal-ai", http.StatusUnprocessableEntity, "body must be a JSON object")
		return
	}
	p := pm.snapshot()
	if !queue {
		rr.Route = "sync"
		status, out := s.falRun(p, in)
		writeJSON(w, status, out)
		return
	}
	rr.Route = "queue"
	status, out := s.falRun(p, in)
	if status != http.StatusOK {
		// fal validates the input before queueing.
		writeJSON(w, status, out)
		return
	}
	// Jobs of a sub-app (fal-ai/flux/schnell) live under the app (fal-ai/flux).
	segs := strings.Split(p.id, "/")
	app := strings.Join(segs[:min(2, len(segs))], "/")
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("%08x-fa1-4a1-b0b-%012d", s.seq, s.seq)
	if s.falJobs == nil {
		s.falJobs = map[string]*falJob{}
	}
	s.falJobs[id] = &falJob{pm: pm, app: app, result: out}
	s.mu.Unlock()
	queueURL := "https://queue.fal.run/" + app + "/requests/" + id
	writeJSON(w, http.StatusOK, map[string]any{
		"status": "IN_QUEUE", "request_id": id, "response_url": queueURL,
		"status_url": queueURL + "/status", "cancel_url": queueURL + "/cancel", "queue_position": p.queued,
	})
}

// falRequestPath splits owner/app/requests/{id}[/status|/cancel].
func falRequestPath(rest string) (app, id, sub string, ok bool) {
	before, after, found := strings.Cut(rest, "/requests/")
	if !found {
		return "", "", "", false
	}
	id, sub, _ = strings.Cut(after, "/")
	if sub != "" {
		sub = "/" + sub
	}
	return before, id, sub, id != ""
}

// falJob answers a status poll, a result fetch or a cancellation.
func (s *Server) falJob(w http.ResponseWriter, r *http.Request, j *falJob, sub string) {
	p := j.pm.snapshot()
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case sub == "/cancel" && r.Method == http.MethodPut:
		j.cancelled = true
		writeJSON(w, http.StatusAccepted, map[string]any{"status": "CANCELLATION_REQUESTED"})
	case sub == "/status" && r.Method == http.MethodGet:
		j.polls++
		out := map[string]any{"request_id": "", "response_url": ""}
		switch {
		case j.cancelled:
			out["status"] = "COMPLETED"
			out["error"] = "Request was cancelled"
		case j.polls <= p.queued:
			out["status"] = "IN_QUEUE"
			out["queue_position"] = p.queued - j.polls
		case j.polls <= p.queued+p.running:
			out["status"] = "IN_PROGRESS"
			out["logs"] = []map[string]any{{"message": fmt.Sprintf("step %d of %d", j.polls-p.queued, p.running), "level": "INFO"}}
		default:
			out["status"] = "COMPLETED"
			out["logs"] = []any{}
			if p.jobFail != "" && p.failInStatus {
				out["error"] = p.jobFail
				out["error_type"] = "runner_error"
			}
		}
		writeJSON(w, http.StatusOK, out)
	case sub == "" && r.Method == http.MethodGet:
		switch {
		case j.polls <= p.queued+p.running && !j.cancelled:
			providerError(w, "fal-ai", http.StatusBadRequest, "Request is still in progress")
		case j.cancelled:
			providerError(w, "fal-ai", http.StatusBadRequest, "Request was cancelled")
		case p.jobFail != "":
			providerError(w, "fal-ai", http.StatusInternalServerError, p.jobFail)
		default:
			writeJSON(w, http.StatusOK, j.result)
		}
	default:
		providerError(w, "fal-ai", http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

// falRun is what fal's app produces for its input, or the validation
// error it answers (422 with fal's {"detail": [...]}).
func (s *Server) falRun(p providerState, in map[string]any) (int, map[string]any) {
	invalid := func(field, msg string) (int, map[string]any) {
		return http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{"loc": []string{"body", field}, "msg": msg, "type": "value_error"}}}
	}
	str := func(k string) string { v, _ := in[k].(string); return v }
	file := func(host, path, ctype string, data []byte) string {
		if p.resultURL != "" {
			return p.resultURL
		}
		return s.publish(host, path, ctype, data)
	}
	switch p.task {
	case "text-to-image":
		prompt := str("prompt")
		if strings.TrimSpace(prompt) == "" {
			return invalid("prompt", "field required")
		}
		u := file("v3.fal.media", "/files/tiger/%d-image.jpeg", "image/jpeg", jpegOf(min(max(len([]rune(prompt)), 1), 512), 8))
		return http.StatusOK, map[string]any{"images": []map[string]any{{"url": u, "width": len(prompt), "height": 8, "content_type": "image/jpeg"}},
			"timings": map[string]any{"inference": 0.4}, "seed": 42, "has_nsfw_concepts": []bool{false}, "prompt": prompt}
	case "image-to-image", "image-text-to-image":
		mt, img, err := dataURL(str("image_url"))
		if err != nil {
			return invalid("image_url", err.Error())
		}
		w, h, err := ImageSize(img)
		if err != nil || !strings.HasPrefix(mt, "image/") {
			return invalid("image_url", "could not read the image")
		}
		u := file("v3.fal.media", "/files/lion/%d-edited.png", "image/png", PNG(w, h))
		return http.StatusOK, map[string]any{"images": []map[string]any{{"url": u, "width": w, "height": h, "content_type": "image/png"}}, "prompt": str("prompt")}
	case "text-to-video":
		prompt := str("prompt")
		if strings.TrimSpace(prompt) == "" {
			return invalid("prompt", "field required")
		}
		u := file("v3.fal.media", "/files/zebra/%d-output.mp4", "video/mp4", MP4(prompt))
		return http.StatusOK, map[string]any{"video": map[string]any{"url": u, "content_type": "video/mp4"}, "seed": 7}
	case "text-to-speech":
		text := str("text")
		if strings.TrimSpace(text) == "" {
			return invalid("text", "field required")
		}
		u := file("v3.fal.media", "/files/koala/%d-speech.wav", "audio/wav", WAV(160*len([]rune(text)), 16000))
		return http.StatusOK, map[string]any{"audio": map[string]any{"url": u, "content_type": "audio/wav"}}
	case "automatic-speech-recognition":
		mt, audio, err := dataURL(str("audio_url"))
		if err != nil {
			return invalid("audio_url", err.Error())
		}
		switch mt {
		case "audio/mpeg", "audio/x-wav", "video/webm":
		default:
			return invalid("audio_url", "Unsupported data URL")
		}
		return http.StatusOK, map[string]any{"text": "hello from " + audioSummary(audio), "chunks": []map[string]any{}}
	}
	return http.StatusBadRequest, map[string]any{"detail": "task " + p.task + " is not served by the fake"}
}
