package skills

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
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
