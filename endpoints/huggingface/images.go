package huggingface

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/skills"
)

// generateImages runs text-to-image (and, on together, image-to-image and
// editing) on an OpenAI-style images route,
// {router}/{provider}/v1/images/generations: {prompt, model,
// response_format} in, {data: [{b64_json} | {url}]} out.
func generateImages(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	body := map[string]any{"model": r.id}
	switch r.provider {
	case ProviderNebius:
		body["response_format"] = "b64_json"
	default:
		// together names base64 answers "base64".
		body["response_format"] = "base64"
	}
	if req.Task == "text-to-image" {
		t, err := hfapi.TextArg(req, "text")
		if err != nil {
			return endpoints.Result{}, err
		}
		body["prompt"] = t
	} else {
		img, mt, err := hfapi.ReadMedia(req, "image")
		if err != nil {
			return endpoints.Result{}, err
		}
		prompt := strings.TrimSpace(req.Args["text"])
		if prompt == "" && req.Task == "image-editing" {
			return endpoints.Result{}, fmt.Errorf("%w: image-editing needs a \"text\" argument (the edit instruction)", endpoints.ErrBadInput)
		}
		body["prompt"] = prompt
		// FLUX.1 Kontext takes image_url; together's other editing
		// models take reference_images (as the official client decides).
		u := hfapi.DataURL(mt, img)
		if id := strings.ToLower(r.id); strings.Contains(id, "kontext") && strings.Contains(id, "flux.1") {
			body["image_url"] = u
		} else {
			body["reference_images"] = []string{u}
		}
	}
	data, err := e.callJSON(ctx, req, jsonCall(http.MethodPost, e.c.base+"/"+r.provider+"/v1/images/generations", body, r.provider))
	if err != nil {
		return endpoints.Result{}, err
	}
	var out struct {
		Data []struct {
			URL string          `json:"url"`
			B64 json.RawMessage `json:"b64_json"`
		} `json:"data"`
	}
	if json.Unmarshal(data, &out) != nil || len(out.Data) == 0 {
		return endpoints.Result{}, malformed(req, r.provider, "{data: [{b64_json} or {url}]}", data)
	}
	if first := out.Data[0]; len(first.B64) == 0 && first.URL != "" {
		blob, err := e.fetchResult(ctx, r.provider, req.Model, first.URL)
		if err != nil {
			return endpoints.Result{}, err
		}
		return endpoints.Result{Blobs: []endpoints.Blob{blob}}, nil
	}
	// The base64 answer has hf-inference's JSON image shape.
	res, err := hfapi.Parse("text-to-image", req.Args, "application/json", data, e.c.spool)
	if err != nil || len(res.Blobs) == 0 {
		return endpoints.Result{}, malformed(req, r.provider, "{data: [{b64_json}]}", data)
	}
	return res, nil
}

// chatCompletion runs a text task as a chat completion: on the router's
// own choice of provider ({router}/v1/chat/completions with the Hub id,
// as the official client's "auto" does), on hf-inference (its
// /models/{id}/v1/chat/completions), or on a provider's
// /{provider}/v1/chat/completions with its id — or, for a base model the
// provider serves for text-generation, its /v1/completions with a prompt.
func chatCompletion(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	if r.provider == ProviderHFInference {
		return hfInference(ctx, e, r, req)
	}
	target := e.c.base + "/" + r.provider + "/v1/chat/completions"
	var body map[string]any
	switch {
	case r.provider == ProviderAuto:
		target = e.c.base + "/v1/chat/completions"
		fallthrough
	case r.hubTask != "text-generation" || req.Task != "text-generation":
		msgs, err := hfapi.ChatMessages(req)
		if err != nil {
			return endpoints.Result{}, err
		}
		body = map[string]any{"model": r.id, "messages": msgs}
	default:
		t, err := hfapi.TextArg(req, "text")
		if err != nil {
			return endpoints.Result{}, err
		}
		target = e.c.base + "/" + r.provider + "/v1/completions"
		body = map[string]any{"model": r.id, "prompt": t}
	}
	status, ctype, blob, head, err := e.c.exchange(ctx, req, jsonCall(http.MethodPost, target, body, r.provider))
	if err != nil {
		return endpoints.Result{}, err
	}
	res, err := hfapi.ParseBlob("conversational", req.Args, ctype, blob, head, e.c.spool)
	if err != nil {
		return endpoints.Result{}, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: r.provider, Status: status, Err: endpoints.ErrUnavailable,
			Message: err.Error() + " — the model does not answer like a chat model; another candidate may"}
	}
	res.Provider = r.provider
	return res, nil
}
