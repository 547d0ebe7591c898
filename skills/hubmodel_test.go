package skills

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHubModelInfo: one model's facts from the Hub's model API, asked with
// the properties a sync asks the listing for and read as a listing's item
// is — its task, licence, size and providers; a model no provider serves
// keeps its facts and says so by its endpoints; an unknown id and a Hub
// that does not answer are errors that say which and what to do.
func TestHubModelInfo(t *testing.T) {
	t.Parallel()
	var query []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer hf_user" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/models/microsoft/git-base-coco":
			query = r.URL.Query()["expand"]
			w.Write([]byte(`{"_id":"621ffdc136468d709f17e7b2","id":"microsoft/git-base-coco","pipeline_tag":"image-to-text",
			  "library_name":"transformers","tags":["transformers","pytorch","git","image-to-text","license:mit"],
			  "downloads":21000,"likes":20,"cardData":{"language":"en","license":"mit","tags":["vision"]},
			  "safetensors":{"parameters":{"F32":176619066},"total":176619066},
			  "inferenceProviderMapping":[{"provider":"hf-inference","providerId":"microsoft/git-base-coco","status":"live","task":"image-to-text"}]}`))
		case "/api/models/someone/notebook-model":
			w.Write([]byte(`{"_id":"x","id":"someone/notebook-model","pipeline_tag":"image-classification","tags":["license:cc-by-nc-4.0"],
			  "downloads":3,"inferenceProviderMapping":[]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"Repository not found"}`))
		}
	}))
	defer srv.Close()
	h := &Hub{BaseURL: srv.URL, Token: "hf_user"}
	m, err := h.ModelInfo(context.Background(), "microsoft/git-base-coco")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "microsoft/git-base-coco" || m.PipelineTag != "image-to-text" || m.License != "mit" || m.Params != 176619066 ||
		!slices.Equal(m.Endpoints, []EndpointKind{EndpointLocal, EndpointHuggingFace}) || len(m.LiveProviders()) != 1 || m.Disabled {
		t.Fatalf("model = %+v", m)
	}
	for _, want := range []string{"pipeline_tag", "inferenceProviderMapping", "cardData", "safetensors"} {
		if !slices.Contains(query, want) {
			t.Errorf("expand %v lacks %s, which a sync asks for", query, want)
		}
	}
	m, err = h.ModelInfo(context.Background(), "someone/notebook-model")
	if err != nil || m.PipelineTag != "image-classification" || len(m.Endpoints) != 0 || m.License != "cc-by-nc-4.0" {
		t.Fatalf("a model nothing serves: %+v, %v", m, err)
	}
	_, err = h.ModelInfo(context.Background(), "someone/nothing")
	if !errors.Is(err, ErrHubNotFound) || !strings.Contains(err.Error(), "asking the Hugging Face Hub at "+srv.URL+" about someone/nothing") ||
		!strings.Contains(err.Error(), "check the id") {
		t.Errorf("an unknown id: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	_, err = (&Hub{BaseURL: dead}).ModelInfo(context.Background(), "microsoft/git-base-coco")
	if !errors.Is(err, ErrHubUnreachable) || !strings.Contains(err.Error(), "cannot reach the Hub") {
		t.Errorf("an unreachable Hub: %v", err)
	}
}

// TestHubModelInfoAnswers: ModelInfo reads each answer the Hub's model API
// gives as the Hub means it — a disabled repository, the 401 the Hub sends
// an anonymous caller for an id it does not show (X-Error-Code:
// RepoNotFound, as huggingface_hub reads it), a refused token, rate
// limiting with its wait, a server error, a proxy's HTML page — each an
// error that classifies it and names the fix; an id that is no id is
// refused before any request.
func TestHubModelInfoAnswers(t *testing.T) {
	t.Parallel()
	type answer struct {
		status   int
		header   map[string]string
		body     string
		token    string
		id       string
		sentinel error
		says     []string
		check    func(HubModel) bool
	}
	for name, tc := range map[string]answer{
		"disabled": {status: 200, body: `{"_id":"1","id":"o/gone","pipeline_tag":"text-generation","disabled":true,"tags":["license:apache-2.0"]}`,
			check: func(m HubModel) bool {
				return m.Disabled && m.ID == "o/gone" && m.License == "apache-2.0" && m.PipelineTag == "text-generation"
			}},
		"no id in the answer": {status: 200, body: `{"pipeline_tag":"fill-mask"}`,
			check: func(m HubModel) bool { return !m.Disabled && m.ID == "o/m" && m.PipelineTag == "fill-mask" }},
		"anonymous, unknown id": {status: 401, header: map[string]string{"X-Error-Code": "RepoNotFound"}, body: `{"error":"Repository not found"}`,
			sentinel: ErrHubNotFound, says: []string{"HTTP 401 (Repository not found)", "does not know o/m", "huggingface.token"}},
		"with a token, unknown id": {status: 404, header: map[string]string{"X-Error-Code": "RepoNotFound"}, body: `{"error":"Repository not found"}`, token: "hf_x",
			sentinel: ErrHubNotFound, says: []string{"HTTP 404 (Repository not found)", "check the id"}},
		"refused token": {status: 401, body: `{"error":"Invalid credentials in Authorization header"}`, token: "hf_old",
			sentinel: ErrHubUnauthorized, says: []string{"Invalid credentials", "refused the token", "settings/tokens"}},
		"rate limited": {status: 429, header: map[string]string{"Retry-After": "30"}, body: `{"error":{"message":"slow down"}}`,
			sentinel: ErrHubRateLimited, says: []string{`HTTP 429 ({"message":"slow down"})`, "wait 30s", "a token (HF_TOKEN) raises the limit"}},
		"server error page": {status: 502, body: "<html><body>Bad Gateway</body></html>",
			sentinel: ErrHubUnavailable, says: []string{"about o/m: HTTP 502 —", "try again later"}},
		"bad request": {status: 400, body: "invalid expand " + strings.Repeat("x", 300),
			says: []string{"HTTP 400 (invalid expand xxx", "…)", "check the model id and huggingface.hub_url"}},
		"not a model": {status: 200, body: `[1,2]`,
			sentinel: ErrHubUnavailable, says: []string{"the answer is not a model's JSON", "is huggingface.hub_url the Hub"}},
		"null":  {status: 200, body: `null`, sentinel: ErrHubUnavailable, says: []string{"not a model's JSON"}},
		"no id": {id: "o/../etc", says: []string{`model id "o/../etc" is not a Hugging Face model id`}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var asked atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			id := tc.id
			if id == "" {
				id = "o/m"
			}
			m, err := (&Hub{BaseURL: srv.URL, Token: tc.token}).ModelInfo(context.Background(), id)
			if tc.says == nil {
				if err != nil || !tc.check(m) {
					t.Fatalf("ModelInfo = %+v, %v", m, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; got %+v", m)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("%v is not %v", err, tc.sentinel)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
			if tc.id != "" && asked.Load() != 0 {
				t.Errorf("a bad id was asked about")
			}
		})
	}
}
