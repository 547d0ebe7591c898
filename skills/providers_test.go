package skills

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestParseProviderMappingListAndObject(t *testing.T) {
	list := `[
	  {"provider": "fal-ai", "providerId": "fal-ai/flux/schnell", "status": "live", "task": "text-to-image"},
	  {"provider": "hf-inference", "providerId": "black-forest-labs/FLUX.1-schnell", "status": "live", "task": "text-to-image"},
	  {"provider": "replicate", "providerId": "black-forest-labs/flux-schnell", "status": "staging", "task": "text-to-image"},
	  {"providerId": "nameless", "status": "live"}
	]`
	got, err := ParseProviderMapping("black-forest-labs/FLUX.1-schnell", []byte(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []Provider{
		{Name: "fal-ai", ID: "fal-ai/flux/schnell", Task: "text-to-image", Status: "live"},
		{Name: "hf-inference", Task: "text-to-image", Status: "live"},
		{Name: "replicate", ID: "black-forest-labs/flux-schnell", Task: "text-to-image", Status: "staging"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("list:\n got %+v\nwant %+v", got, want)
	}
	// The object form keeps the order the Hub wrote: the user's order.
	obj := `{"together": {"providerId": "m-turbo", "status": "live", "task": "conversational"},
	         "featherless-ai": {"providerId": "org/m", "status": "live", "task": "conversational",
	                            "adapter": "lora", "adapterWeightsPath": "w.safetensors"}}`
	got, err = ParseProviderMapping("org/m", []byte(obj))
	if err != nil {
		t.Fatal(err)
	}
	want = []Provider{
		{Name: "together", ID: "m-turbo", Task: "conversational", Status: "live"},
		{Name: "featherless-ai", Task: "conversational", Status: "live", Adapter: "lora", AdapterWeightsPath: "w.safetensors"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("object:\n got %+v\nwant %+v", got, want)
	}
	if ps, err := ParseProviderMapping("m", []byte(`"warm"`)); err == nil || ps != nil {
		t.Errorf("a string mapping: %v, %v; want an error", ps, err)
	}
	if ps, err := ParseProviderMapping("m", nil); err != nil || ps != nil {
		t.Errorf("no mapping: %v, %v", ps, err)
	}
}

func TestHubListingKeepsProviders(t *testing.T) {
	f := newFakeHub(t)
	ms, err := f.hub().Models(context.Background(), "text-generation")
	if err != nil {
		t.Fatal(err)
	}
	qwen, ok := modelByID(ms, "Qwen/Qwen2.5-7B-Instruct")
	if !ok {
		t.Fatal("Qwen2.5-7B-Instruct is served by together and featherless-ai and must be listed")
	}
	if !qwen.ServedBy(EndpointHuggingFace) {
		t.Errorf("a model served live by Inference Providers other than hf-inference is reached through the router: endpoints %v", qwen.Endpoints)
	}
	want := []Provider{
		{Name: "together", ID: "Qwen/Qwen2.5-7B-Instruct-Turbo", Task: "conversational", Status: "live"},
		{Name: "featherless-ai", Task: "conversational", Status: "live"},
	}
	if !slices.Equal(qwen.Providers, want) {
		t.Errorf("providers %+v, want %+v", qwen.Providers, want)
	}
}

func TestSkillFileProvidersValidate(t *testing.T) {
	base := `name: text-to-image
description: d
args: [{name: text, type: text}]
outputs: [image]
models:
`
	good := base + `  - id: org/m
    endpoints: [huggingface]
    providers:
      - {provider: fal-ai, id: fal-ai/m, task: text-to-image}
      - {provider: hf-inference}
`
	s, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if ps := s.Models[0].Providers; len(ps) != 2 || ps[0].ProviderID("org/m") != "fal-ai/m" || ps[1].ProviderID("org/m") != "org/m" {
		t.Errorf("providers %+v", ps)
	}
	for name, bad := range map[string]string{
		"no huggingface endpoint": base + "  - {id: org/m, endpoints: [local], providers: [{provider: fal-ai}]}\n",
		"bad status":              base + "  - {id: org/m, endpoints: [huggingface], providers: [{provider: fal-ai, status: warm}]}\n",
		"bad name":                base + "  - {id: org/m, endpoints: [huggingface], providers: [{provider: Fal AI}]}\n",
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestHubProviderMapping(t *testing.T) {
	var gotAuth, gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotQuery = r.Header.Get("Authorization"), r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/models/black-forest-labs/FLUX.1-schnell":
			w.Write([]byte(`{"_id": "x", "id": "black-forest-labs/FLUX.1-schnell", "inferenceProviderMapping": {
			  "replicate": {"providerId": "black-forest-labs/flux-schnell", "status": "live", "task": "text-to-image"},
			  "fal-ai": {"providerId": "fal-ai/flux/schnell", "status": "live", "task": "text-to-image"}}}`))
		case "/api/models/org/old":
			w.Write([]byte(`{"_id": "y", "id": "org/old"}`))
		case "/api/models/org/private":
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error": "Invalid credentials in Authorization header"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error": "Repository not found"}`))
		}
	}))
	defer srv.Close()
	h := &Hub{BaseURL: srv.URL, Token: "hf_user"}
	ps, err := h.ProviderMapping(context.Background(), "black-forest-labs/FLUX.1-schnell")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Name != "replicate" || ps[1].Name != "fal-ai" {
		t.Errorf("providers %+v, want replicate then fal-ai, the Hub's (the user's) order", ps)
	}
	if gotAuth != "Bearer hf_user" || gotQuery != "expand%5B%5D=inferenceProviderMapping" {
		t.Errorf("request: auth %q query %q", gotAuth, gotQuery)
	}
	_, err = h.ProviderMapping(context.Background(), "org/missing")
	if !errors.Is(err, ErrHubNotFound) || !strings.Contains(err.Error(), "which providers serve org/missing") {
		t.Errorf("missing model: %v", err)
	}
	_, err = h.ProviderMapping(context.Background(), "org/private")
	if !errors.Is(err, ErrHubUnauthorized) || !strings.Contains(err.Error(), "HF_TOKEN") {
		t.Errorf("refused token: %v", err)
	}
	if ps, err := h.ProviderMapping(context.Background(), "org/old"); !errors.Is(err, ErrHubUnavailable) || ps != nil {
		t.Errorf("an answer without a mapping: %v, %v; want an error, not \"served by none\"", ps, err)
	}
	if _, err := h.ProviderMapping(context.Background(), "../etc"); err == nil {
		t.Error("a path for a model id was accepted")
	}
}
