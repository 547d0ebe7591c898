package local

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/skills"
)

func TestLocalUnconfigured(t *testing.T) {
	ep := New(Options{})
	if err := ep.Check(context.Background(), "image-to-text", "m/x"); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "set local.url") {
		t.Errorf("Check = %v, want ErrUnavailable naming local.url", err)
	}
	if _, err := ep.Infer(context.Background(), endpoints.Request{Task: "image-to-text", Model: "m/x"}); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "local.url") {
		t.Errorf("Infer = %v", err)
	}
	if err := New(Options{URL: "http://127.0.0.1:1", Protocol: "grpc"}).Check(context.Background(), "image-to-text", "m/x"); err == nil || !strings.Contains(err.Error(), "jarvis or hf") {
		t.Errorf("unknown protocol: %v", err)
	}
	if ep.Kind() != skills.EndpointLocal || ep.Protocol() != ProtocolJarvis {
		t.Errorf("Kind %s Protocol %s", ep.Kind(), ep.Protocol())
	}
	var _ endpoints.Endpoint = (*Endpoint)(nil)
}

func TestLocalHFProtocol(t *testing.T) {
	srv := fakehf.New(t)
	f := testkit.WriteInputs(t)
	srv.Model("Salesforce/blip", "image-to-text").LoadingFor(1, 0.001)
	ep := New(Options{URL: srv.URL, Protocol: ProtocolHF, Backoff: time.Millisecond})
	if err := ep.Check(context.Background(), "image-to-text", "Salesforce/blip"); err != nil {
		t.Fatalf("Check: %v", err)
	}
	var log endpointstest.ProgressLog
	res, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "image-to-text", Model: "Salesforce/blip", Args: map[string]string{"image": f.PNG}, Progress: log.Add}))
	if err != nil {
		t.Fatalf("Infer: %v", err)
	}
	if res.Text != "a 40x30 photo of a cat sitting on a sofa" {
		t.Errorf("Text = %q", res.Text)
	}
	reqs := srv.RequestsFor("Salesforce/blip")
	if len(reqs) != 2 || reqs[1].Headers.Get("X-Wait-For-Model") != "true" || len(log.All()) != 1 {
		t.Fatalf("%d requests, %d progress reports; want the loading retry of the HF protocol", len(reqs), len(log.All()))
	}
	for _, r := range reqs {
		if r.Headers.Get("Authorization") != "" {
			t.Error("a Hugging Face token was sent to a local server")
		}
		testkit.SameFile(t, r.Body, f.PNG)
	}
	if _, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "canny-control", Model: "canny-control", Args: map[string]string{"image": f.PNG}})); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("ControlNet on hf protocol: %v, want ErrUnsupported", err)
	}
	if err := ep.Check(context.Background(), "canny-text-to-image", "lllyasviel/sd-controlnet-canny"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("Check ControlNet on hf protocol: %v", err)
	}
	_, err = ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "image-to-text", Model: "not/there", Args: map[string]string{"image": f.PNG}}))
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "not served by the local server") {
		t.Errorf("404 on local server: %v", err)
	}
	srv.RequireToken("secret")
	_, err = ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "image-to-text", Model: "Salesforce/blip", Args: map[string]string{"image": f.PNG}}))
	if !errors.Is(err, endpoints.ErrUnauthorized) || !strings.Contains(err.Error(), "no credentials to local servers") {
		t.Errorf("401 on local server: %v", err)
	}
}

func TestLocalHFProtocolUnreachable(t *testing.T) {
	srv := fakehf.New(t)
	url := srv.URL
	srv.Close()
	ep := New(Options{URL: url, Protocol: ProtocolHF})
	err := ep.Check(context.Background(), "summarization", "m/x")
	if !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), "local server "+url+" is not reachable") || !strings.Contains(err.Error(), "local.url") {
		t.Errorf("Check = %v", err)
	}
	_, err = ep.Infer(context.Background(), endpointstest.Summarize("m/x", nil))
	if !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), "local.url") {
		t.Errorf("Infer = %v", err)
	}
}

// countPath counts the requests a jarvis fake received for a path.
func countPath(j *fakehf.Jarvis, path string) int {
	n := 0
	for _, r := range j.Requests() {
		if r.Path == path {
			n++
		}
	}
	return n
}

func TestLocalCheckCachesAndShares(t *testing.T) {
	j := fakehf.NewJarvis(t)
	j.Model("Salesforce/blip-image-captioning-large", "image-to-text")
	j.Model("openai/whisper-base", "automatic-speech-recognition")
	ep := New(Options{URL: j.URL})

	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			errs <- ep.Check(context.Background(), "image-to-text", "Salesforce/blip-image-captioning-large")
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
	}
	if n := countPath(j, "/running"); n != 1 {
		t.Errorf("20 concurrent checks made %d /running probes, want 1", n)
	}
	if n := countPath(j, "/status/Salesforce/blip-image-captioning-large"); n != 1 {
		t.Errorf("%d status probes, want 1", n)
	}
	if err := ep.Check(context.Background(), "automatic-speech-recognition", "openai/whisper-base"); err != nil {
		t.Fatal(err)
	}
	if countPath(j, "/running") != 1 || countPath(j, "/status/openai/whisper-base") != 1 {
		t.Errorf("a second model re-probed /running or missed its status probe: %d, %d",
			countPath(j, "/running"), countPath(j, "/status/openai/whisper-base"))
	}

	// With a TTL that has always expired, every check probes again.
	fresh := New(Options{URL: j.URL, CheckTTL: time.Nanosecond})
	before := countPath(j, "/running")
	for range 3 {
		if err := fresh.Check(context.Background(), "image-to-text", "Salesforce/blip-image-captioning-large"); err != nil {
			t.Fatal(err)
		}
	}
	if n := countPath(j, "/running") - before; n != 3 {
		t.Errorf("expired cache: %d probes for 3 checks", n)
	}
}

func TestLocalCheckModelNotLoaded(t *testing.T) {
	j := fakehf.NewJarvis(t)
	j.Model("microsoft/trocr-base-printed", "image-to-text").Disable()
	ep := New(Options{URL: j.URL})
	for _, model := range []string{"microsoft/trocr-base-printed", "never/deployed"} {
		err := ep.Check(context.Background(), "image-to-text", model)
		if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "model "+model+" is not loaded on the local server "+j.URL) {
			t.Errorf("%s: Check = %v", model, err)
		}
	}
	if err := ep.Check(context.Background(), "time-travel", "x/y"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("unknown task: %v", err)
	}
}

func TestLocalCheckUnreachable(t *testing.T) {
	j := fakehf.NewJarvis(t)
	url := j.URL
	j.Close()
	err := New(Options{URL: url}).Check(context.Background(), "image-to-text", "m/x")
	want := "local server " + url + " is not reachable — start HuggingGPT's models_server or set local.url"
	if !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), want) {
		t.Errorf("Check = %v, want ErrUnreachable with %q", err, want)
	}
}

func TestLocalCheckWrongServer(t *testing.T) {
	srv := fakehf.New(t) // an HF-style server configured as jarvis
	err := New(Options{URL: srv.Root}).Check(context.Background(), "image-to-text", "m/x")
	var he *endpoints.HTTPError
	if !errors.Is(err, endpoints.ErrUnavailable) || !errors.As(err, &he) || he.Status != http.StatusNotFound || !strings.Contains(err.Error(), "local.protocol: hf") {
		t.Errorf("Check = %v, want ErrUnavailable suggesting local.protocol: hf", err)
	}
}

func TestLocalFailureInvalidatesCache(t *testing.T) {
	j := fakehf.NewJarvis(t)
	j.Model("openai/whisper-base", "automatic-speech-recognition")
	f := testkit.WriteInputs(t)
	ep := New(Options{URL: j.URL})
	if err := ep.Check(context.Background(), "automatic-speech-recognition", "openai/whisper-base"); err != nil {
		t.Fatal(err)
	}
	j.Close()
	_, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "automatic-speech-recognition", Model: "openai/whisper-base", Args: map[string]string{"audio": f.WAV}}))
	if !errors.Is(err, endpoints.ErrUnreachable) {
		t.Fatalf("Infer on a dead server = %v", err)
	}
	// The cached "reachable" must not outlive the failure.
	if err := ep.Check(context.Background(), "automatic-speech-recognition", "openai/whisper-base"); !errors.Is(err, endpoints.ErrUnreachable) {
		t.Errorf("Check after the server died = %v, want ErrUnreachable", err)
	}
}

func TestLocalCheckHonoursCallerContext(t *testing.T) {
	arrived := make(chan struct{}, 10)
	release := make(chan struct{})
	var mu sync.Mutex
	probes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/running" {
			mu.Lock()
			probes++
			mu.Unlock()
			arrived <- struct{}{}
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"running": true, "loaded": true}`))
	}))
	defer srv.Close()
	defer close(release)
	ep := New(Options{URL: srv.URL})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ep.Check(ctx, "image-to-text", "m/x") }()
	<-arrived
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Check = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled Check waited for the probe")
	}
	// Another caller shares the probe still in flight instead of starting one.
	second := make(chan error, 1)
	go func() { second <- ep.Check(context.Background(), "image-to-text", "m/x") }()
	release <- struct{}{}
	if err := <-second; err != nil {
		t.Fatalf("second Check = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if probes != 1 {
		t.Errorf("%d /running probes, want 1 shared", probes)
	}
}

// TestAGivenUpCheckHidesThePassword: a check that gives up while the
// probe still runs names the server without the password its URL carries.
func TestAGivenUpCheckHidesThePassword(t *testing.T) {
	t.Parallel()
	const pass = "S3cretPass"
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	ep := New(Options{URL: strings.Replace(srv.URL, "http://", "http://admin:"+pass+"@", 1)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := ep.Check(ctx, "image-to-text", "m/x")
	if err == nil || strings.Contains(err.Error(), pass) || !strings.Contains(err.Error(), "admin:REDACTED@") {
		t.Fatalf("a check given up: %v", err)
	}
}
