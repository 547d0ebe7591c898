package fakehf

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/chorusai/chorus/skills"
)

// get asks the fake with an optional bearer token and returns the status,
// the X-Error-Code header and the decoded JSON body.
func get(t *testing.T, method, url, token string) (int, string, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s %s: %q is not a JSON object: %v", method, url, b, err)
	}
	return resp.StatusCode, resp.Header.Get("X-Error-Code"), v
}

// TestWhoami: the Hub's whoami-v2 as the Hub answers it — the token's
// user and access in the Hub's shape, 401 with the Hub's words for no
// token or a wrong one, 405 for another method — and as skills.Hub reads
// it.
func TestWhoami(t *testing.T) {
	t.Parallel()
	open, locked := New(t), New(t)
	locked.RequireToken("hf_good")
	for _, tc := range []struct {
		name, method, token string
		s                   *Server
		code                int
		err                 string
	}{
		{"any token without RequireToken", http.MethodGet, "hf_any", open, 200, ""},
		{"the token", http.MethodGet, "hf_good", locked, 200, ""},
		{"no token", http.MethodGet, "", locked, 401, "Invalid username or password."},
		{"another token", http.MethodGet, "hf_bad", locked, 401, "Invalid credentials in Authorization header"},
		{"POST", http.MethodPost, "hf_good", locked, 405, "Method Not Allowed"},
	} {
		code, _, body := get(t, tc.method, tc.s.Root+"/api/whoami-v2", tc.token)
		if code != tc.code {
			t.Errorf("%s: status %d, want %d (%v)", tc.name, code, tc.code, body)
			continue
		}
		if tc.err != "" {
			if body["error"] != tc.err {
				t.Errorf("%s: error %v, want %q", tc.name, body["error"], tc.err)
			}
			continue
		}
		token, _ := body["auth"].(map[string]any)["accessToken"].(map[string]any)
		if body["type"] != "user" || body["name"] != "chorus-tester" || token["role"] != "read" || token["displayName"] != "chorus" {
			t.Errorf("%s: %v is not the Hub's whoami shape", tc.name, body)
		}
	}
	acct, err := (&skills.Hub{BaseURL: locked.Root, Token: "hf_good"}).Whoami(context.Background())
	if err != nil || acct.Name != "chorus-tester" || acct.Role != "read" || acct.TokenName != "chorus" {
		t.Errorf("Whoami = %+v, %v", acct, err)
	}
	if _, err := (&skills.Hub{BaseURL: locked.Root, Token: "hf_bad"}).Whoami(context.Background()); !errors.Is(err, skills.ErrHubUnauthorized) {
		t.Errorf("Whoami with a wrong token: %v", err)
	}
}

// TestRouterModels: the router's public GET /v1/models lists the models
// its providers serve for chat — each with its providers and their
// status, sorted by id, in the OpenAI list shape — and nothing else; an
// empty router lists [] (not null).
func TestRouterModels(t *testing.T) {
	t.Parallel()
	s := New(t)
	code, _, body := get(t, http.MethodGet, s.Root+"/v1/models", "")
	if code != 200 || body["object"] != "list" || body["data"] == nil || len(body["data"].([]any)) != 0 {
		t.Fatalf("empty router: %d %v", code, body)
	}
	s.Provide("together", "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "conversational")
	s.Provide("nebius", "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct-fast", "conversational").Staging()
	s.Provide("together", "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1", "text-generation")
	s.Provide("fal-ai", "black-forest-labs/FLUX.1-dev", "fal-ai/flux/dev", "text-to-image")
	s.RequireToken("hf_good") // the list stays public
	code, _, body = get(t, http.MethodGet, s.Root+"/v1/models", "")
	data, _ := body["data"].([]any)
	if code != 200 || len(data) != 2 {
		t.Fatalf("router models: %d %v", code, body)
	}
	var ids []string
	for _, d := range data {
		m := d.(map[string]any)
		ids = append(ids, m["id"].(string))
		if m["object"] != "model" || m["owned_by"] == "" {
			t.Errorf("%v is not a model entry", m)
		}
	}
	if !slices.Equal(ids, []string{"deepseek-ai/DeepSeek-R1", "meta-llama/Llama-3.3-70B-Instruct"}) {
		t.Errorf("ids %q: want the chat models, sorted", ids)
	}
	llama := data[1].(map[string]any)["providers"].([]any)
	if len(llama) != 2 || llama[0].(map[string]any)["provider"] != "together" || llama[0].(map[string]any)["status"] != "live" ||
		llama[1].(map[string]any)["status"] != "staging" {
		t.Errorf("llama's providers %v: want together live, nebius staging", llama)
	}
}

// TestHubModelAPI: GET /api/models/{id} answers as the Hub does — asked
// with expand=… for a model's facts (Describe, or a registered model as a
// transformers model of its task, served by hf-inference), with
// expand[]=inferenceProviderMapping for its providers keyed by name; 404
// with X-Error-Code: RepoNotFound for an id it does not know, the status
// HubStatus sets, 400 without expand[] and 405 for another method — read
// through skills.Hub as Chorus reads the real Hub.
func TestHubModelAPI(t *testing.T) {
	t.Parallel()
	s := New(t)
	s.Describe("someone/captioner", HubFacts{PipelineTag: "image-to-text", Library: "transformers", License: "mit", Params: 176619066, Downloads: 21000})
	s.Model("Salesforce/blip-image-captioning-base", "image-to-text")
	s.Provide("fal-ai", "black-forest-labs/FLUX.1-dev", "fal-ai/flux/dev", "text-to-image")
	hub := &skills.Hub{BaseURL: s.Root}
	ctx := context.Background()

	m, err := hub.ModelInfo(ctx, "someone/captioner")
	if err != nil || m.PipelineTag != "image-to-text" || m.License != "mit" || m.Params != 176619066 || m.Downloads != 21000 ||
		len(m.Providers) != 0 || m.Disabled {
		t.Errorf("described model: %+v, %v", m, err)
	}
	m, err = hub.ModelInfo(ctx, "Salesforce/blip-image-captioning-base")
	if err != nil || m.PipelineTag != "image-to-text" || len(m.LiveProviders()) != 1 || m.LiveProviders()[0].Name != "hf-inference" {
		t.Errorf("registered model: %+v, %v", m, err)
	}
	ps, err := hub.ProviderMapping(ctx, "black-forest-labs/FLUX.1-dev")
	if err != nil || len(ps) != 1 || ps[0].Name != "fal-ai" || ps[0].ProviderID("black-forest-labs/FLUX.1-dev") != "fal-ai/flux/dev" || !ps[0].Live() {
		t.Errorf("provider mapping: %+v, %v", ps, err)
	}

	code, xcode, body := get(t, http.MethodGet, s.Root+"/api/models/nobody/nothing?expand=pipeline_tag", "")
	if code != 404 || xcode != "RepoNotFound" || body["error"] != "Repository not found" {
		t.Errorf("unknown id: %d X-Error-Code %q %v", code, xcode, body)
	}
	if _, err := hub.ModelInfo(ctx, "nobody/nothing"); !errors.Is(err, skills.ErrHubNotFound) {
		t.Errorf("ModelInfo of an unknown id: %v", err)
	}
	if code, _, body := get(t, http.MethodGet, s.Root+"/api/models/black-forest-labs/FLUX.1-dev", ""); code != 400 || body["error"] == nil {
		t.Errorf("no expand: %d %v", code, body)
	}
	if code, _, _ := get(t, http.MethodDelete, s.Root+"/api/models/someone/captioner", ""); code != 405 {
		t.Errorf("DELETE: %d", code)
	}
	s.HubStatus(http.StatusServiceUnavailable)
	if _, err := hub.ModelInfo(ctx, "someone/captioner"); !errors.Is(err, skills.ErrHubUnavailable) {
		t.Errorf("a Hub answering 503: %v", err)
	}
}
