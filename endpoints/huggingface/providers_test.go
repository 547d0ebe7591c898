package huggingface

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/skills"
)

const provToken = "hf_providers"

const flux = "black-forest-labs/FLUX.1-schnell"

// noHub in Options.Hub makes newProviderEP configure no Hub: only the
// catalog's mapping is known.
type noHub struct{ MappingSource }

// newProviderEP is an endpoint on the fake router and Hub, asking the Hub
// for mappings as app/engine.go sets it up, with fast polls and backoffs.
func newProviderEP(srv *fakehf.Server, opts Options) *Endpoint {
	opts.BaseURL, opts.Token, opts.HTTPClient = srv.Root, provToken, srv.Client()
	switch opts.Hub.(type) {
	case nil:
		opts.Hub = &skills.Hub{BaseURL: srv.Root, Token: provToken, HTTPClient: srv.Client()}
	case noHub:
		opts.Hub = nil
	}
	opts.DownloadTransport = srv.DownloadTransport()
	if opts.PollInterval == 0 {
		opts.PollInterval = 2 * time.Millisecond
	}
	if opts.Backoff == 0 {
		opts.Backoff = 2 * time.Millisecond
	}
	return New(opts)
}

func newProviderFake(t *testing.T) *fakehf.Server {
	srv := fakehf.New(t)
	srv.RequireToken(provToken)
	return srv
}

// requests returns what the fake got, CDN and Hub requests aside.
func routerRequests(srv *fakehf.Server) []fakehf.Request {
	var out []fakehf.Request
	for _, r := range srv.Requests() {
		if r.Route != "cdn" && !strings.HasPrefix(r.Path, "/api/models/") {
			out = append(out, r)
		}
	}
	return out
}

func jsonOf(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", b, err)
	}
	return m
}

func wantImageWidth(t *testing.T, res endpoints.Result, w int) {
	t.Helper()
	if len(res.Blobs) != 1 {
		t.Fatalf("%d blobs, want 1", len(res.Blobs))
	}
	data, err := res.Blobs[0].Bytes(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	gw, _, err := fakehf.ImageSize(data)
	if err != nil || gw != w || !strings.HasPrefix(res.Blobs[0].MIME, "image/") {
		t.Errorf("image %s %dpx wide (%v), want the provider's %dpx answer", res.Blobs[0].MIME, gw, err, w)
	}
}

// TestFalQueueTextToImage follows fal-ai's queue: submit to the app on the
// queue subdomain, poll the status at the response URL's path through
// the router, fetch the result, and download the image from fal's CDN —
// without the token, which is for Hugging Face only.
func TestFalQueueTextToImage(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image").Queue(1, 1)
	ep := newProviderEP(srv, Options{})
	prompt := "a red fox in the snow"
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": prompt}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "fal-ai" {
		t.Errorf("Provider = %q", res.Provider)
	}
	wantImageWidth(t, res, len(prompt))
	reqs := routerRequests(srv)
	if len(reqs) < 3 {
		t.Fatalf("%d router requests, want submit, polls and result", len(reqs))
	}
	submit := reqs[0]
	if submit.Method != http.MethodPost || submit.Path != "/fal-ai/fal-ai/flux/schnell" || submit.Query != "_subdomain=queue" ||
		submit.Headers.Get("Authorization") != "Bearer "+provToken || submit.Headers.Get("Content-Type") != "application/json" {
		t.Errorf("submit %s %s?%s auth %q type %q", submit.Method, submit.Path, submit.Query, submit.Headers.Get("Authorization"), submit.Headers.Get("Content-Type"))
	}
	if body := jsonOf(t, submit.Body); body["prompt"] != prompt || len(body) != 1 {
		t.Errorf("submit body %s, want {prompt}", submit.Body)
	}
	for _, r := range reqs[1 : len(reqs)-1] {
		if r.Method != http.MethodGet || r.Route != "queue/status" || !strings.HasPrefix(r.Path, "/fal-ai/fal-ai/flux/requests/") || r.Query != "_subdomain=queue" {
			t.Errorf("poll %s %s?%s (%s)", r.Method, r.Path, r.Query, r.Route)
		}
	}
	if last := reqs[len(reqs)-1]; last.Route != "queue/result" || last.Method != http.MethodGet {
		t.Errorf("last request %s %s (%s), want the result", last.Method, last.Path, last.Route)
	}
	dl := srv.Downloads()
	if len(dl) != 1 || !strings.HasPrefix(dl[0].Path, "/files/") {
		t.Fatalf("downloads %+v, want the image from fal's CDN", dl)
	}
	if auth := dl[0].Headers.Get("Authorization"); auth != "" {
		t.Errorf("the CDN was sent credentials: %q", auth)
	}
}

// TestFalSlowJobReportsProgress: a job that waits in the queue and runs a
// while reports its position and its running, and still completes.
func TestFalSlowJobReportsProgress(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", "Wan-AI/Wan2.1-T2V-14B", "fal-ai/wan-t2v", "text-to-video").Queue(3, 4)
	ep := newProviderEP(srv, Options{})
	var mu sync.Mutex
	var msgs []string
	req := endpoints.Request{Task: "text-to-video", Model: "Wan-AI/Wan2.1-T2V-14B", Args: map[string]string{"text": "waves at dusk"},
		Progress: func(p endpoints.Progress) { mu.Lock(); msgs = append(msgs, p.Message); mu.Unlock() }}
	res, err := ep.Infer(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].MIME != "video/mp4" {
		t.Fatalf("blobs %v, want the video", endpointstest.BlobTypes(res))
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"waiting in the queue (position 3)", "position 1", "fal-ai is running fal-ai/wan-t2v", "step 1 of 4"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress %q lacks %q", all, want)
		}
	}
	polls := 0
	for _, r := range routerRequests(srv) {
		if r.Route == "queue/status" {
			polls++
		}
	}
	if polls != 8 {
		t.Errorf("%d status polls, want 8 (3 queued, 4 running, 1 completed)", polls)
	}
}

// TestFalFailedJob: a job that fails is the task's failure with fal's
// reason, naming the provider — whether the status says so (newer
// queues) or only the result does.
func TestFalFailedJob(t *testing.T) {
	for _, inStatus := range []bool{false, true} {
		srv := newProviderFake(t)
		pm := srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image").Queue(0, 1).FailJob("CUDA out of memory")
		if inStatus {
			pm.FailInStatus()
		}
		_, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "fox"}})
		if !errors.Is(err, endpoints.ErrUnavailable) || errors.Is(err, endpoints.ErrBadInput) {
			t.Fatalf("in status %v: err = %v, want ErrUnavailable", inStatus, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "fal-ai") || !strings.Contains(msg, "CUDA out of memory") {
			t.Errorf("in status %v: %q, want the provider and its reason", inStatus, msg)
		}
		if len(srv.Downloads()) != 0 {
			t.Error("a failed job downloaded something")
		}
	}
}

// TestFalJobCancelledWhenTheTaskEnds: a task that stops waiting cancels
// its queued job, so nobody pays for work no one will read.
func TestFalJobCancelledWhenTheTaskEnds(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image").Queue(1000, 0)
	ep := newProviderEP(srv, Options{PollInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	_, err := ep.Infer(ctx, endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "fox"}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	if n := srv.FalCancelled(); n != 1 {
		t.Errorf("%d jobs cancelled, want 1", n)
	}
}

// TestFalSpeechAndTranscription: fal's synchronous apps — {text} in, a
// sound by URL out; a WAV as a data URL under the label fal's decoder
// takes (audio/x-wav), a transcript out.
func TestFalSpeechAndTranscription(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", "hexgrad/Kokoro-82M", "fal-ai/kokoro/american-english", "text-to-speech")
	srv.Provide("fal-ai", "openai/whisper-large-v3", "fal-ai/whisper", "automatic-speech-recognition")
	ep := newProviderEP(srv, Options{})
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "hexgrad/Kokoro-82M", Args: map[string]string{"text": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].MIME != "audio/wav" || res.Provider != "fal-ai" {
		t.Fatalf("speech: blobs %v provider %q", endpointstest.BlobTypes(res), res.Provider)
	}
	sync := srv.RequestsFor("hexgrad/Kokoro-82M")[0]
	if sync.Path != "/fal-ai/fal-ai/kokoro/american-english" || sync.Query != "" || jsonOf(t, sync.Body)["text"] != "hello" {
		t.Errorf("speech request %s?%s %s", sync.Path, sync.Query, sync.Body)
	}

	wav := filepath.Join(t.TempDir(), "hello.wav")
	if err := os.WriteFile(wav, fakehf.WAV(16000, 16000), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = ep.Infer(context.Background(), endpointstest.Request(t, "automatic-speech-recognition", "openai/whisper-large-v3", map[string]string{"audio": wav}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "hello from 1.00 seconds of audio" {
		t.Errorf("transcript %q", res.Text)
	}
	body := jsonOf(t, srv.RequestsFor("openai/whisper-large-v3")[0].Body)
	if u, _ := body["audio_url"].(string); !strings.HasPrefix(u, "data:audio/x-wav;base64,") {
		t.Errorf("audio_url %.40q, want a data URL labelled audio/x-wav", u)
	}
}

// TestFalImageEditing sends the image as a data URL with the instruction.
func TestFalImageEditing(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", "black-forest-labs/FLUX.1-Kontext-dev", "fal-ai/flux-kontext/dev", "image-to-image")
	img := filepath.Join(t.TempDir(), "in.png")
	if err := os.WriteFile(img, fakehf.PNG(30, 20), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpointstest.Request(t, "image-editing", "black-forest-labs/FLUX.1-Kontext-dev",
		map[string]string{"image": img, "text": "make it night"}))
	if err != nil {
		t.Fatal(err)
	}
	wantImageWidth(t, res, 30)
	body := jsonOf(t, routerRequests(srv)[0].Body)
	u, _ := body["image_url"].(string)
	urls, _ := body["image_urls"].([]any)
	if body["prompt"] != "make it night" || !strings.HasPrefix(u, "data:image/png;base64,") || len(urls) != 1 || urls[0] != u {
		t.Errorf("edit body %.200s", routerRequests(srv)[0].Body)
	}
}

// TestReplicatePredictions: a quick prediction comes back finished under
// Prefer: wait; a slow one is polled through the router at its urls.get
// path; a failed one fails the call with Replicate's reason.
func TestReplicatePredictions(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image")
	srv.Provide("replicate", "Wan-AI/Wan2.1-T2V-14B", "wavespeedai/wan-2.1-t2v-480p", "text-to-video").Queue(1, 2)
	srv.Provide("replicate", "hexgrad/Kokoro-82M", "jaaari/kokoro-82m:f559560eb822dc509045f3921a1921234918b91739db4bf3daab2169b71c7a13", "text-to-speech").FailJob("voice not found")
	ep := newProviderEP(srv, Options{})

	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "a fox"}})
	if err != nil {
		t.Fatal(err)
	}
	wantImageWidth(t, res, len("a fox"))
	create := srv.RequestsFor(flux)[0]
	if create.Path != "/replicate/v1/models/black-forest-labs/flux-schnell/predictions" || create.Headers.Get("Prefer") != "wait" {
		t.Errorf("create %s Prefer %q", create.Path, create.Headers.Get("Prefer"))
	}
	if in, _ := jsonOf(t, create.Body)["input"].(map[string]any); in["prompt"] != "a fox" {
		t.Errorf("create body %s, want {input: {prompt}}", create.Body)
	}
	if n := len(srv.RequestsFor(flux)); n != 1 {
		t.Errorf("%d requests for a prediction finished at once, want 1", n)
	}

	var msgs []string
	res, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-video", Model: "Wan-AI/Wan2.1-T2V-14B", Args: map[string]string{"text": "waves"},
		Progress: func(p endpoints.Progress) { msgs = append(msgs, p.Message) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].MIME != "video/mp4" || res.Provider != "replicate" {
		t.Fatalf("video: %v from %q", endpointstest.BlobTypes(res), res.Provider)
	}
	polls := srv.RequestsFor("Wan-AI/Wan2.1-T2V-14B")[1:]
	if len(polls) != 4 || !strings.HasPrefix(polls[0].Path, "/replicate/v1/predictions/") || polls[0].Method != http.MethodGet {
		t.Errorf("polls %d, first %s %s", len(polls), polls[0].Method, polls[0].Path)
	}
	if all := strings.Join(msgs, "\n"); !strings.Contains(all, "replicate: wavespeedai/wan-2.1-t2v-480p is starting") || !strings.Contains(all, "is processing") {
		t.Errorf("progress %q", all)
	}

	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "hexgrad/Kokoro-82M", Args: map[string]string{"text": "hi"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "replicate failed to run") || !strings.Contains(err.Error(), "voice not found") {
		t.Errorf("failed prediction: %v", err)
	}
	if create := srv.RequestsFor("hexgrad/Kokoro-82M")[0]; create.Path != "/replicate/v1/predictions" || jsonOf(t, create.Body)["version"] != "f559560eb822dc509045f3921a1921234918b91739db4bf3daab2169b71c7a13" {
		t.Errorf("a versioned model: %s %s, want /v1/predictions with the version", create.Path, create.Body)
	}
}

// TestReplicateTranscript reads openai/whisper's output object.
func TestReplicateTranscript(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("replicate", "openai/whisper-large-v3", "openai/whisper", "automatic-speech-recognition")
	wav := filepath.Join(t.TempDir(), "a.wav")
	os.WriteFile(wav, fakehf.WAV(8000, 16000), 0o644)
	res, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpointstest.Request(t, "automatic-speech-recognition", "openai/whisper-large-v3", map[string]string{"audio": wav}))
	if err != nil || res.Text != "hello from 0.50 seconds of audio" {
		t.Fatalf("%q, %v", res.Text, err)
	}
}

// TestOpenAIStyleImagesAndChat: together and nebius generate images on
// /v1/images/generations (base64 answers, each provider's name for it)
// and chat on /v1/chat/completions, with their own model ids.
func TestOpenAIStyleImagesAndChat(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("together", flux, "black-forest-labs/FLUX.1-schnell-Free", "text-to-image")
	srv.Provide("nebius", "stabilityai/stable-diffusion-xl-base-1.0", "stability-ai/sdxl", "text-to-image")
	srv.Provide("together", "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "conversational")
	srv.Provide("nebius", "Qwen/Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-72B-Instruct-fast", "conversational")
	srv.Provide("together", "Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-7B-base", "text-generation")
	ep := newProviderEP(srv, Options{Providers: []string{"together", "nebius"}})
	ctx := context.Background()

	for model, want := range map[string]struct{ provider, id, format string }{
		flux: {"together", "black-forest-labs/FLUX.1-schnell-Free", "base64"},
		"stabilityai/stable-diffusion-xl-base-1.0": {"nebius", "stability-ai/sdxl", "b64_json"},
	} {
		res, err := ep.Infer(ctx, endpoints.Request{Task: "text-to-image", Model: model, Args: map[string]string{"text": "a lighthouse"}})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		wantImageWidth(t, res, len("a lighthouse"))
		r := srv.RequestsFor(model)[0]
		body := jsonOf(t, r.Body)
		if r.Path != "/"+want.provider+"/v1/images/generations" || body["model"] != want.id || body["response_format"] != want.format || body["prompt"] != "a lighthouse" {
			t.Errorf("%s: %s %s", model, r.Path, r.Body)
		}
	}
	for model, want := range map[string]struct{ provider, id string }{
		"meta-llama/Llama-3.3-70B-Instruct": {"together", "meta-llama/Llama-3.3-70B-Instruct-Turbo"},
		"Qwen/Qwen2.5-72B-Instruct":         {"nebius", "Qwen/Qwen2.5-72B-Instruct-fast"},
	} {
		res, err := ep.Infer(ctx, endpoints.Request{Task: "conversational", Model: model, Args: map[string]string{"text": "hi"}})
		if err != nil || res.Text != "You said: hi" || res.Provider != want.provider {
			t.Fatalf("%s: %q from %q, %v", model, res.Text, res.Provider, err)
		}
		r := srv.RequestsFor(model)[0]
		if r.Path != "/"+want.provider+"/v1/chat/completions" || jsonOf(t, r.Body)["model"] != want.id {
			t.Errorf("%s: %s %s", model, r.Path, r.Body)
		}
	}
	// A base model served for text-generation completes a prompt.
	res, err := ep.Infer(ctx, endpoints.Request{Task: "text-generation", Model: "Qwen/Qwen2.5-7B", Args: map[string]string{"text": "Once"}})
	if err != nil || res.Text != " and so the story goes on." {
		t.Fatalf("completion %q, %v", res.Text, err)
	}
	if r := srv.RequestsFor("Qwen/Qwen2.5-7B")[0]; r.Path != "/together/v1/completions" || jsonOf(t, r.Body)["prompt"] != "Once" {
		t.Errorf("completion %s %s", r.Path, r.Body)
	}
}

// TestAutoChatUsesTheRouter: with auto, chat goes to the router's own
// route with the Hub id, as the official client sends it.
func TestAutoChatUsesTheRouter(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("together", "meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct-Turbo", "conversational")
	res, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpoints.Request{Task: "social-media-post", Model: "meta-llama/Llama-3.3-70B-Instruct", Args: map[string]string{"text": "a new café"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != ProviderAuto || res.Text != "You said: a new café" {
		t.Errorf("%q from %q", res.Text, res.Provider)
	}
	r := routerRequests(srv)[0]
	body := jsonOf(t, r.Body)
	msgs, _ := body["messages"].([]any)
	if r.Path != "/v1/chat/completions" || body["model"] != "meta-llama/Llama-3.3-70B-Instruct" || len(msgs) != 2 {
		t.Errorf("%s %s", r.Path, r.Body)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want just the chat: the router chooses, the Hub need not be asked", n)
	}
}

// TestProviderOrder: auto follows the Hub's order (the user's); a list in
// huggingface.providers decides instead, and leaves out the others.
func TestProviderOrder(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image")
	srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image")
	srv.Provide("wavespeed", flux, "wavespeed-ai/flux-schnell", "text-to-image")
	for _, tc := range []struct {
		order []string
		want  string
	}{
		{nil, "fal-ai"},
		{[]string{"auto"}, "fal-ai"},
		{[]string{"replicate", "auto"}, "replicate"},
		{[]string{"replicate"}, "replicate"},
	} {
		ep := newProviderEP(srv, Options{Providers: tc.order})
		res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
		if err != nil || res.Provider != tc.want {
			t.Errorf("%v: ran on %q (%v), want %s", tc.order, res.Provider, err, tc.want)
		}
	}
	// Neither allowed provider serves it: Infer says who does.
	ep := newProviderEP(srv, Options{Providers: []string{"together", "nebius"}})
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "fal-ai, replicate") || !strings.Contains(err.Error(), "huggingface.providers (together, nebius)") {
		t.Errorf("err = %v", err)
	}
}

// TestNextProviderAfterNotServed: a provider that does not serve the
// model after all (404, a stale mapping) hands over to the next, and the
// user is told; a provider that keeps failing (5xx) too.
func TestNextProviderAfterNotServed(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image").Status(http.StatusNotFound, "Model fal-ai/flux/schnell not found")
	srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image").Status(http.StatusInternalServerError, "worker crashed")
	srv.Provide("hf-inference", flux, flux, "text-to-image")
	srv.Model(flux, "text-to-image")
	var msgs []string
	res, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "abc"},
		Progress: func(p endpoints.Progress) {
			if strings.Contains(p.Message, "trying") && !p.Passing {
				t.Errorf("a handover is a passing state, replaced by the next: %q", p.Message)
			}
			msgs = append(msgs, p.Message)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "hf-inference" {
		t.Errorf("ran on %q, want hf-inference after fal-ai and replicate failed", res.Provider)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"not served by fal-ai (404); trying replicate", "replicate failed (500): worker crashed; trying hf-inference"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress %q lacks %q", all, want)
		}
	}
}

// TestPaymentRequiredStops: HTTP 402 names the fix (credits, billing) and
// stops — every provider bills the same account — and Check repeats it
// for a while, so candidates elsewhere go first.
func TestPaymentRequiredStops(t *testing.T) {
	srv := newProviderFake(t)
	fal := srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image").Status(http.StatusPaymentRequired, "You have exceeded your monthly included credits for Inference Providers. Subscribe to PRO to get 20x more monthly included credits.")
	rep := srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image")
	ep := newProviderEP(srv, Options{})
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnauthorized) || !errors.Is(err, ErrPaymentRequired) || !endpoints.Retryable(err) {
		t.Fatalf("err = %v, want ErrUnauthorized and ErrPaymentRequired, retryable elsewhere", err)
	}
	for _, want := range []string{"HTTP 402", "fal-ai", "https://huggingface.co/settings/billing", "monthly included credits"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if fal.Calls() != 1 || rep.Calls() != 0 {
		t.Errorf("fal-ai %d calls, replicate %d: the next provider bills the same account", fal.Calls(), rep.Calls())
	}
	if err := ep.Check(context.Background(), "text-to-image", "stabilityai/sdxl-turbo"); !errors.Is(err, ErrPaymentRequired) {
		t.Errorf("Check after a 402: %v", err)
	}
}

// TestProviderRateLimitBacksOff: a 429 from a provider is waited out as
// Hugging Face's own.
func TestProviderRateLimitBacksOff(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("together", flux, "black-forest-labs/FLUX.1-schnell-Free", "text-to-image").Fail(2, http.StatusTooManyRequests, "rate limit exceeded")
	res, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	if err != nil || res.Provider != "together" {
		t.Fatalf("%q, %v", res.Provider, err)
	}
	if n := len(srv.RequestsFor(flux)); n != 3 {
		t.Errorf("%d requests, want 2 refused and 1 answered", n)
	}
}

// TestResultURLMustBePublic: a provider that answers with a file on a
// private address (or this machine) is not followed there.
func TestResultURLMustBePublic(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image").ResultURL("http://127.0.0.1:22/secret.png")
	_, err := newProviderEP(srv, Options{}).Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "fal-ai") {
		t.Errorf("err = %v, want a refusal naming the address", err)
	}
	if len(srv.Downloads()) != 0 {
		t.Error("downloaded anyway")
	}
}

// TestCheckUsesWhatIsKnown: selection stays offline — Check and Provider
// use the catalog's mapping (or an earlier lookup) and say why a model
// is out; a model nothing is known of goes to hf-inference when allowed.
// (Provider names the catalog's provider only where no Hub would be asked
// first: TestProviderNamedOnceSettled.)
func TestCheckUsesWhatIsKnown(t *testing.T) {
	srv := newProviderFake(t)
	known := map[string][]skills.Provider{
		flux:          {{Name: "fal-ai", ID: "fal-ai/flux/schnell", Task: "text-to-image"}, {Name: "replicate", ID: "black-forest-labs/flux-schnell"}},
		"org/wave":    {{Name: "wavespeed", ID: "w/x", Task: "text-to-image"}},
		"org/staging": {{Name: "fal-ai", ID: "x", Status: "staging"}},
	}
	ep := newProviderEP(srv, Options{Known: known, Providers: []string{"replicate", "auto"}, Hub: noHub{}})
	ctx := context.Background()
	if err := ep.Check(ctx, "text-to-image", flux); err != nil {
		t.Errorf("Check: %v", err)
	}
	if p := ep.Provider("text-to-image", flux); p != "replicate" {
		t.Errorf("Provider = %q, want replicate (first in huggingface.providers)", p)
	}
	if err := ep.Check(ctx, "text-to-image", "org/wave"); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "served by wavespeed, which Chorus cannot call") {
		t.Errorf("Check(wavespeed only): %v", err)
	}
	if err := ep.Check(ctx, "text-to-image", "org/staging"); err == nil || !strings.Contains(err.Error(), "no Inference Provider serves org/staging live") {
		t.Errorf("Check(staging only): %v", err)
	}
	if err := ep.Check(ctx, "image-classification", "org/unknown"); err != nil || ep.Provider("image-classification", "org/unknown") != "hf-inference" {
		t.Errorf("a model nothing is known of: %v, provider %q", err, ep.Provider("image-classification", "org/unknown"))
	}
	if got := len(srv.Requests()); got != 0 {
		t.Errorf("Check made %d requests; selection must stay offline", got)
	}
	only := newProviderEP(srv, Options{Known: known, Providers: []string{"together"}})
	if err := only.Check(ctx, "text-to-image", flux); err == nil || !strings.Contains(err.Error(), "none of which is in huggingface.providers (together)") {
		t.Errorf("Check with providers [together]: %v", err)
	}
	if err := only.Check(ctx, "image-classification", "org/unknown"); err == nil || !strings.Contains(err.Error(), "run `chorus models sync` or add hf-inference") {
		t.Errorf("unknown model without hf-inference: %v", err)
	}
	if err := only.Check(ctx, "depth-estimation", "org/unknown"); !errors.Is(err, endpoints.ErrUnavailable) {
		t.Errorf("a task only hf-inference runs, with providers [together]: %v", err)
	}
}

// TestProviderNamedOnceSettled: the catalog says fal-ai and replicate
// serve FLUX, the Hub now lists replicate only. Before the Hub is asked,
// Provider names none (the catalog's fal-ai would be a claim that does not
// run) and asks nothing; ResolveProvider asks as a call would, and names
// replicate; then Provider does too, and the call runs on replicate
// without asking again. Without a Hub the catalog's provider is the one
// that runs, and is named.
func TestProviderNamedOnceSettled(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image")
	known := map[string][]skills.Provider{flux: {{Name: "fal-ai", ID: "fal-ai/flux/schnell", Task: "text-to-image"}, {Name: "replicate", ID: "black-forest-labs/flux-schnell", Task: "text-to-image"}}}
	ep := newProviderEP(srv, Options{Known: known})
	lookups := func() int {
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r.Path, "/api/models/") {
				n++
			}
		}
		return n
	}
	if p := ep.Provider("text-to-image", flux); p != "" || lookups() != 0 {
		t.Fatalf("before the Hub is asked: Provider = %q after %d lookups, want none and none", p, lookups())
	}
	if p := ep.ResolveProvider(context.Background(), "text-to-image", flux); p != "replicate" {
		t.Fatalf("ResolveProvider = %q, want replicate (the Hub's)", p)
	}
	if p := ep.Provider("text-to-image", flux); p != "replicate" {
		t.Errorf("once the Hub said: Provider = %q", p)
	}
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	if err != nil || res.Provider != "replicate" || lookups() != 1 {
		t.Fatalf("ran on %q (%v) after %d lookups, want replicate after 1", res.Provider, err, lookups())
	}
	if p := newProviderEP(srv, Options{Known: known, Hub: noHub{}}).Provider("text-to-image", flux); p != "fal-ai" {
		t.Errorf("without a Hub: Provider = %q, want the catalog's fal-ai", p)
	}
	// The Hub does not know the model: no provider, whatever the catalog says.
	gone := newProviderEP(srv, Options{Known: map[string][]skills.Provider{"org/gone": known[flux]}})
	if p := gone.ResolveProvider(context.Background(), "text-to-image", "org/gone"); p != "" {
		t.Errorf("a model the Hub does not know resolves to %q", p)
	}
	if p := gone.Provider("text-to-image", "org/gone"); p != "" {
		t.Errorf("after the Hub said it does not know the model: Provider = %q", p)
	}
}

// TestLiveMappingWinsAndIsShared: at run time the Hub's mapping replaces
// what the catalog knew (a model that moved provider still runs), it is
// asked once however many calls need it, and an unreachable Hub leaves
// the catalog's mapping in charge.
func TestLiveMappingWinsAndIsShared(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image")
	known := map[string][]skills.Provider{flux: {{Name: "fal-ai", ID: "fal-ai/flux/schnell", Task: "text-to-image"}}}
	ep := newProviderEP(srv, Options{Known: known})
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res endpoints.Result
			res, errs[i] = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
			if errs[i] == nil && res.Provider != "replicate" {
				errs[i] = errors.New("ran on " + res.Provider)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	lookups := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/models/") {
			lookups++
			if r.Headers.Get("Authorization") != "Bearer "+provToken {
				t.Error("the Hub was asked without the token: the user's provider order needs it")
			}
		}
	}
	if lookups != 1 {
		t.Errorf("%d Hub lookups for 4 calls, want 1", lookups)
	}
	if p := ep.Provider("text-to-image", flux); p != "replicate" {
		t.Errorf("after a lookup Provider = %q, want what the Hub said", p)
	}

	// The Hub is down: the catalog's mapping stands in.
	srv2 := newProviderFake(t)
	srv2.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image")
	srv2.HubStatus(http.StatusServiceUnavailable)
	res, err := newProviderEP(srv2, Options{Known: known}).Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	if err != nil || res.Provider != "fal-ai" {
		t.Errorf("Hub down: %q, %v", res.Provider, err)
	}
}

// TestRefusedRouterStopsTheProviders: every provider is behind the router;
// when the router refuses the connection, the next provider is not tried
// (one connection attempt, not one per provider), and the error marks the
// router's host down for the executor.
func TestRefusedRouterStopsTheProviders(t *testing.T) {
	srv := newProviderFake(t)
	srv.Provide("fal-ai", flux, "fal-ai/flux/schnell", "text-to-image")
	srv.Provide("replicate", flux, "black-forest-labs/flux-schnell", "text-to-image")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	var dials atomic.Int32
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}}
	ep := New(Options{BaseURL: "http://" + dead, Token: provToken, HTTPClient: client,
		Hub: &skills.Hub{BaseURL: srv.Root, Token: provToken, HTTPClient: srv.Client()}})
	if h := ep.Host("text-to-image", flux); h != dead {
		t.Fatalf("Host = %q, want the router's %s", h, dead)
	}
	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: flux, Args: map[string]string{"text": "x"}})
	var down *endpoints.HostDownError
	if !errors.As(err, &down) || down.Host != dead || !errors.Is(err, endpoints.ErrUnreachable) || dials.Load() != 1 {
		t.Fatalf("%d connection attempts, err %v; want one, marking %s down", dials.Load(), err, dead)
	}
}
