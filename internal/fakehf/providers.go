package fakehf

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
)

// The Inference Providers router: besides hf-inference, the fake serves
// the routes of the providers Chorus calls — fal-ai's queue and its
// synchronous apps, Replicate's predictions, together's and nebius's
// OpenAI-style images and chat, the router's own chat completions
// (provider "auto") — the Hub's provider mapping
// (/api/models/{id}?expand[]=inferenceProviderMapping), and the CDNs the
// providers put generated files on (v3.fal.media, replicate.delivery,
// reached through DownloadTransport).

// ProviderModel is how one provider serves one Hub model. Its methods
// configure it and return it, so calls chain:
//
//	srv.Provide("fal-ai", "black-forest-labs/FLUX.1-schnell", "fal-ai/flux/schnell", "text-to-image").Queue(2, 3)
type ProviderModel struct {
	mu    sync.Mutex
	state providerState

	failN      int // -1 means every call
	failStatus int
	failMsg    string
	calls      int
}

// providerState is what a ProviderModel does, as a call reads it.
type providerState struct {
	provider string
	hub      string
	id       string
	task     string
	status   string

	queued, running int // polls a job spends waiting and running
	jobFail         string
	failInStatus    bool
	resultURL       string
}

// Provide registers that provider serves the Hub model hub under its own
// id for task (a Hub task: "text-to-image", "conversational", …): the
// provider's routes answer for it and the Hub's mapping lists it, live,
// after the entries registered before it. Registering the same provider
// and model again returns the existing behaviour.
func (s *Server) Provide(provider, hub, id, task string) *ProviderModel {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pm := range s.mapping[hub] {
		if pm.state.provider == provider {
			return pm
		}
	}
	pm := &ProviderModel{state: providerState{provider: provider, hub: hub, id: id, task: task, status: "live"}}
	s.addMappingLocked(hub, pm)
	return pm
}

// addMappingLocked appends pm to hub's mapping.
func (s *Server) addMappingLocked(hub string, pm *ProviderModel) {
	if s.mapping == nil {
		s.mapping = map[string][]*ProviderModel{}
	}
	s.mapping[hub] = append(s.mapping[hub], pm)
}

// Staging marks the mapping "staging": the Hub lists it, but it is not
// live for everyone.
func (pm *ProviderModel) Staging() *ProviderModel {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.state.status = "staging"
	return pm
}

// Queue makes a queued job (fal-ai's queue, a Replicate prediction)
// spend queued status polls waiting and then running polls running,
// before it completes.
func (pm *ProviderModel) Queue(queued, running int) *ProviderModel {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.state.queued, pm.state.running = queued, running
	return pm
}

// FailJob makes every job end in failure with msg, after its polls: a fal
// job whose result is an error ({"detail": msg}), a Replicate prediction
// with status "failed".
func (pm *ProviderModel) FailJob(msg string) *ProviderModel {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.state.jobFail = msg
	return pm
}

// FailInStatus makes fal's status of a failed job carry the error, as
// newer queue versions do; by default only the result says so.
func (pm *ProviderModel) FailInStatus() *ProviderModel {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.state.failInStatus = true
	return pm
}

// Status makes every call to the model answer code with the provider's
// error body for msg.
func (pm *ProviderModel) Status(code int, msg string) *ProviderModel { return pm.Fail(-1, code, msg) }

// Fail makes the next n calls that start work (a submit, a prediction, a
// synchronous call) answer code with the provider's error body for msg;
// n < 0 means every call.
func (pm *ProviderModel) Fail(n, code int, msg string) *ProviderModel {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.failN, pm.failStatus, pm.failMsg = n, code, msg
	return pm
}

// ResultURL makes the provider answer with url for the generated file
// instead of its CDN's, e.g. an address Chorus must refuse to fetch.
func (pm *ProviderModel) ResultURL(url string) *ProviderModel {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.state.resultURL = url
	return pm
}

// Calls returns how many calls started work on the model.
func (pm *ProviderModel) Calls() int {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	return pm.calls
}

// start counts a call and consumes a scripted failure: status 0 means
// the call goes on.
func (pm *ProviderModel) start() (status int, msg string) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	pm.calls++
	if pm.failN != 0 {
		if pm.failN > 0 {
			pm.failN--
		}
		return pm.failStatus, pm.failMsg
	}
	return 0, ""
}

func (pm *ProviderModel) snapshot() providerState {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	return pm.state
}

// byProviderID finds the model provider serves under id.
func (s *Server) byProviderID(provider, id string) *ProviderModel {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, list := range s.mapping {
		for _, pm := range list {
			if p := pm.snapshot(); p.provider == provider && p.id == id {
				return pm
			}
		}
	}
	return nil
}

// HubStatus makes the Hub's model API answer code (with its error body)
// for every model: 0 restores it.
func (s *Server) HubStatus(code int) {
	s.mu.Lock()
	s.hubStatus = code
	s.mu.Unlock()
}

// HubFacts are what the fake Hub's model API says of a model besides who
// serves it (Server.Describe).
type HubFacts struct {
	// PipelineTag is the Hub's task of the model.
	PipelineTag string
	// Library is its library_name ("transformers"); "" names none.
	Library string
	// License is its card's licence; "" names none.
	License string
	// Params is its parameter count (the safetensors total); 0 unknown.
	Params    int64
	Downloads int64
}

// Describe sets what the Hub's model API answers for id when asked for its
// facts (GET /api/models/{id}?expand=pipeline_tag&expand=…, as `chorus
// models sync` asks a listing): a model registered with Model or Provide
// is otherwise described as a transformers model of its task. A model
// described but neither registered nor provided is one the Hub knows and
// no provider serves.
func (s *Server) Describe(id string, f HubFacts) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.facts == nil {
		s.facts = map[string]HubFacts{}
	}
	s.facts[id] = f
}

// serveHubModel answers GET /api/models/{id}?expand[]=inferenceProviderMapping
// as the Hub does: the model's providers keyed by name, in the order they
// serve it (the object form the official client normalises) — or, asked
// with expand=… for more, the model's facts (serveHubFacts).
func (s *Server) serveHubModel(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	code := s.hubStatus
	list := append([]*ProviderModel(nil), s.mapping[id]...)
	m := s.models[id]
	facts, described := s.facts[id]
	s.mu.Unlock()
	switch {
	case r.Method != http.MethodGet:
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	case code != 0:
		writeError(w, code, http.StatusText(code))
		return
	case len(list) == 0 && m == nil && !described:
		// The Hub says which "not found" it is in X-Error-Code, as
		// huggingface_hub reads it (RepoNotFound, GatedRepo, …).
		w.Header().Set("X-Error-Code", "RepoNotFound")
		writeError(w, http.StatusNotFound, "Repository not found")
		return
	case len(r.URL.Query()["expand"]) > 0:
		if !described {
			facts = HubFacts{Library: "transformers"}
			if m != nil {
				facts.PipelineTag = hubTask(m.Task())
			} else {
				facts.PipelineTag = list[0].snapshot().task
			}
		}
		serveHubFacts(w, id, facts, list, m)
		return
	case r.URL.Query().Get("expand[]") != "inferenceProviderMapping":
		writeError(w, http.StatusBadRequest, `"expand[]" must name the properties to return`)
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"_id":"%x","id":%q,"inferenceProviderMapping":{`, len(id), id)
	first := true
	entry := func(provider, pid, status, task string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		e, _ := json.Marshal(map[string]string{"providerId": pid, "status": status, "task": task})
		fmt.Fprintf(&b, "%q:%s", provider, e)
	}
	hasHF := false
	for _, pm := range list {
		p := pm.snapshot()
		hasHF = hasHF || p.provider == "hf-inference"
		entry(p.provider, p.id, p.status, p.task)
	}
	if m != nil && !hasHF {
		entry("hf-inference", id, "live", hubTask(m.Task()))
	}
	b.WriteString("}}")
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// serveHubFacts answers the model API asked for a model's facts, with the
// properties a listing's items carry; its providers in the list form.
func serveHubFacts(w http.ResponseWriter, id string, f HubFacts, list []*ProviderModel, m *ModelBehaviour) {
	mapping := []map[string]string{}
	hasHF := false
	for _, pm := range list {
		p := pm.snapshot()
		hasHF = hasHF || p.provider == "hf-inference"
		mapping = append(mapping, map[string]string{"provider": p.provider, "providerId": p.id, "status": p.status, "task": p.task})
	}
	if m != nil && !hasHF {
		mapping = append(mapping, map[string]string{"provider": "hf-inference", "providerId": id, "status": "live", "task": hubTask(m.Task())})
	}
	tags := []string{}
	card := map[string]any{}
	if f.Library != "" {
		tags = append(tags, f.Library)
	}
	if f.License != "" {
		tags = append(tags, "license:"+f.License)
		card["license"] = f.License
	}
	out := map[string]any{"_id": fmt.Sprintf("%x", len(id)), "id": id, "pipeline_tag": f.PipelineTag, "downloads": f.Downloads, "likes": 0,
		"tags": tags, "cardData": card, "inferenceProviderMapping": mapping}
	if f.Library != "" {
		out["library_name"] = f.Library
	}
	if f.Params > 0 {
		out["safetensors"] = map[string]any{"parameters": map[string]int64{"F32": f.Params}, "total": f.Params}
	}
	writeJSON(w, http.StatusOK, out)
}

// hubTask is the Hub task of a Chorus task registered with Model.
func hubTask(task string) string {
	switch task {
	case "social-media-post":
		return "conversational"
	case "image-editing":
		return "image-to-image"
	case "ocr":
		return "image-to-text"
	}
	return task
}

// cdnFile is a generated file on a provider's CDN.
type cdnFile struct {
	contentType string
	data        []byte
}

// publish puts data on the CDN at host+path and returns its https URL.
func (s *Server) publish(host, path, contentType string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]cdnFile{}
	}
	s.fileSeq++
	path = fmt.Sprintf(path, s.fileSeq)
	s.files[path] = cdnFile{contentType, data}
	return "https://" + host + path
}

// serveFile answers a CDN download, and reports whether path was one.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rr *Request) bool {
	s.mu.Lock()
	f, ok := s.files[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		return false
	}
	rr.Route = "cdn"
	w.Header().Set("Content-Type", f.contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(f.data)))
	_, _ = w.Write(f.data)
	return true
}

// Downloads returns the CDN downloads received, in order.
func (s *Server) Downloads() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Route == "cdn" {
			out = append(out, r)
		}
	}
	return out
}

// DownloadTransport carries the downloads of result URLs
// (https://v3.fal.media/…, https://replicate.delivery/…) to the fake,
// which serves them like the providers' CDNs: pass it as the endpoint's
// download transport. Any other URL is answered 404.
func (s *Server) DownloadTransport() http.RoundTripper {
	base := s.srv.Client().Transport
	host := strings.TrimPrefix(s.Root, "http://")
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.Host = "http", host, ""
		return base.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// dataURL decodes a data: URL: its media type and bytes.
func dataURL(s string) (string, []byte, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(s, "data:"), ",")
	if !strings.HasPrefix(s, "data:") || !ok || !strings.HasSuffix(meta, ";base64") {
		return "", nil, fmt.Errorf("not a base64 data URL")
	}
	mt, _, err := mime.ParseMediaType(strings.TrimSuffix(meta, ";base64"))
	if err != nil {
		return "", nil, fmt.Errorf("data URL without a media type")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("data URL is not valid base64: %w", err)
	}
	return mt, data, nil
}

// bearer checks the router's token, answering 401 as Hugging Face does;
// false means it answered.
func (s *Server) bearer(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	token := s.token
	s.mu.Unlock()
	if token == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case !ok || got == "":
		writeError(w, http.StatusUnauthorized, "You must provide a valid token to use the Inference API. Get one at https://huggingface.co/settings/tokens")
		return false
	case got != token:
		writeError(w, http.StatusUnauthorized, "Invalid credentials in Authorization header")
		return false
	}
	return true
}

// providerError answers a provider's error as the router passes it on: the
// provider's own body shape.
func providerError(w http.ResponseWriter, provider string, status int, msg string) {
	switch provider {
	case "fal-ai", "replicate":
		writeJSON(w, status, map[string]any{"detail": msg})
	case "together", "nebius":
		writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	default:
		writeError(w, status, msg)
	}
}
