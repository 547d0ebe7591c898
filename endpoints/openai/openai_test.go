package openai_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeopenai"
)

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func newEndpoint(srv ...openai.Server) *openai.Endpoint {
	for i := range srv {
		srv[i].Index = i
	}
	return openai.New(openai.Options{Servers: srv})
}

func blobBytes(t *testing.T, res endpoints.Result) []byte {
	t.Helper()
	if len(res.Blobs) != 1 {
		t.Fatalf("blobs %d, want 1", len(res.Blobs))
	}
	b, err := res.Blobs[0].Bytes(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEveryRoute runs each route against the fake and checks that the
// input arrived (the fake derives its answer from it) and the answer was
// read in OpenAI's shape.
func TestEveryRoute(t *testing.T) {
	fake := fakeopenai.New(t, "sdxl", "pix2pix", "whisper-1", "kokoro", "llava")
	fake.RequireKey("sk-test")
	ep := newEndpoint(openai.Server{Name: "localai", URL: fake.URL + "/v1/", Key: "sk-test", Voice: "af_heart", Models: map[string][]string{
		"text-to-image": {"sdxl"}, "image-editing": {"pix2pix"}, "automatic-speech-recognition": {"whisper-1"},
		"text-to-speech": {"kokoro"}, "image-to-text": {"llava"}, "visual-question-answering": {"llava"}, "summarization": {"llava"},
	}})
	ctx := context.Background()
	img := writeFile(t, "photo.png", fakehf.PNG(33, 21))
	wav := writeFile(t, "talk.wav", fakehf.WAV(1600, 16000))

	t.Run("text-to-image", func(t *testing.T) {
		res, err := ep.Infer(ctx, endpointstest.Request(t, "text-to-image", "sdxl", map[string]string{"text": "a red fox"}))
		if err != nil {
			t.Fatal(err)
		}
		if w, _, err := fakehf.ImageSize(blobBytes(t, res)); err != nil || w != len("a red fox") {
			t.Errorf("image %d px wide (%v), want the prompt's length", w, err)
		}
		if res.Provider != "localai" {
			t.Errorf("provider %q", res.Provider)
		}
		r := fake.Requests("/v1/images/generations")
		if len(r) != 1 || r[0].Fields["response_format"] != "b64_json" || r[0].Auth != "Bearer sk-test" {
			t.Errorf("requests %+v", r)
		}
	})
	t.Run("image-editing multipart", func(t *testing.T) {
		res, err := ep.Infer(ctx, endpointstest.Request(t, "image-editing", "pix2pix", map[string]string{"image": img, "text": "make it winter"}))
		if err != nil {
			t.Fatal(err)
		}
		if w, h, err := fakehf.ImageSize(blobBytes(t, res)); err != nil || w != 33 || h != 21 {
			t.Errorf("edited image %dx%d (%v), want the upload's 33x21", w, h, err)
		}
		r := fake.Requests("/v1/images/edits")
		if len(r) != 1 || r[0].Files["image"] != "photo.png" || r[0].Fields["prompt"] != "make it winter" || r[0].Fields["model"] != "pix2pix" {
			t.Errorf("form %+v", r)
		}
	})
	t.Run("automatic-speech-recognition multipart", func(t *testing.T) {
		res, err := ep.Infer(ctx, endpointstest.Request(t, "automatic-speech-recognition", "whisper-1", map[string]string{"audio": wav}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "transcript of talk.wav (1600 samples at 16000 Hz)" {
			t.Errorf("text %q", res.Text)
		}
		r := fake.Requests("/v1/audio/transcriptions")
		if len(r) != 1 || r[0].Files["file"] != "talk.wav" || r[0].Fields["model"] != "whisper-1" {
			t.Errorf("form %+v", r)
		}
	})
	t.Run("text-to-speech", func(t *testing.T) {
		res, err := ep.Infer(ctx, endpointstest.Request(t, "text-to-speech", "kokoro", map[string]string{"text": "hello"}))
		if err != nil {
			t.Fatal(err)
		}
		if n, _, err := fakehf.WAVInfo(blobBytes(t, res)); err != nil || n != 500 {
			t.Errorf("wav of %d samples (%v), want 500 for 5 characters", n, err)
		}
		if res.Blobs[0].MIME != "audio/wav" {
			t.Errorf("mime %q", res.Blobs[0].MIME)
		}
		if r := fake.Requests("/v1/audio/speech"); len(r) != 1 || r[0].Fields["voice"] != "af_heart" || r[0].Fields["input"] != "hello" {
			t.Errorf("requests %+v", r)
		}
	})
	t.Run("vision chat", func(t *testing.T) {
		res, err := ep.Infer(ctx, endpointstest.Request(t, "visual-question-answering", "llava", map[string]string{"image": img, "text": "how many foxes?"}))
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "an image of 33x21 px; asked: how many foxes?" {
			t.Errorf("answer %q", res.Text)
		}
		res, err = ep.Infer(ctx, endpointstest.Request(t, "image-to-text", "llava", map[string]string{"image": img}))
		if err != nil || !strings.HasPrefix(res.Text, "an image of 33x21 px") {
			t.Errorf("caption %q, %v", res.Text, err)
		}
		r := fake.Requests("/v1/chat/completions")
		if len(r) != 2 || r[0].Images != 1 || r[0].Fields["system"] != endpoints.VQABrief {
			t.Errorf("requests %+v", r)
		}
	})
	t.Run("text chat", func(t *testing.T) {
		res, err := ep.Infer(ctx, endpointstest.Request(t, "summarization", "llava", map[string]string{"text": "long text"}))
		if err != nil || res.Text != "echo: long text" {
			t.Errorf("summary %q, %v", res.Text, err)
		}
	})
	t.Run("a file the turn may not read is not sent", func(t *testing.T) {
		_, err := ep.Infer(ctx, endpoints.Request{Task: "image-editing", Model: "pix2pix", Args: map[string]string{"image": img, "text": "x"}})
		if !errors.Is(err, endpoints.ErrBadInput) {
			t.Errorf("err %v, want bad input", err)
		}
	})
}

// TestURLAnswers: an image answered by URL on the server's own origin is
// fetched from it (LocalAI's /generated-images/); one on a private address
// elsewhere is refused by the trust rule for result URLs.
func TestURLAnswers(t *testing.T) {
	fake := fakeopenai.New(t, "sd")
	fake.AnswerURLs()
	ep := newEndpoint(openai.Server{URL: fake.URL, Models: map[string][]string{"text-to-image": {"sd"}}})
	res, err := ep.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "four"}))
	if err != nil {
		t.Fatal(err)
	}
	if w, _, _ := fakehf.ImageSize(blobBytes(t, res)); w != 4 {
		t.Errorf("width %d, want 4", w)
	}

	// Another origin on loopback: a task result may not name it.
	other := fakeopenai.New(t, "sd")
	other.AnswerURLs()
	proxy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"url":"` + other.URL + `/generated-images/xxxx.png"}]}`))
	})
	ts := startServer(t, proxy)
	ep = newEndpoint(openai.Server{URL: ts, Models: map[string][]string{"text-to-image": {"sd"}}})
	_, err = ep.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "four"}))
	if err == nil || !strings.Contains(err.Error(), "does not fetch") {
		t.Errorf("err %v, want the private result URL refused", err)
	}
}

// TestErrorsNameTheFix: 401, 404, 429 and 5xx map to the endpoint errors,
// with OpenAI's message and what to change.
func TestErrorsNameTheFix(t *testing.T) {
	fake := fakeopenai.New(t, "sd")
	fake.RequireKey("right")
	ep := newEndpoint(openai.Server{Name: "cluster", URL: fake.URL, Key: "wrong", Models: map[string][]string{"text-to-image": {"sd", "gone"}}})
	ctx := context.Background()
	req := func(model string) endpoints.Request {
		return endpointstest.Request(t, "text-to-image", model, map[string]string{"text": "x"})
	}
	_, err := ep.Infer(ctx, req("sd"))
	if !errors.Is(err, endpoints.ErrUnauthorized) || !strings.Contains(err.Error(), "openai[0].key") || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("401: %v", err)
	}
	if err := ep.Check(ctx, "text-to-image", "sd"); !errors.Is(err, endpoints.ErrUnauthorized) {
		t.Errorf("check with a wrong key: %v", err)
	}

	ep = newEndpoint(openai.Server{Name: "cluster", URL: fake.URL, Key: "right", Models: map[string][]string{"text-to-image": {"sd", "gone"}}})
	if err := ep.Check(ctx, "text-to-image", "sd"); err != nil {
		t.Errorf("check: %v", err)
	}
	err = ep.Check(ctx, "text-to-image", "gone")
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "does not serve model gone") || !strings.Contains(err.Error(), "lists sd") {
		t.Errorf("missing model: %v", err)
	}
	_, err = ep.Infer(ctx, req("gone"))
	var he *endpoints.HTTPError
	if !errors.As(err, &he) || he.Status != 404 || !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("404: %v", err)
	}
	fake.Fail("/v1/images/generations", 429, 1, "")
	if _, err = ep.Infer(ctx, req("sd")); !errors.Is(err, endpoints.ErrRateLimited) {
		t.Errorf("429: %v", err)
	}
	fake.Fail("/v1/images/generations", 500, 1, `{"detail":"CUDA out of memory"}`)
	if _, err = ep.Infer(ctx, req("sd")); !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "CUDA out of memory") {
		t.Errorf("500: %v", err)
	}
	if err := ep.Check(ctx, "text-to-speech", "sd"); err == nil || !strings.Contains(err.Error(), "openai[N].models.text-to-speech") {
		t.Errorf("unconfigured task: %v", err)
	}
	if err := ep.Check(ctx, "depth-estimation", "sd"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("unsupported task: %v", err)
	}
}

// TestUnreachableAndFailover: a dead server is unreachable with the key to
// fix; a model on two servers runs on the second when the first is down.
func TestUnreachableAndFailover(t *testing.T) {
	dead := startServer(t, http.NotFoundHandler())
	closeServer(t, dead)
	fake := fakeopenai.New(t, "sd")
	ep := newEndpoint(
		openai.Server{Name: "laptop", URL: dead, Models: map[string][]string{"text-to-image": {"sd"}}},
		openai.Server{Name: "cluster", URL: fake.URL, Models: map[string][]string{"text-to-image": {"sd"}}},
	)
	ctx := context.Background()
	if err := ep.Check(ctx, "text-to-image", "sd"); err != nil {
		t.Errorf("check with one server up: %v", err)
	}
	var progress []string
	req := endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "x"})
	req.Progress = func(p endpoints.Progress) { progress = append(progress, p.Message) }
	res, err := ep.Infer(ctx, req)
	if err != nil || res.Provider != "cluster" {
		t.Fatalf("provider %q, %v", res.Provider, err)
	}
	res.Discard()
	if len(progress) != 1 || !strings.Contains(progress[0], "trying openai[1] (cluster)") {
		t.Errorf("progress %q", progress)
	}
	only := newEndpoint(openai.Server{Name: "laptop", URL: dead, Models: map[string][]string{"text-to-image": {"sd"}}})
	err = only.Check(ctx, "text-to-image", "sd")
	if !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), "openai[0].url") {
		t.Errorf("dead server: %v", err)
	}
}

// TestNoModelList: a server without GET /v1/models (404) is up; its
// configured models are trusted.
func TestNoModelList(t *testing.T) {
	fake := fakeopenai.New(t, "kokoro")
	fake.NoModelList()
	ep := newEndpoint(openai.Server{URL: fake.URL, Models: map[string][]string{"text-to-speech": {"kokoro"}}})
	if err := ep.Check(context.Background(), "text-to-speech", "kokoro"); err != nil {
		t.Error(err)
	}
}

// TestDiscoverAndLocality: configured models are offered once each, marked
// as configured; loopback, private and single-label hosts are local,
// public names are not.
func TestDiscoverAndLocality(t *testing.T) {
	ep := newEndpoint(
		openai.Server{Name: "a", URL: "http://127.0.0.1:8080", Models: map[string][]string{"text-to-image": {"sd", "flux"}}},
		openai.Server{Name: "b", URL: "https://api.example.com/v1", Models: map[string][]string{"text-to-image": {"SD", "dall-e-3"}}},
	)
	offers, _ := ep.Discover(context.Background(), "text-to-image")
	var ids []string
	for _, o := range offers {
		ids = append(ids, o.ID)
		if !o.Configured {
			t.Errorf("%s not marked configured", o.ID)
		}
	}
	if strings.Join(ids, ",") != "sd,flux,dall-e-3" {
		t.Errorf("offers %v", ids)
	}
	if r := ep.Remote("text-to-image", "sd"); r != "" {
		t.Errorf("loopback server remote: %q", r)
	}
	if r := ep.Remote("text-to-image", "dall-e-3"); !strings.Contains(r, "api.example.com") {
		t.Errorf("public server: %q", r)
	}
	if p := ep.Provider("text-to-image", "dall-e-3"); p != "b" {
		t.Errorf("provider %q", p)
	}
	for host, local := range map[string]bool{"localhost": true, "10.1.2.3": true, "192.168.0.9": true, "fd00::1": true, "vllm": true,
		"gpu.lan": true, "100.101.1.1": true, "8.8.8.8": false, "api.openai.com": false, "": false} {
		if got := endpoints.IsLocalHost(host); got != local {
			t.Errorf("endpoints.IsLocalHost(%q) = %v, want %v", host, got, local)
		}
	}
}

var servers = map[string]*httptest.Server{}

func startServer(t *testing.T, h http.Handler) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	servers[ts.URL] = ts
	return ts.URL
}

func closeServer(t *testing.T, u string) {
	t.Helper()
	servers[u].Close()
}

// TestModelListIsShared: checks of several models and tasks, concurrent
// or not, share one GET /v1/models per server while it is fresh; a failed
// call drops it so the next check asks again.
func TestModelListIsShared(t *testing.T) {
	fake := fakeopenai.New(t, "sd", "whisper-1")
	ep := newEndpoint(openai.Server{URL: fake.URL, Models: map[string][]string{"text-to-image": {"sd"}, "automatic-speech-recognition": {"whisper-1"}}})
	ctx := context.Background()
	done := make(chan error, 8)
	for i := range 8 {
		go func() {
			if i%2 == 0 {
				done <- ep.Check(ctx, "text-to-image", "sd")
			} else {
				done <- ep.Check(ctx, "automatic-speech-recognition", "whisper-1")
			}
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fake.Requests("/v1/models")); n != 1 {
		t.Fatalf("%d model list requests, want 1", n)
	}
	fake.Fail("/v1/images/generations", 404, 1, "")
	if _, err := ep.Infer(ctx, endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "x"})); err == nil {
		t.Fatal("want the scripted 404")
	}
	if err := ep.Check(ctx, "text-to-image", "sd"); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Requests("/v1/models")); n != 2 {
		t.Errorf("%d model list requests after a failed call, want 2 (asked again)", n)
	}
}

// TestLocalOnlyUsesOnlyLocalServers: a model served by a remote and a
// local server is local enough for the local-only constraint, and a
// local-only call never goes to the remote one.
func TestLocalOnlyUsesOnlyLocalServers(t *testing.T) {
	fake := fakeopenai.New(t, "sd")
	ep := newEndpoint(
		openai.Server{Name: "cloud", URL: "https://api.example.invalid", Models: map[string][]string{"text-to-image": {"sd"}}},
		openai.Server{Name: "laptop", URL: fake.URL, Models: map[string][]string{"text-to-image": {"sd"}}},
	)
	if r := ep.Remote("text-to-image", "sd"); r != "" {
		t.Errorf("remote %q, want local (the laptop serves it)", r)
	}
	req := endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "x"})
	req.LocalOnly = true
	req.Progress = func(p endpoints.Progress) { t.Errorf("progress %q: the cloud server was tried", p.Message) }
	res, err := ep.Infer(context.Background(), req)
	if err != nil || res.Provider != "laptop" {
		t.Fatalf("provider %q, %v", res.Provider, err)
	}
	res.Discard()

	cloudOnly := newEndpoint(openai.Server{Name: "cloud", URL: "https://api.example.invalid", Models: map[string][]string{"text-to-image": {"sd"}}})
	_, err = cloudOnly.Infer(context.Background(), req)
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "local-only constraint rules out openai[0] (cloud)") {
		t.Errorf("err %v", err)
	}
}

// TestEmbeddingsAndQuestionAnswering: sentence-similarity embeds the
// reference and the candidates in one /v1/embeddings call and scores them
// by cosine; question-answering finds the answer's span in the context.
func TestEmbeddingsAndQuestionAnswering(t *testing.T) {
	fake := fakeopenai.New(t, "embed", "chat")
	ep := newEndpoint(openai.Server{URL: fake.URL, Models: map[string][]string{"sentence-similarity": {"embed"}, "question-answering": {"chat"}}})
	ctx := context.Background()
	res, err := ep.Infer(ctx, endpointstest.Request(t, "sentence-similarity", "embed", map[string]string{"text": "abc", "sentences": "cba\n\nxyz"}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Data) != "[1,0]" || !strings.HasPrefix(res.Text, "1.00  cba\n0.00  xyz") {
		t.Errorf("scores %s, text %q", res.Data, res.Text)
	}
	r := fake.Requests("/v1/embeddings")
	if len(r) != 1 {
		t.Fatalf("%d embedding calls, want 1", len(r))
	}
	fake.Reply("chat", "“Paris”.")
	res, err = ep.Infer(ctx, endpointstest.Request(t, "question-answering", "chat", map[string]string{"text": "where?", "context": "She moved to Paris in 1920."}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Paris" || string(res.Data) != `{"answer":"Paris","end":18,"start":13}` {
		t.Errorf("qa %q %s", res.Text, res.Data)
	}
	if c := fake.Requests("/v1/chat/completions")[0]; c.Fields["system"] != endpoints.QABrief || !strings.Contains(c.Fields["user"], "She moved to Paris") {
		t.Errorf("chat request %+v", c)
	}
}

// TestStructuredChatTask: a task of the shared chat-task table with a
// structured answer (image-classification) sends its JSON schema as
// response_format and reads the reply into Hugging Face's label list.
func TestStructuredChatTask(t *testing.T) {
	fake := fakeopenai.New(t, "vlm")
	fake.Reply("vlm", "<think>hmm</think>\n```json\n{\"labels\":[{\"label\":\"tabby cat\",\"score\":0.9},{\"label\":\"dog\",\"score\":0.1}]}\n```")
	ep := newEndpoint(openai.Server{URL: fake.URL, Models: map[string][]string{"image-classification": {"vlm"}}})
	img := writeFile(t, "cat.png", fakehf.PNG(12, 12))
	res, err := ep.Infer(context.Background(), endpointstest.Request(t, "image-classification", "vlm", map[string]string{"image": img}))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Data) != `[{"label":"tabby cat","score":0.9},{"label":"dog","score":0.1}]` {
		t.Errorf("data %s", res.Data)
	}
	r := fake.Requests("/v1/chat/completions")
	if len(r) != 1 || r[0].Fields["response_format"] != "json_schema" || r[0].Images != 1 {
		t.Errorf("request %+v", r)
	}
	if !openai.Supports("token-classification") || openai.Supports("depth-estimation") {
		t.Error("Supports should follow the chat-task table")
	}
}

// TestAGivenUpCheckHidesThePassword: a check that gives up while another
// check's GET /v1/models still runs (its task cancelled, its deadline
// passed — on a loaded machine, any probe can outlast it) names the server
// without the password its URL carries, as every other message does.
func TestAGivenUpCheckHidesThePassword(t *testing.T) {
	t.Parallel()
	const pass = "S3cretPass"
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })
	ep := newEndpoint(openai.Server{URL: strings.Replace(hung.URL, "http://", "http://admin:"+pass+"@", 1), Models: map[string][]string{"text-to-image": {"sd"}}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := ep.Check(ctx, "text-to-image", "sd")
	if err == nil || strings.Contains(err.Error(), pass) || !strings.Contains(err.Error(), "admin:REDACTED@") {
		t.Fatalf("a check given up: %v", err)
	}
}
