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

// fal-ai's routes behind the router. Images and videos go through its
// queue — submit {router}/fal-ai/{id}?_subdomain=queue, which answers
// {request_id, status, response_url}; poll {response_url's path}/status
// until COMPLETED; fetch the result at the response URL's path — and the
// result names the file by URL. Speech runs synchronously on
// {router}/fal-ai/{id}.

// falQueueSuffix routes a request to fal's queue host through the router.
const falQueueSuffix = "?_subdomain=queue"

// fal's queue statuses.
const (
	falInQueue    = "IN_QUEUE"
	falInProgress = "IN_PROGRESS"
	falCompleted  = "COMPLETED"
)

// falRunningReport is how often a running job's progress is reported.
const falRunningReport = 5 * time.Second

// falQueueImage generates or edits an image on fal-ai's queue: the prompt
// (text-to-image), or the image as a data URL with the instruction
// (image-to-image, image-editing), with the model's LoRA when the mapping
// names one.
func falQueueImage(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	payload := map[string]any{}
	if req.Task == "text-to-image" {
		t, err := hfapi.TextArg(req, "text")
		if err != nil {
			return endpoints.Result{}, err
		}
		payload["prompt"] = t
		if r.adapter == "lora" && r.adapterWeights != "" && r.id == "fal-ai/lora" {
			payload["model_name"] = "stabilityai/stable-diffusion-xl-base-1.0"
		}
	} else {
		img, mt, err := hfapi.ReadMedia(req, "image")
		if err != nil {
			return endpoints.Result{}, err
		}
		prompt := strings.TrimSpace(req.Args["text"])
		if prompt == "" && req.Task == "image-editing" {
			return endpoints.Result{}, fmt.Errorf("%w: image-editing needs a \"text\" argument (the edit instruction)", endpoints.ErrBadInput)
		}
		if prompt != "" {
			payload["prompt"] = prompt
		}
		// Some of fal's apps read image_url, others image_urls.
		u := hfapi.DataURL(mt, img)
		payload["image_url"], payload["image_urls"] = u, []string{u}
	}
	falLoRA(payload, r)
	result, err := e.falQueue(ctx, r, req, payload)
	if err != nil {
		return endpoints.Result{}, err
	}
	var out struct {
		Images []struct {
			URL string `json:"url"`
		} `json:"images"`
	}
	if json.Unmarshal(result, &out) != nil || len(out.Images) == 0 || out.Images[0].URL == "" {
		return endpoints.Result{}, malformed(req, ProviderFalAI, "{images: [{url}]}", result)
	}
	blob, err := e.fetchResult(ctx, ProviderFalAI, req.Model, out.Images[0].URL)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{Blobs: []endpoints.Blob{blob}, Data: result}, nil
}

// falQueueVideo generates a video from the prompt on fal-ai's queue.
func falQueueVideo(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	t, err := hfapi.TextArg(req, "text")
	if err != nil {
		return endpoints.Result{}, err
	}
	payload := map[string]any{"prompt": t}
	falLoRA(payload, r)
	result, err := e.falQueue(ctx, r, req, payload)
	if err != nil {
		return endpoints.Result{}, err
	}
	var out struct {
		Video struct {
			URL string `json:"url"`
		} `json:"video"`
	}
	if json.Unmarshal(result, &out) != nil || out.Video.URL == "" {
		return endpoints.Result{}, malformed(req, ProviderFalAI, "{video: {url}}", result)
	}
	blob, err := e.fetchResult(ctx, ProviderFalAI, req.Model, out.Video.URL)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{Blobs: []endpoints.Blob{blob}, Data: result}, nil
}

// falLoRA adds the model's LoRA weights on the Hub, when the mapping says
// the provider applies the model as one.
func falLoRA(payload map[string]any, r route) {
	if r.adapter == "lora" && r.adapterWeights != "" {
		payload["loras"] = []map[string]any{{"path": loraURL(r.hub, r.adapterWeights), "scale": 1}}
	}
}

// loraURL is where a LoRA's weights file is downloaded from on the Hub.
func loraURL(model, weights string) string {
	return "https://huggingface.co/" + model + "/resolve/main/" + weights
}

// falSpeech synthesises speech synchronously: {text} in, {audio: {url}}
// out, the sound downloaded from the URL.
func falSpeech(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	t, err := hfapi.TextArg(req, "text")
	if err != nil {
		return endpoints.Result{}, err
	}
	target, err := e.falURL(r.id, "")
	if err != nil {
		return endpoints.Result{}, err
	}
	result, err := e.callJSON(ctx, req, jsonCall(http.MethodPost, target, map[string]any{"text": t}, ProviderFalAI))
	if err != nil {
		return endpoints.Result{}, err
	}
	var out struct {
		Audio struct {
			URL string `json:"url"`
		} `json:"audio"`
	}
	if json.Unmarshal(result, &out) != nil || out.Audio.URL == "" {
		return endpoints.Result{}, malformed(req, ProviderFalAI, "{audio: {url}}", result)
	}
	blob, err := e.fetchResult(ctx, ProviderFalAI, req.Model, out.Audio.URL)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{Blobs: []endpoints.Blob{blob}, Data: result}, nil
}

// falAudioTypes are the audio types fal's data-URL decoder accepts, under
// the label it wants (the official client's table): the same bytes
// labelled audio/wav are refused, as audio/x-wav accepted.
var falAudioTypes = map[string]string{
	"audio/mpeg": "audio/mpeg", "audio/mp3": "audio/mpeg",
	"audio/wav": "audio/x-wav", "audio/wave": "audio/x-wav", "audio/x-wav": "audio/x-wav",
	"audio/webm": "video/webm", "video/webm": "video/webm",
}

// falTranscribe transcribes speech synchronously: {audio_url: data URL}
// in, {text} (or {output}) out.
func falTranscribe(ctx context.Context, e *Endpoint, r route, req endpoints.Request) (endpoints.Result, error) {
	audio, mt, err := hfapi.ReadMedia(req, "audio")
	if err != nil {
		return endpoints.Result{}, err
	}
	label, ok := falAudioTypes[mt]
	if !ok {
		// Another provider may take it; fal-ai's decoder would refuse it.
		return endpoints.Result{}, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: ProviderFalAI, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("fal-ai takes wav, mp3 or webm audio, not %s — convert the file (ffmpeg -i in out.wav) or let another provider run it", mt)}
	}
	target, err := e.falURL(r.id, "")
	if err != nil {
		return endpoints.Result{}, err
	}
	result, err := e.callJSON(ctx, req, jsonCall(http.MethodPost, target, map[string]any{"audio_url": hfapi.DataURL(label, audio)}, ProviderFalAI))
	if err != nil {
		return endpoints.Result{}, err
	}
	var out struct {
		Text   *string `json:"text"`
		Output *string `json:"output"`
	}
	switch {
	case json.Unmarshal(result, &out) != nil:
	case out.Text != nil:
		return endpoints.Result{Text: strings.TrimSpace(*out.Text), Data: result}, nil
	case out.Output != nil:
		return endpoints.Result{Text: strings.TrimSpace(*out.Output), Data: result}, nil
	}
	return endpoints.Result{}, malformed(req, ProviderFalAI, "{text}", result)
}

// falURL is the router's URL for fal's app id, direct or (with suffix
// falQueueSuffix) on its queue.
func (e *Endpoint) falURL(id, suffix string) (string, error) {
	path, err := hfapi.ModelPath(id)
	if err != nil {
		return "", fmt.Errorf("fal-ai: %w", err)
	}
	return e.c.base + "/" + ProviderFalAI + "/" + path + suffix, nil
}

// falJob is what fal's queue says of a job: the submit answer and every
// status answer.
type falJob struct {
	RequestID     string `json:"request_id"`
	Status        string `json:"status"`
	ResponseURL   string `json:"response_url"`
	QueuePosition *int   `json:"queue_position"`
	Logs          []struct {
		Message string `json:"message"`
	} `json:"logs"`
	// Error is set on a job that ended badly (newer queue versions say
	// so in the status; older ones only in the result).
	Error any `json:"error"`
}

// falQueue submits payload to fal's queue for r.id, follows the job with
// progress reports until it completes, and returns its result. A job the
// task stops waiting for is cancelled, so the user is not billed for it.
func (e *Endpoint) falQueue(ctx context.Context, r route, req endpoints.Request, payload map[string]any) (json.RawMessage, error) {
	submit, err := e.falURL(r.id, falQueueSuffix)
	if err != nil {
		return nil, err
	}
	data, err := e.callJSON(ctx, req, jsonCall(http.MethodPost, submit, payload, ProviderFalAI))
	if err != nil {
		return nil, err
	}
	var job falJob
	if json.Unmarshal(data, &job) != nil || job.RequestID == "" {
		return nil, malformed(req, ProviderFalAI, "a queued job {request_id, status, response_url}", data)
	}
	path, err := falJobPath(r.id, job)
	if err != nil {
		return nil, malformed(req, ProviderFalAI, "a response_url on fal's queue", data)
	}
	jobURL := e.c.base + "/" + ProviderFalAI + path
	start := time.Now()
	lastStatus, lastPos, lastReport := "", -1, time.Time{}
	for {
		if msg := falJobError(job); msg != "" {
			return nil, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: ProviderFalAI, Status: http.StatusOK, Err: endpoints.ErrUnavailable,
				Message: fmt.Sprintf("fal-ai failed to run %s: %s — try again, or another provider or candidate", r.id, msg)}
		}
		if job.Status == falCompleted {
			break
		}
		if job.Status != falInQueue && job.Status != falInProgress {
			// Not a state that ends in a result: waiting longer would
			// only spend the task's time.
			return nil, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: ProviderFalAI, Status: http.StatusOK, Err: endpoints.ErrUnavailable,
				Message: fmt.Sprintf("fal-ai reports the job for %s as %q — try again, or another provider or candidate", r.id, job.Status)}
		}
		pos := -1
		if job.QueuePosition != nil {
			pos = *job.QueuePosition
		}
		switch {
		case job.Status != lastStatus || pos != lastPos:
			report(req, falProgress(r.id, job, pos, time.Since(start)))
			lastReport = time.Now()
		case time.Since(lastReport) >= falRunningReport:
			report(req, falProgress(r.id, job, pos, time.Since(start)))
			lastReport = time.Now()
		}
		lastStatus, lastPos = job.Status, pos
		if err := httpwire.Sleep(ctx, e.poll); err != nil {
			e.falCancel(jobURL)
			return nil, fmt.Errorf("%s (%s) %s: stopped waiting for the queued job (cancelled it): %w", skills.EndpointHuggingFace, ProviderFalAI, req.Model, err)
		}
		data, err := e.callJSON(ctx, req, call{method: http.MethodGet, url: jobURL + "/status" + falQueueSuffix, provider: ProviderFalAI})
		if err != nil {
			if ctx.Err() != nil {
				e.falCancel(jobURL)
			}
			return nil, err
		}
		job = falJob{}
		if json.Unmarshal(data, &job) != nil || job.Status == "" {
			return nil, malformed(req, ProviderFalAI, "a job status {status}", data)
		}
	}
	result, err := e.callJSON(ctx, req, call{method: http.MethodGet, url: jobURL + falQueueSuffix, provider: ProviderFalAI})
	if err != nil {
		return nil, err
	}
	if msg := falResultError(result); msg != "" {
		return nil, &endpoints.HTTPError{Kind: skills.EndpointHuggingFace, Model: req.Model, Provider: ProviderFalAI, Status: http.StatusOK, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("fal-ai failed to run %s: %s — try again, or another provider or candidate", r.id, msg)}
	}
	return result, nil
}

// falJobPath is the job's path on the queue host, from its response_url
// (".../{app}/requests/{id}"), which may differ from the app submitted to
// (a sub-app's jobs live under its parent); without one it is built from
// the app id, as fal lays it out.
func falJobPath(app string, job falJob) (string, error) {
	if job.ResponseURL != "" {
		u, err := url.Parse(job.ResponseURL)
		if err != nil || !strings.Contains(u.Path, "/requests/") || strings.Contains(u.Path, "..") || !strings.HasPrefix(u.Path, "/") {
			return "", fmt.Errorf("response_url %q", job.ResponseURL)
		}
		return u.EscapedPath(), nil
	}
	segs := strings.Split(app, "/")
	if len(segs) > 2 {
		segs = segs[:2]
	}
	return "/" + strings.Join(segs, "/") + "/requests/" + url.PathEscape(job.RequestID), nil
}

// falProgress describes a job's state for the user.
func falProgress(app string, job falJob, pos int, waited time.Duration) endpoints.Progress {
	var msg string
	switch job.Status {
	case falInQueue:
		msg = fmt.Sprintf("fal-ai: %s is waiting in the queue", app)
		if pos >= 0 {
			msg += fmt.Sprintf(" (position %d)", pos)
		}
	case falInProgress:
		msg = fmt.Sprintf("fal-ai is running %s (%s so far)", app, round(waited))
		if n := len(job.Logs); n > 0 && strings.TrimSpace(job.Logs[n-1].Message) != "" {
			msg += ": " + strings.TrimSpace(job.Logs[n-1].Message)
		}
	default:
		msg = fmt.Sprintf("fal-ai: %s is %s", app, strings.ToLower(job.Status))
	}
	// A state of the queue: the next one replaces it on screen.
	return endpoints.Progress{Message: msg, Passing: true}
}

// falJobError is the error a job status reports, "" for none.
func falJobError(job falJob) string {
	switch v := job.Error.(type) {
	case string:
		return strings.TrimSpace(v)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return hfapi.Snippet(b)
	}
}

// falResultError is the error a finished job's result holds instead of
// one ({"detail": …} as fal's apps answer a failure), "" for a result.
func falResultError(result []byte) string {
	var v struct {
		Detail any `json:"detail"`
		Images any `json:"images"`
		Video  any `json:"video"`
	}
	if json.Unmarshal(result, &v) != nil || v.Detail == nil || v.Images != nil || v.Video != nil {
		return ""
	}
	return hfapi.Message(result)
}

// falCancel asks fal's queue to cancel a job the task no longer waits
// for, on its own short deadline since the task's has ended. It is best
// effort: the job may have finished, or the router may refuse.
func (e *Endpoint) falCancel(jobURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := e.c.send(ctx, call{method: http.MethodPut, url: jobURL + "/cancel" + falQueueSuffix, provider: ProviderFalAI}, false)
	if err == nil {
		resp.Body.Close()
	}
}

// jsonCall is a call with a JSON body.
func jsonCall(method, target string, v any, provider string) call {
	return call{method: method, url: target, contentType: "application/json", body: hfapi.EncodeJSON(v), provider: provider}
}
