package huggingface

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/skills"
)

// Replicate's predictions behind the router: create one at
// {router}/replicate/v1/models/{owner}/{name}/predictions (or
// /v1/predictions with the version, for an id "owner/name:version") with
// Prefer: wait, which answers a prediction {id, status, output, error,
// urls: {get, cancel}}; while it is starting or processing, poll its
// urls.get (the same path behind the router). Files come back as URLs (or
// data: URLs) in output.

// Replicate's prediction statuses.
const (
	replicateSucceeded = "succeeded"
	replicateFailed    = "failed"
	replicateCanceled  = "canceled"
)

// prediction is a Replicate prediction as the API answers it.
type prediction struct {
	ID     string          `json:"id"`
	Status string          `json:"status"`
	Output json.RawMessage `json:"output"`
	Error  any             `json:"error"`
	URLs   struct {
		Get    string `json:"get"`
		Cancel string `json:"cancel"`
	} `json:"urls"`
}

// replicatePredict runs the task as a Replicate prediction: the input
// the official client sends for it, then the output read back.
func replicatePredict(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	input, err := replicateInput(r, req)
	if err != nil {
		return endpoints.Result{}, err
	}
	target, body, err := e.replicateCreate(r, input)
	if err != nil {
		return endpoints.Result{}, err
	}
	cl := jsonCall(http.MethodPost, target, body, ProviderReplicate)
	// Replicate holds the answer up to a minute when it can finish in
	// that time, which saves the polling.
	cl.header = http.Header{"Prefer": {"wait"}}
	data, err := e.callJSON(ctx, req, cl)
	if err != nil {
		return endpoints.Result{}, err
	}
	var p prediction
	if json.Unmarshal(data, &p) != nil || p.Status == "" {
		return endpoints.Result{}, malformed(req, ProviderReplicate, "a prediction {id, status, output}", data)
	}
	data, p, err = e.replicateWait(ctx, r, req, data, p)
	if err != nil {
		return endpoints.Result{}, err
	}
	return e.replicateOutput(ctx, req, data, p)
}

// replicateInput is the prediction's input for the task.
func replicateInput(r route, req endpoints.Request) (map[string]any, error) {
	input := map[string]any{}
	switch req.Task {
	case "text-to-image", "text-to-video":
		t, err := hfapi.TextArg(req, "text")
		if err != nil {
			return nil, err
		}
		input["prompt"] = t
		if r.adapter == "lora" && r.adapterWeights != "" {
			input["lora_weights"] = "https://huggingface.co/" + r.hub
		}
	case "text-to-speech":
		t, err := hfapi.TextArg(req, "text")
		if err != nil {
			return nil, err
		}
		input["text"] = t
	case "automatic-speech-recognition":
		audio, mt, err := hfapi.ReadMedia(req, "audio")
		if err != nil {
			return nil, err
		}
		input["audio"] = hfapi.DataURL(mt, audio)
	case "image-to-image", "image-editing":
		img, mt, err := hfapi.ReadMedia(req, "image")
		if err != nil {
			return nil, err
		}
		prompt := strings.TrimSpace(req.Args["text"])
		if prompt == "" && req.Task == "image-editing" {
			return nil, fmt.Errorf("%w: image-editing needs a \"text\" argument (the edit instruction)", endpoints.ErrBadInput)
		}
		if prompt != "" {
			input["prompt"] = prompt
		}
		// Replicate's models name their image input differently; the
		// official client sends all four.
		u := hfapi.DataURL(mt, img)
		input["image"], input["images"], input["input_image"], input["input_images"] = u, []string{u}, u, []string{u}
		if r.adapter == "lora" && r.adapterWeights != "" {
			input["lora_weights"] = "https://huggingface.co/" + r.hub
		}
	default:
		return nil, fmt.Errorf("%w: replicate: no request shape for %s", endpoints.ErrUnsupported, req.Task)
	}
	return input, nil
}

// replicateCreate is where and what to post to create the prediction.
func (e *Endpoint) replicateCreate(r route, input map[string]any) (string, map[string]any, error) {
	base := e.c.base + "/" + ProviderReplicate
	if name, version, ok := strings.Cut(r.id, ":"); ok {
		if _, err := hfapi.ModelPath(name); err != nil || version == "" {
			return "", nil, fmt.Errorf("replicate: %q is not a model version (owner/name:version)", r.id)
		}
		return base + "/v1/predictions", map[string]any{"input": input, "version": version}, nil
	}
	path, err := hfapi.ModelPath(r.id)
	if err != nil {
		return "", nil, fmt.Errorf("replicate: %w", err)
	}
	return base + "/v1/models/" + path + "/predictions", map[string]any{"input": input}, nil
}

// replicateWait polls a prediction that has not finished until it does,
// reporting its status as it changes; one the task stops waiting for is
// cancelled. A failed or cancelled prediction is an error.
func (e *Endpoint) replicateWait(ctx context.Context, r route, req endpoints.Request, data json.RawMessage, p prediction) (json.RawMessage, prediction, error) {
	start := time.Now()
	last, lastReport := "", time.Time{}
	for !replicateDone(p.Status) {
		get, err := e.replicateURL(p.URLs.Get, p.ID)
		if err != nil {
			return nil, p, malformed(req, ProviderReplicate, "a prediction with urls.get", data)
		}
		if p.Status != last || time.Since(lastReport) >= falRunningReport {
			report(req, endpoints.Progress{Message: fmt.Sprintf("replicate: %s is %s (%s so far)", r.id, p.Status, round(time.Since(start))), Passing: true})
			last, lastReport = p.Status, time.Now()
		}
		if err := httpwire.Sleep(ctx, e.poll); err != nil {
			e.replicateCancel(p)
			return nil, p, fmt.Errorf("%s (%s) %s: stopped waiting for the prediction (cancelled it): %w", skills.EndpointHuggingFace, ProviderReplicate, req.Model, err)
		}
		data, err = e.callJSON(ctx, req, call{method: http.MethodGet, url: get, provider: ProviderReplicate})
		if err != nil {
			if ctx.Err() != nil {
				e.replicateCancel(p)
			}
			return nil, p, err
		}
		id := p.ID
		p = prediction{}
		if json.Unmarshal(data, &p) != nil || p.Status == "" {
			return nil, p, malformed(req, ProviderReplicate, "a prediction {id, status, output}", data)
		}
		if p.ID == "" {
			p.ID = id
		}
	}
	switch p.Status {
	case replicateSucceeded:
		return data, p, nil
	case replicateCanceled:
		return nil, p, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: ProviderReplicate, Status: http.StatusOK, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("replicate cancelled the prediction for %s — try again", r.id)}
	}
	msg := "no reason given"
	switch v := p.Error.(type) {
	case string:
		if strings.TrimSpace(v) != "" {
			msg = strings.TrimSpace(v)
		}
	case nil:
	default:
		b, _ := json.Marshal(v)
		msg = hfapi.Snippet(b)
	}
	return nil, p, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: ProviderReplicate, Status: http.StatusOK, Err: endpoints.ErrUnavailable,
		Message: fmt.Sprintf("replicate failed to run %s: %s — try again, or another provider or candidate", r.id, msg)}
}

func replicateDone(status string) bool {
	return status == replicateSucceeded || status == replicateFailed || status == replicateCanceled
}

// replicateURL maps one of a prediction's URLs (on api.replicate.com,
// which the Hugging Face token does not open) onto the router, which
// forwards it; without one, the prediction's own path.
func (e *Endpoint) replicateURL(u, id string) (string, error) {
	path := ""
	if u != "" {
		pu, err := url.Parse(u)
		if err != nil || !strings.HasPrefix(pu.Path, "/v1/predictions/") || strings.Contains(pu.Path, "..") {
			return "", fmt.Errorf("prediction URL %q", u)
		}
		path = pu.EscapedPath()
	} else if id != "" {
		path = "/v1/predictions/" + url.PathEscape(id)
	} else {
		return "", fmt.Errorf("a prediction without an id")
	}
	return e.c.base + "/" + ProviderReplicate + path, nil
}

// replicateCancel cancels a prediction the task no longer waits for, on
// its own short deadline; best effort.
func (e *Endpoint) replicateCancel(p prediction) {
	target := p.URLs.Cancel
	if target == "" && p.ID != "" {
		target = "https://api.replicate.com/v1/predictions/" + url.PathEscape(p.ID) + "/cancel"
	}
	pu, err := url.Parse(target)
	if err != nil || !strings.HasPrefix(pu.Path, "/v1/predictions/") || strings.Contains(pu.Path, "..") {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := e.c.send(ctx, call{method: http.MethodPost, url: e.c.base + "/" + ProviderReplicate + pu.EscapedPath(), provider: ProviderReplicate}, false)
	if err == nil {
		resp.Body.Close()
	}
}

// replicateOutput reads a finished prediction's output: a transcript for
// speech recognition, else the file at the (first) output URL.
func (e *Endpoint) replicateOutput(ctx context.Context, req endpoints.Request, data json.RawMessage, p prediction) (endpoints.Result, error) {
	var one string
	var many []string
	if req.Task == "automatic-speech-recognition" {
		if text, ok := replicateTranscript(p.Output); ok {
			return endpoints.Result{Text: text, Data: data}, nil
		}
		return endpoints.Result{}, malformed(req, ProviderReplicate, "output: a transcript", data)
	}
	switch {
	case json.Unmarshal(p.Output, &one) == nil && one != "":
	case json.Unmarshal(p.Output, &many) == nil && len(many) > 0 && many[0] != "":
		one = many[0]
	default:
		return endpoints.Result{}, malformed(req, ProviderReplicate, "output: a file URL or a list of them", data)
	}
	blob, err := e.fetchResult(ctx, ProviderReplicate, req.Model, one)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{Blobs: []endpoints.Blob{blob}, Data: data}, nil
}

// replicateTranscript reads a transcription model's output: a string, a
// list of strings, or an object with transcription, translation or text
// (openai/whisper answers {transcription, segments, …}).
func replicateTranscript(output json.RawMessage) (string, bool) {
	var one string
	if json.Unmarshal(output, &one) == nil {
		return strings.TrimSpace(one), true
	}
	var many []string
	if json.Unmarshal(output, &many) == nil && len(many) > 0 {
		return strings.TrimSpace(many[0]), true
	}
	var obj struct {
		Transcription *string `json:"transcription"`
		Translation   *string `json:"translation"`
		Text          *string `json:"text"`
	}
	if json.Unmarshal(output, &obj) != nil {
		return "", false
	}
	for _, s := range []*string{obj.Transcription, obj.Translation, obj.Text} {
		if s != nil {
			return strings.TrimSpace(*s), true
		}
	}
	return "", false
}
