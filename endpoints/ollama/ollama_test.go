package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/scope"
)

// fakeClock is a settable time source for the discovery cache.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func ollamaFixture(t *testing.T) (*fakeollama.Server, *ollama.Endpoint, *fakeClock) {
	t.Helper()
	s := fakeollama.New(t)
	s.AddModel(fakeollama.Model{Name: "llava:7b", Family: "llama", ParameterSize: "7B", QuantizationLevel: "Q4_0",
		Capabilities: []string{"completion", "vision"}, Size: 4_700_000_000, License: "LLAMA 2 COMMUNITY LICENSE AGREEMENT\n..."})
	s.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B",
		Capabilities: []string{"completion", "tools", "thinking"}, License: "                                 Apache License\n                           Version 2.0, January 2004"})
	s.AddModel(fakeollama.Model{Name: "nomic-embed-text", Family: "nomic-bert", ParameterSize: "137M",
		Capabilities: []string{"embedding"}})
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	ep := ollama.New(ollama.Options{Host: s.URL, Now: clock.Now})
	return s, ep, clock
}

func offerIDs(offers []endpoints.Offer) []string {
	var ids []string
	for _, o := range offers {
		ids = append(ids, o.ID)
	}
	return ids
}

func TestOllamaDiscoverByCapability(t *testing.T) {
	_, ep, _ := ollamaFixture(t)
	ctx := context.Background()
	for _, task := range []string{"image-to-text", "visual-question-answering", "document-question-answering", "zero-shot-image-classification"} {
		offers, err := ep.Discover(ctx, task)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(offerIDs(offers), ","); got != "llava:7b" {
			t.Errorf("%s offers %s, want only the vision model", task, got)
		}
	}
	offers, err := ep.Discover(ctx, "summarization")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(offerIDs(offers), ","); got != "llava:7b,qwen3:8b" {
		t.Errorf("summarization offers %s; want every text model and no embedding model", got)
	}
	for _, o := range offers {
		switch o.ID {
		case "llava:7b":
			if o.Params != 7_000_000_000 || o.SizeBytes != 4_700_000_000 || o.License != "llama2" || !strings.Contains(o.Description, "Q4_0") {
				t.Errorf("llava offer = %+v", o)
			}
		case "qwen3:8b":
			if o.Params != 8_200_000_000 || o.License != "apache-2.0" {
				t.Errorf("qwen3 offer = %+v", o)
			}
		}
	}
	if offers, err := ep.Discover(ctx, "text-to-image"); err != nil || len(offers) != 0 {
		t.Errorf("text-to-image should get no Ollama offers: %v, %v", offers, err)
	}
}

func TestOllamaDiscoveryCache(t *testing.T) {
	s, ep, clock := ollamaFixture(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 { // a plan's parallel tasks all discovering at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ep.Discover(ctx, "summarization"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(s.RequestsTo("/api/tags")); n != 1 {
		t.Errorf("%d /api/tags calls for concurrent discovery, want 1", n)
	}
	if err := ep.Check(ctx, "summarization", "qwen3:8b"); err != nil {
		t.Errorf("check: %v", err)
	}
	if n := len(s.RequestsTo("/api/show")); n != 3 {
		t.Errorf("%d /api/show calls, want one per model", n)
	}

	clock.Advance(31 * time.Second)
	s.AddModel(fakeollama.Model{Name: "moondream", Capabilities: []string{"completion", "vision"}, ParameterSize: "1.4B"})
	offers, err := ep.Discover(ctx, "image-to-text")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(offerIDs(offers), ","); got != "llava:7b,moondream:latest" {
		t.Errorf("after the cache expired, offers = %s", got)
	}
	if n := len(s.RequestsTo("/api/tags")); n != 2 {
		t.Errorf("%d /api/tags calls, want a refresh after 30 s", n)
	}
	if n := len(s.RequestsTo("/api/show")); n != 4 {
		t.Errorf("%d /api/show calls, want only the new model shown again", n)
	}
}

func writePNG(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "square.png")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, buf.Bytes()
}

func TestOllamaVQASendsImageAndQuestion(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	path, data := writePNG(t, t.TempDir())
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: " White.\n"} })
	var progress []string
	res, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{
		Task: "visual-question-answering", Model: "llava:7b",
		Args:     map[string]string{"image": path, "text": "What colour is the square?"},
		Progress: func(p endpoints.Progress) { progress = append(progress, p.Message) },
	}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "White." {
		t.Errorf("text = %q", res.Text)
	}
	reqs := s.ChatRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	req := reqs[0]
	if req.Model != "llava:7b" || req.Stream == nil || *req.Stream {
		t.Errorf("request model %q stream %v; want a non-streaming call", req.Model, req.Stream)
	}
	user := req.Messages[len(req.Messages)-1]
	if user.Role != "user" || user.Content != "What colour is the square?" || len(user.Images) != 1 || !bytes.Equal(user.Images[0], data) {
		t.Errorf("user message = role %q content %q, %d images", user.Role, user.Content, len(user.Images))
	}
	if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "image") {
		t.Errorf("want a system prompt about the image, got %+v", req.Messages[0])
	}
	if len(progress) != 1 || !strings.Contains(progress[0], "loading llava:7b") {
		t.Errorf("progress = %q; the first call should say the model is loading", progress)
	}
}

func TestOllamaConvertsUnsupportedImageFormats(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	p := filepath.Join(t.TempDir(), "pic.gif")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	pal := image.NewPaletted(image.Rect(0, 0, 4, 4), color.Palette{color.Black, color.White})
	if err := gif.Encode(f, pal, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "image-to-text", Model: "llava:7b", Args: map[string]string{"image": p}})); err != nil {
		t.Fatal(err)
	}
	img := s.ChatRequests()[0].Messages[1].Images[0]
	if !bytes.HasPrefix(img, []byte("\x89PNG")) {
		t.Errorf("a GIF should reach Ollama as PNG; got % x", img[:8])
	}
}

func TestOllamaTextTaskPrompts(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	ctx := context.Background()
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Thinking: "the user wants a summary", Content: "Short version."}
	})
	long := "Chorus plans requests into tasks. It picks models. It runs them and reports."
	res, err := ep.Infer(ctx, endpoints.Request{Task: "summarization", Model: "qwen3:8b", Args: map[string]string{"text": long}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Short version." {
		t.Errorf("summary = %q; the inline think block must be stripped", res.Text)
	}
	req := s.ChatRequests()[0]
	if req.Messages[0].Role != "system" || !strings.Contains(req.Messages[0].Content, "Summarise") || req.Messages[1].Content != long {
		t.Errorf("summarization messages = %+v", req.Messages)
	}
	if len(req.Messages[1].Images) != 0 {
		t.Error("a text task must not send images")
	}

	_, err = ep.Infer(ctx, endpoints.Request{Task: "translation", Model: "qwen3:8b", Args: map[string]string{"text": "Hello", "tgt_lang": "fr"}})
	if err != nil {
		t.Fatal(err)
	}
	if sys := s.ChatRequests()[1].Messages[0].Content; !strings.Contains(sys, "into French") {
		t.Errorf("translation system prompt %q should name the target language", sys)
	}

	_, err = ep.Infer(ctx, endpoints.Request{Task: "question-answering", Model: "qwen3:8b", Args: map[string]string{"text": "Who?"}})
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), `"context"`) {
		t.Errorf("QA without context: %v", err)
	}
}

func TestOllamaStructuredTasks(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	ctx := context.Background()
	path, _ := writePNG(t, t.TempDir())
	var reply string
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		if err := fakeollama.Validate(req.Format, []byte(reply)); err != nil {
			t.Errorf("the scripted reply must satisfy the schema the endpoint sent: %v", err)
		}
		return fakeollama.Reply{Content: reply}
	})

	reply = `{"scores":[{"label":"dog","score":0.3},{"label":"cat","score":0.9}]}`
	res, err := ep.Infer(ctx, endpointstest.WithFiles(t, endpoints.Request{Task: "zero-shot-image-classification", Model: "llava:7b",
		Args: map[string]string{"image": path, "labels": "cat, dog"}}))
	if err != nil {
		t.Fatal(err)
	}
	var ls []struct {
		Label string
		Score float64
	}
	if err := json.Unmarshal(res.Data, &ls); err != nil || len(ls) != 2 || ls[0].Label != "cat" || ls[0].Score != 0.75 || ls[1].Score != 0.25 {
		t.Errorf("zero-shot data = %s, %v", res.Data, err)
	}
	if res.Text != "cat 0.75, dog 0.25" {
		t.Errorf("zero-shot text = %q", res.Text)
	}

	reply = `{"entities":[{"word":"Ada Lovelace","entity_group":"PER"},{"word":"London","entity_group":"LOC"}]}`
	res, err = ep.Infer(ctx, endpoints.Request{Task: "token-classification", Model: "qwen3:8b",
		Args: map[string]string{"text": "Ada Lovelace lived in London."}})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Data) != `[{"entity_group":"PER","word":"Ada Lovelace","start":0,"end":12},{"entity_group":"LOC","word":"London","start":22,"end":28}]` {
		t.Errorf("entities = %s", res.Data)
	}

	reply = `{"scores":[0.9,0.1]}`
	res, err = ep.Infer(ctx, endpoints.Request{Task: "sentence-similarity", Model: "qwen3:8b",
		Args: map[string]string{"text": "A cat sleeps.", "sentences": "A kitten naps.\nStocks fell."}})
	if err != nil || string(res.Data) != "[0.9,0.1]" {
		t.Errorf("similarity = %s, %v", res.Data, err)
	}
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"scores":[0.9]}`} })
	_, err = ep.Infer(ctx, endpoints.Request{Task: "sentence-similarity", Model: "qwen3:8b",
		Args: map[string]string{"text": "A cat sleeps.", "sentences": "A kitten naps.\nStocks fell."}})
	if err == nil || !strings.Contains(err.Error(), "1 scores for 2 sentences") || !endpoints.Retryable(err) {
		t.Errorf("a wrong score count should fail retryably: %v", err)
	}
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "I think it is a cat"} })
	_, err = ep.Infer(ctx, endpointstest.WithFiles(t, endpoints.Request{Task: "image-classification", Model: "llava:7b", Args: map[string]string{"image": path}}))
	if err == nil || !strings.Contains(err.Error(), "not the JSON asked for") {
		t.Errorf("prose instead of JSON: %v", err)
	}
}

func TestOllamaNotPulled(t *testing.T) {
	s, ep, clock := ollamaFixture(t)
	ctx := context.Background()
	err := ep.Check(ctx, "image-to-text", "llava:13b")
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "`ollama pull llava:13b`") {
		t.Errorf("check of a model not pulled: %v", err)
	}
	// Removed after the list was cached: the server's 404 is reported the same way.
	if err := ep.Check(ctx, "summarization", "qwen3:8b"); err != nil {
		t.Fatal(err)
	}
	s.RemoveModel("qwen3:8b")
	_, err = ep.Infer(ctx, endpoints.Request{Task: "summarization", Model: "qwen3:8b", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "`ollama pull qwen3:8b`") ||
		!strings.Contains(err.Error(), `model "qwen3:8b" not found`) {
		t.Errorf("infer on a removed model: %v", err)
	}
	// Checking models that are not pulled does not refetch the list each time.
	tags := len(s.RequestsTo("/api/tags"))
	for _, m := range []string{"a:1b", "b:1b", "c:1b"} {
		if err := ep.Check(ctx, "summarization", m); !errors.Is(err, endpoints.ErrUnavailable) {
			t.Errorf("check %s: %v", m, err)
		}
	}
	if n := len(s.RequestsTo("/api/tags")) - tags; n > 1 {
		t.Errorf("%d /api/tags calls for three missing models", n)
	}
	// Pulled a moment ago: found without waiting for the 30 s cache.
	s.AddModel(fakeollama.Model{Name: "llava:13b", Capabilities: []string{"completion", "vision"}})
	clock.Advance(3 * time.Second)
	if err := ep.Check(ctx, "image-to-text", "llava:13b"); err != nil {
		t.Errorf("a newly pulled model should be found: %v", err)
	}
}

func TestOllamaRefusesImagesForTextModels(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	path, _ := writePNG(t, t.TempDir())
	err := ep.Check(context.Background(), "image-to-text", "qwen3:8b")
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "cannot see images") {
		t.Errorf("check: %v", err)
	}
	_, err = ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "visual-question-answering", Model: "qwen3:8b",
		Args: map[string]string{"image": path, "text": "what?"}}))
	if !errors.Is(err, endpoints.ErrUnavailable) {
		t.Errorf("infer: %v", err)
	}
	if n := len(s.ChatRequests()); n != 0 {
		t.Errorf("%d chat calls; a text model must not be sent the image", n)
	}
	if err := ep.Check(context.Background(), "summarization", "nomic-embed-text"); !errors.Is(err, endpoints.ErrUnavailable) {
		t.Errorf("an embedding model cannot summarise: %v", err)
	}
	if err := ep.Check(context.Background(), "text-to-image", "qwen3:8b"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("unsupported task: %v", err)
	}
}

func TestOllamaUnreachable(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	s.Stop()
	want := "Ollama is not reachable at " + s.URL + " — start it with `ollama serve`"
	err := ep.Check(context.Background(), "summarization", "qwen3:8b")
	if !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v\nwant it to say %q", err, want)
	}
	if _, err := ep.Discover(context.Background(), "summarization"); !errors.Is(err, endpoints.ErrUnreachable) {
		t.Errorf("discover: %v", err)
	}
}

// TestOllamaHostNotAURL: the endpoint builds its own client from the host,
// so a host that is not a URL must fail every call with the setting to
// fix, not panic or talk to some other server.
func TestOllamaHostNotAURL(t *testing.T) {
	ep := ollama.New(ollama.Options{Host: "127.0.0.1:11434"})
	ctx := context.Background()
	if err := ep.Check(ctx, "summarization", "qwen3:8b"); !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), "controller.host") {
		t.Errorf("check: %v; want ErrUnreachable naming controller.host", err)
	}
	if _, err := ep.Discover(ctx, "summarization"); !errors.Is(err, endpoints.ErrUnreachable) {
		t.Errorf("discover: %v", err)
	}
	req := endpoints.Request{Task: "summarization", Model: "qwen3:8b", Args: map[string]string{"text": "One. Two."}}
	if _, err := ep.Infer(ctx, req); !errors.Is(err, endpoints.ErrUnreachable) {
		t.Errorf("infer: %v", err)
	}
}

func TestOllamaInferFailures(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	ctx := context.Background()
	_, err := ep.Infer(ctx, endpoints.Request{Task: "image-to-text", Model: "llava:7b", Args: map[string]string{"image": "/no/such.png"}})
	if !errors.Is(err, endpoints.ErrBadInput) || endpoints.Retryable(err) || !strings.Contains(err.Error(), "/no/such.png") {
		t.Errorf("missing image: %v", err)
	}
	notImage := filepath.Join(t.TempDir(), "notes.png")
	os.WriteFile(notImage, []byte("just text"), 0o644)
	_, err = ep.Infer(ctx, endpointstest.WithFiles(t, endpoints.Request{Task: "image-to-text", Model: "llava:7b", Args: map[string]string{"image": notImage}}))
	if !errors.Is(err, endpoints.ErrBadInput) {
		t.Errorf("not an image: %v", err)
	}

	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Status: 500, Error: "model requires more system memory (9.1 GiB) than is available (4.0 GiB)"}
	})
	_, err = ep.Infer(ctx, endpoints.Request{Task: "summarization", Model: "qwen3:8b", Args: map[string]string{"text": "x"}})
	var herr *endpoints.HTTPError
	if !errors.Is(err, endpoints.ErrUnavailable) || !errors.As(err, &herr) || herr.Status != 500 || !strings.Contains(err.Error(), "more system memory") {
		t.Errorf("out of memory: %v", err)
	}

	s.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: "   "} })
	_, err = ep.Infer(ctx, endpoints.Request{Task: "summarization", Model: "qwen3:8b", Args: map[string]string{"text": "x"}})
	if err == nil || !strings.Contains(err.Error(), "empty answer") {
		t.Errorf("empty answer: %v", err)
	}
}

func TestOllamaInferCancel(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	started := make(chan struct{})
	s.OnChat(func(*api.ChatRequest) fakeollama.Reply {
		close(started)
		return fakeollama.Reply{Content: "never", Stall: true}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ep.Infer(ctx, endpoints.Request{Task: "summarization", Model: "qwen3:8b", Args: map[string]string{"text": "x"}})
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, endpoints.ErrUnreachable) {
			t.Errorf("cancelled infer = %v; want context.Canceled, not an endpoint failure", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not stop the call")
	}
}

// TestOllamaSendsOnlyGivenImages: a vision task whose image is named only
// in Args — a system file, a key under ~, a path an expert wrote — is
// refused before any chat call; nothing of the file reaches the model.
func TestOllamaSendsOnlyGivenImages(t *testing.T) {
	s, ep, _ := ollamaFixture(t)
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		t.Errorf("a chat call was made for a refused image: %d images", len(req.Messages[len(req.Messages)-1].Images))
		return fakeollama.Reply{Content: "x"}
	})
	secret, _ := writePNG(t, t.TempDir())
	for _, p := range []string{"/etc/passwd", "~/.ssh/id_rsa", secret} {
		_, err := ep.Infer(context.Background(), endpoints.Request{Task: "image-to-text", Model: "llava:7b", Args: map[string]string{"image": p}})
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want a refusal naming it", p, err)
		}
	}
}
