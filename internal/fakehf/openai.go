package fakehf

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// serveOpenAIStyle answers together's and nebius's OpenAI-style routes
// behind the router: v1/images/generations, v1/chat/completions and
// v1/completions, with the model named by its provider id in the body.
func (s *Server) serveOpenAIStyle(w http.ResponseWriter, r *http.Request, provider, rest string, body []byte, rr *Request) {
	rr.Route = "/" + rest
	var in map[string]any
	if r.Method != http.MethodPost || !isJSON(r) || json.Unmarshal(body, &in) != nil {
		providerError(w, provider, http.StatusBadRequest, "request body must be a JSON object")
		return
	}
	id, _ := in["model"].(string)
	pm := s.byProviderID(provider, id)
	if pm == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"message": "Unable to access model " + id + ". Please visit https://api." + provider + ".ai/models to view the list of supported models.",
			"type":    "invalid_request_error", "code": "model_not_found"}})
		return
	}
	rr.Model = pm.snapshot().hub
	if code, msg := pm.start(); code != 0 {
		providerError(w, provider, code, msg)
		return
	}
	p := pm.snapshot()
	switch rest {
	case "v1/images/generations":
		prompt, _ := in["prompt"].(string)
		format, _ := in["response_format"].(string)
		want := map[string]string{"together": "base64", "nebius": "b64_json"}[provider]
		if format != want && format != "url" {
			providerError(w, provider, http.StatusBadRequest, "response_format must be "+want+" or url")
			return
		}
		width := min(max(len([]rune(prompt)), 1), 512)
		img := jpegOf(width, 8)
		if p.task == "image-to-image" || p.task == "image-text-to-image" {
			src, _ := in["image_url"].(string)
			if refs, ok := in["reference_images"].([]any); ok && len(refs) > 0 {
				src, _ = refs[0].(string)
			}
			_, data, err := dataURL(src)
			w2, h2, ierr := ImageSize(data)
			if err != nil || ierr != nil {
				providerError(w, provider, http.StatusBadRequest, "reference_images or image_url must hold the image to edit")
				return
			}
			img = PNG(w2, h2)
		} else if strings.TrimSpace(prompt) == "" {
			providerError(w, provider, http.StatusBadRequest, "prompt is required")
			return
		}
		item := map[string]any{"index": 0}
		if format == "url" {
			item["url"] = s.publish("api."+provider+".ai", "/shrt/%d.jpeg", "image/jpeg", img)
		} else {
			item["b64_json"] = base64.StdEncoding.EncodeToString(img)
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "img-fake", "model": id, "object": "list", "data": []any{item}})
	case "v1/chat/completions":
		a := chatAnswer(id, r, body)
		w.Header().Set("Content-Type", a.contentType)
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	case "v1/completions":
		a := completionAnswer(id, r, body)
		w.Header().Set("Content-Type", a.contentType)
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	default:
		providerError(w, provider, http.StatusNotFound, "Not Found")
	}
}

// serveAutoChat answers the router's own chat completions
// (/v1/chat/completions with the Hub id as the model, optionally
// ":provider"): the first provider serving the model for chat, or a model
// registered for a chat task, answers.
func (s *Server) serveAutoChat(w http.ResponseWriter, r *http.Request, body []byte, rr *Request) {
	rr.Route = "/v1/chat/completions"
	var in struct {
		Model string `json:"model"`
	}
	if r.Method != http.MethodPost || !isJSON(r) || json.Unmarshal(body, &in) != nil || in.Model == "" {
		writeError(w, http.StatusBadRequest, "request body must be a JSON object naming the model")
		return
	}
	hub, _, _ := strings.Cut(in.Model, ":")
	rr.Model = hub
	s.mu.Lock()
	m := s.models[hub]
	list := append([]*ProviderModel(nil), s.mapping[hub]...)
	s.mu.Unlock()
	for _, pm := range list {
		if p := pm.snapshot(); p.task == "conversational" || p.task == "text-generation" {
			if code, msg := pm.start(); code != 0 {
				providerError(w, p.provider, code, msg)
				return
			}
			rr.Provider = p.provider
			a := chatAnswer(hub, r, body)
			w.Header().Set("Content-Type", a.contentType)
			w.WriteHeader(a.status)
			_, _ = w.Write(a.body)
			return
		}
	}
	if m != nil {
		switch m.Task() {
		case "conversational", "text-generation", "social-media-post":
			rr.Task, rr.Provider = m.Task(), "hf-inference"
			m.serve(w, r, body)
			return
		}
	}
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
		"message": "The requested model '" + in.Model + "' is not supported by any provider you have enabled.",
		"type":    "invalid_request_error", "code": "model_not_supported"}})
}
