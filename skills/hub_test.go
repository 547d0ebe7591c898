package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHub serves GET /api/models the way the Hugging Face Hub does: a JSON
// array per page, the next page in a Link header with an absolute URL
// carrying a cursor, {"error": …} bodies with real status codes, and 401
// for a token it does not know. Pages come from testdata/hub.
type fakeHub struct {
	t     *testing.T
	srv   *httptest.Server
	pages map[string][]string // pipeline tag → page files
	token string              // the one valid token
	// status forces an answer for a pipeline tag.
	status map[string]int

	mu       sync.Mutex
	requests []*http.Request
}

func newFakeHub(t *testing.T) *fakeHub {
	f := &fakeHub{
		t: t,
		pages: map[string][]string{
			"image-classification":         {"image-classification-1.json", "image-classification-2.json", "image-classification-3.json"},
			"automatic-speech-recognition": {"automatic-speech-recognition.json"},
			"text-generation":              {"text-generation.json"},
		},
		token:  "hf_valid",
		status: map[string]int{},
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHub) hub() *Hub { return &Hub{BaseURL: f.srv.URL, Token: f.token, Limit: 100} }

func (f *fakeHub) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeHub) request(i int) *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

func hubJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func (f *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(context.Background()))
	f.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.Path != "/api/models" {
		hubJSONError(w, http.StatusNotFound, "Sorry, we can't find the page you are looking for.")
		return
	}
	q := r.URL.Query()
	tag := q.Get("pipeline_tag")
	if auth := r.Header.Get("Authorization"); auth != "" && auth != "Bearer "+f.token {
		hubJSONError(w, http.StatusUnauthorized, "Invalid credentials in Authorization header")
		return
	}
	switch f.status[tag] {
	case 0:
	case http.StatusUnauthorized:
		if r.Header.Get("Authorization") == "" {
			hubJSONError(w, http.StatusUnauthorized, "Authorization header is required")
			return
		}
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "30")
		hubJSONError(w, http.StatusTooManyRequests, "You have exceeded our hourly quotas for action: api. We invite you to retry later.")
		return
	case http.StatusOK + 1: // an HTML page where JSON belongs (a captive portal, a proxy)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><html><body>Sign in to the Wi-Fi</body></html>")
		return
	default:
		hubJSONError(w, f.status[tag], "Internal Error - We're working hard to fix this as soon as possible!")
		return
	}
	if q.Get("full") != "" || q.Get("cardData") != "" {
		hubJSONError(w, http.StatusBadRequest, "expand cannot be combined with full or cardData")
		return
	}
	if _, err := strconv.Atoi(q.Get("limit")); err != nil {
		hubJSONError(w, http.StatusBadRequest, `"limit" must be a number`)
		return
	}
	files := f.pages[tag]
	page := 0
	if c := q.Get("cursor"); c != "" {
		page, _ = strconv.Atoi(c)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if page >= len(files) {
		fmt.Fprint(w, "[]")
		return
	}
	data, err := os.ReadFile(filepath.Join("testdata", "hub", files[page]))
	if err != nil {
		f.t.Errorf("fake hub: %v", err)
		hubJSONError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if page+1 < len(files) {
		next := *r.URL
		nq := next.Query()
		nq.Set("cursor", strconv.Itoa(page+1))
		next.RawQuery = nq.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, f.srv.URL, next.RequestURI()))
	}
	w.Write(data)
}

func modelByID(ms []Model, id string) (Model, bool) { return findModel(ms, id) }

func TestHubModelsPagesAndReadsFacts(t *testing.T) {
	f := newFakeHub(t)
	models, err := f.hub().Models(context.Background(), "image-classification")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	wantIDs := []string{
		"google/vit-base-patch16-224", "microsoft/resnet-50", "Falconsai/nsfw_image_detection",
		"timm/mobilenetv3_large_100.ra_in1k", "someuser/vit-finetuned-beans", "black-forest-labs/example-gated-classifier",
	}
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("models = %v\nwant %v (disabled, unservable, id-less and repeated entries left out)", ids, wantIDs)
	}
	if f.count() != 3 {
		t.Errorf("%d requests, want 3 (one per page)", f.count())
	}

	// The first request asks for what the real Hub API needs.
	q := f.request(0).URL.Query()
	for k, v := range map[string]string{"pipeline_tag": "image-classification", "sort": "downloads", "direction": "-1", "limit": "100"} {
		if q.Get(k) != v {
			t.Errorf("query %s = %q, want %q", k, q.Get(k), v)
		}
	}
	for _, e := range []string{"downloads", "likes", "cardData", "safetensors", "siblings", "usedStorage", "inferenceProviderMapping", "inference", "library_name", "tags"} {
		if !slices.Contains(q["expand"], e) {
			t.Errorf("listing does not expand %q: %v", e, q["expand"])
		}
	}
	for i := range f.count() {
		if got := f.request(i).Header.Get("Authorization"); got != "Bearer hf_valid" {
			t.Errorf("request %d Authorization = %q", i, got)
		}
	}

	check := func(id string, fn func(m Model)) {
		t.Helper()
		m, ok := modelByID(models, id)
		if !ok {
			t.Errorf("no %s", id)
			return
		}
		fn(m)
	}
	check("google/vit-base-patch16-224", func(m Model) {
		if m.Downloads != 3120457 || m.Likes != 861 || m.License != "apache-2.0" {
			t.Errorf("vit facts: %+v", m)
		}
		if m.Params != 86567656 || m.SizeBytes != 86567656*4 {
			t.Errorf("vit size: params %d bytes %d, want safetensors F32 count and 4 bytes each", m.Params, m.SizeBytes)
		}
		if !slices.Equal(m.Endpoints, []EndpointKind{EndpointLocal, EndpointHuggingFace}) {
			t.Errorf("vit endpoints %v: live on hf-inference and a transformers model", m.Endpoints)
		}
		if !strings.Contains(m.Description, "imagenet-1k") || !strings.Contains(m.Description, "transformers") {
			t.Errorf("vit description %q", m.Description)
		}
	})
	check("microsoft/resnet-50", func(m Model) {
		if m.License != "apache-2.0" {
			t.Errorf("resnet licence %q, want it from the license: tag", m.License)
		}
		if m.Params != 0 || m.SizeBytes != 102567206 {
			t.Errorf("resnet size: params %d bytes %d, want the pytorch_model.bin size only", m.Params, m.SizeBytes)
		}
		if !m.ServedBy(EndpointHuggingFace) {
			t.Error(`resnet: "inference": "warm" without a provider mapping should count as served`)
		}
	})
	check("Falconsai/nsfw_image_detection", func(m Model) {
		if m.Downloads != 61000000 || m.License != "apache-2.0" || !m.ServedBy(EndpointHuggingFace) {
			t.Errorf("falconsai (string downloads, list licence, mapping object): %+v", m)
		}
	})
	check("timm/mobilenetv3_large_100.ra_in1k", func(m Model) {
		if !slices.Equal(m.Endpoints, []EndpointKind{EndpointLocal}) {
			t.Errorf("timm endpoints %v, want local only", m.Endpoints)
		}
		want := []Benchmark{{Dataset: "ImageNet-1k", Metric: "top1", Value: 75.77}, {Dataset: "ImageNet-1k", Metric: "top5", Value: 92.54}}
		if !slices.Equal(m.Benchmarks, want) {
			t.Errorf("timm benchmarks %+v, want %+v", m.Benchmarks, want)
		}
	})
	check("someuser/vit-finetuned-beans", func(m Model) {
		if m.License != "" {
			t.Errorf("a model without a licence got %q", m.License)
		}
		if m.ServedBy(EndpointHuggingFace) {
			t.Error("a staging hf-inference mapping is not a live one")
		}
		if m.SizeBytes != 343262976 || m.Params != 0 {
			t.Errorf("usedStorage fallback: %d bytes, %d params", m.SizeBytes, m.Params)
		}
	})
	check("black-forest-labs/example-gated-classifier", func(m Model) {
		if m.License != "example-non-commercial-license" {
			t.Errorf(`licence "other" should become its license_name, got %q`, m.License)
		}
		if m.Params != 1000001000 || m.SizeBytes != 2*1000000000+4*1000 {
			t.Errorf("mixed-dtype size: params %d bytes %d", m.Params, m.SizeBytes)
		}
		if m.ServedBy(EndpointHuggingFace) {
			t.Error("an empty provider mapping means not served")
		}
		if !strings.Contains(m.Description, "gated") || !strings.Contains(m.Description, "4 languages") {
			t.Errorf("gated description %q", m.Description)
		}
	})
}

func TestHubModelsStopsAtLimit(t *testing.T) {
	for _, tc := range []struct{ limit, models, requests int }{{2, 2, 1}, {4, 4, 2}, {6, 6, 3}} {
		f := newFakeHub(t)
		h := f.hub()
		h.Limit = tc.limit
		models, err := h.Models(context.Background(), "image-classification")
		if err != nil {
			t.Fatal(err)
		}
		if len(models) != tc.models || f.count() != tc.requests {
			t.Errorf("limit %d: %d models in %d requests, want %d in %d", tc.limit, len(models), f.count(), tc.models, tc.requests)
		}
		if got := f.request(0).URL.Query().Get("limit"); got != strconv.Itoa(tc.limit) {
			t.Errorf("limit %d: sent limit=%s", tc.limit, got)
		}
	}
}

func TestHubModelsReadsModelIndex(t *testing.T) {
	f := newFakeHub(t)
	models, err := f.hub().Models(context.Background(), "automatic-speech-recognition")
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 {
		t.Fatalf("got %d models, want whisper and wav2vec2 (pyannote has no endpoint here)", len(models))
	}
	w, _ := modelByID(models, "openai/whisper-small")
	want := []Benchmark{
		{Dataset: "LibriSpeech (clean) (librispeech_asr)", Metric: "wer", Value: 3.432213777886737, LowerIsBetter: true},
		{Dataset: "LibriSpeech (other) (librispeech_asr)", Metric: "wer", Value: 7.628304527060248, LowerIsBetter: true},
		{Dataset: "Common Voice 11.0", Metric: "wer", Value: 87.3, LowerIsBetter: true},
	}
	if !slices.Equal(w.Benchmarks, want) {
		t.Errorf("whisper benchmarks:\n got %+v\nwant %+v (a NaN result is dropped)", w.Benchmarks, want)
	}
	if w.Params != 241734912 || !slices.Equal(w.Endpoints, []EndpointKind{EndpointLocal, EndpointHuggingFace}) {
		t.Errorf("whisper: %+v", w)
	}
	if !strings.Contains(w.Description, "5 languages") {
		t.Errorf("whisper description %q", w.Description)
	}
	x, _ := modelByID(models, "jonatasgrosman/wav2vec2-large-xlsr-53-english")
	if len(x.Benchmarks) != 3 || x.Benchmarks[1].Metric != "cer" || !x.Benchmarks[1].LowerIsBetter || x.Benchmarks[0].Dataset != "Common Voice en" {
		t.Errorf("wav2vec2 benchmarks %+v", x.Benchmarks)
	}
	if !strings.Contains(x.Description, "(en)") {
		t.Errorf("a single language string should be named: %q", x.Description)
	}
}

func TestHubErrorsNameTheFix(t *testing.T) {
	f := newFakeHub(t)
	f.status["needs-token"] = http.StatusUnauthorized
	f.status["broken"] = http.StatusInternalServerError
	f.status["busy"] = http.StatusTooManyRequests
	f.status["html"] = http.StatusOK + 1

	ctx := context.Background()
	for _, tc := range []struct {
		name, tag, token string
		sentinel         error
		status           int
		words            []string
	}{
		{"wrong token", "image-classification", "hf_expired", ErrHubUnauthorized, 401, []string{"HTTP 401", "Invalid credentials", "refused the token", "HF_TOKEN", "settings/tokens"}},
		{"no token", "needs-token", "", ErrHubUnauthorized, 401, []string{"HTTP 401", "wants a token", "HF_TOKEN"}},
		{"server error", "broken", "hf_valid", ErrHubUnavailable, 500, []string{"HTTP 500", "try again later", "embedded catalog"}},
		{"rate limited", "busy", "", ErrHubRateLimited, 429, []string{"HTTP 429", "retry later", "30s", "HF_TOKEN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := f.hub()
			h.Token = tc.token
			models, err := h.Models(ctx, tc.tag)
			if err == nil || models != nil {
				t.Fatalf("got %d models and err %v", len(models), err)
			}
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("error %v is not %v", err, tc.sentinel)
			}
			var he *HubError
			if !errors.As(err, &he) || he.Status != tc.status {
				t.Fatalf("error %v is not a HubError with status %d", err, tc.status)
			}
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hf_expired") || strings.Contains(err.Error(), "hf_valid") {
				t.Errorf("error %q leaks the token", err)
			}
		})
	}

	t.Run("retry-after", func(t *testing.T) {
		_, err := f.hub().Models(ctx, "busy")
		var he *HubError
		if !errors.As(err, &he) || he.RetryAfter != 30*time.Second {
			t.Errorf("RetryAfter from %v", err)
		}
	})

	t.Run("not a listing", func(t *testing.T) {
		_, err := f.hub().Models(ctx, "html")
		if err == nil || !strings.Contains(err.Error(), "not a model listing") || !strings.Contains(err.Error(), "hub_url") {
			t.Errorf("HTML answer: %v", err)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		h := &Hub{BaseURL: dead.URL}
		_, err := h.Models(ctx, "image-classification")
		if !errors.Is(err, ErrHubUnreachable) {
			t.Fatalf("closed server: %v", err)
		}
		for _, w := range []string{"cannot reach", dead.URL, "offline"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	})

	t.Run("password in the hub URL", func(t *testing.T) {
		// HubError names the Hub it could not use; a run's provider
		// lookup logs it as is, so it must hold no password.
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		h := &Hub{BaseURL: strings.Replace(dead.URL, "http://", "http://admin:HubPass2@", 1)}
		for _, err := range []error{
			func() error { _, err := h.Models(ctx, "image-classification"); return err }(),
			func() error { _, err := h.ProviderMapping(ctx, "owner/model"); return err }(),
		} {
			var he *HubError
			if !errors.As(err, &he) || strings.Contains(err.Error(), "HubPass2") || !strings.Contains(err.Error(), "admin:REDACTED@") {
				t.Errorf("error %v", err)
			}
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := f.hub().Models(cctx, "image-classification")
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrHubUnreachable) {
			t.Errorf("cancelled listing: %v", err)
		}
	})

	t.Run("bad url", func(t *testing.T) {
		_, err := (&Hub{BaseURL: "huggingface.co"}).Models(ctx, "image-classification")
		if err == nil || !strings.Contains(err.Error(), "hub_url") {
			t.Errorf("scheme-less hub URL: %v", err)
		}
		// A password inside a URL that does not parse is not shown either.
		_, err = (&Hub{BaseURL: "https://admin:HubPass1@hub.example:port"}).Models(ctx, "image-classification")
		if err == nil || strings.Contains(err.Error(), "HubPass1") || !strings.Contains(err.Error(), "admin:REDACTED@") {
			t.Errorf("hub URL with a password: %v", err)
		}
	})

	t.Run("empty listing", func(t *testing.T) {
		models, err := f.hub().Models(ctx, "no-such-tag")
		if err != nil || len(models) != 0 {
			t.Errorf("unknown tag: %d models, %v", len(models), err)
		}
	})
}

// A next link to another host must not carry the token there.
func TestHubTokenStaysOnHubHost(t *testing.T) {
	var otherAuth []string
	var mu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		otherAuth = append(otherAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprint(w, `[{"id": "cdn/model-b", "library_name": "transformers"}]`)
	}))
	defer other.Close()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer hf_secret" {
			t.Errorf("hub request without the token")
		}
		w.Header().Set("Link", "<"+other.URL+`/api/models?cursor=2>; rel="next"`)
		fmt.Fprint(w, `[{"id": "hub/model-a", "library_name": "transformers"}]`)
	}))
	defer hub.Close()
	models, err := (&Hub{BaseURL: hub.URL, Token: "hf_secret"}).Models(context.Background(), "image-classification")
	if err != nil || len(models) != 2 {
		t.Fatalf("%v %v", models, err)
	}
	if len(otherAuth) != 1 || otherAuth[0] != "" {
		t.Errorf("the other host got Authorization %q", otherAuth)
	}
}

// A next link on the Hub's host but over plain http must not carry the
// token either: the token goes only to the Hub's origin (scheme, host and
// port), never in clear text to whoever is on the path.
func TestHubTokenStaysOnHubOrigin(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]string{}
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		auth[r.URL.Scheme+"://"+r.URL.Host] = r.Header.Get("Authorization")
		mu.Unlock()
		h := http.Header{"Content-Type": {"application/json"}}
		body := `[{"id": "cdn/model-b", "library_name": "transformers"}]`
		if r.URL.Scheme == "https" {
			h.Set("Link", `<http://hub.example/api/models?cursor=2>; rel="next"`)
			body = `[{"id": "hub/model-a", "library_name": "transformers"}]`
		}
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	h := &Hub{BaseURL: "https://hub.example", Token: "hf_secret", HTTPClient: &http.Client{Transport: rt}}
	models, err := h.Models(context.Background(), "image-classification")
	if err != nil || len(models) != 2 {
		t.Fatalf("%v %v", models, err)
	}
	if auth["https://hub.example"] != "Bearer hf_secret" {
		t.Errorf("the Hub got Authorization %q", auth["https://hub.example"])
	}
	if got, ok := auth["http://hub.example"]; !ok || got != "" {
		t.Errorf("the plain-http page got Authorization %q (requested: %v)", got, ok)
	}
}

// A server whose "next" link never ends cannot keep a sync running.
func TestHubPagingIsBounded(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Link", `</api/models?cursor=again>; rel="next"`)
		fmt.Fprint(w, `[{"id": "same/model", "library_name": "transformers"}]`)
	}))
	defer srv.Close()
	models, err := (&Hub{BaseURL: srv.URL, Limit: 1000}).Models(context.Background(), "image-classification")
	if err != nil || len(models) != 1 {
		t.Fatalf("%d models, %v", len(models), err)
	}
	if n != maxHubPages {
		t.Errorf("%d requests, want the bound %d", n, maxHubPages)
	}
}

func TestNextLink(t *testing.T) {
	page, _ := url.Parse("https://huggingface.co/api/models?pipeline_tag=x")
	for _, tc := range []struct {
		headers []string
		want    string
	}{
		{nil, ""},
		{[]string{`<https://huggingface.co/api/models?cursor=abc>; rel="next"`}, "https://huggingface.co/api/models?cursor=abc"},
		{[]string{`<https://huggingface.co/api/models?cursor=a>; rel="prev", </api/models?cursor=b>; rel=next`}, "https://huggingface.co/api/models?cursor=b"},
		{[]string{`<https://x/first>; rel="first"`, `<https://x/n>; rel="last next"`}, "https://x/n"},
		{[]string{`garbage`, `<unterminated; rel="next"`}, ""},
	} {
		if got := nextLink(page, tc.headers); got != tc.want {
			t.Errorf("nextLink(%q) = %q, want %q", tc.headers, got, tc.want)
		}
	}
}

func TestLowerIsBetter(t *testing.T) {
	for metric, want := range map[string]bool{
		"wer": true, "Test WER": true, "cer": true, "fid": true, "FID-30K": true, "perplexity": true, "rmse": true,
		"accuracy": false, "f1": false, "top1": false, "bleu": false, "rouge-1": false, "map": false, "pq": false,
		"Test WER (+LM)": true, "exact_match": false,
	} {
		if lowerIsBetter(metric) != want {
			t.Errorf("lowerIsBetter(%q) = %v", metric, !want)
		}
	}
}

func TestSync(t *testing.T) {
	f := newFakeHub(t)
	cat := embeddedCatalog(t)
	cache := Cache{Dir: t.TempDir()}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	res := Sync(context.Background(), f.hub(), cache, cat, []string{"image-cls", "ocr", "make-coffee", "asr", "image-classification"}, func() time.Time { return now })
	if len(res) != 4 {
		t.Fatalf("results %+v, want 4 (a repeated task once)", res)
	}
	if res[0].Task != "image-classification" || res[0].Tag != "image-classification" || res[0].Models != 6 || res[0].Err != nil || !res[0].Fetched.Equal(now) {
		t.Errorf("image-classification: %+v", res[0])
	}
	if res[1].Task != "ocr" || res[1].Err != nil || res[1].Skipped != "ocr runs on local programs and local inference servers only — nothing to sync" {
		t.Errorf("ocr: %+v", res[1])
	}
	if res[2].Task != "make-coffee" || res[2].Err == nil || !strings.Contains(res[2].Err.Error(), "unknown task") {
		t.Errorf("make-coffee: %+v", res[2])
	}
	if res[3].Task != "automatic-speech-recognition" || res[3].Models != 2 || res[3].Err != nil {
		t.Errorf("asr: %+v", res[3])
	}
	if got, ok := cache.Fetched("image-classification"); !ok || !got.Equal(now) {
		t.Errorf("Fetched = %v %v", got, ok)
	}
	if _, ok := cache.Fetched("ocr"); ok {
		t.Error("ocr has no Hub listing but was cached")
	}

	// conversational syncs from the text-generation listing: one request
	// serves both.
	before := f.count()
	res = Sync(context.Background(), f.hub(), cache, cat, []string{"conversational", "text-generation"}, nil)
	if f.count()-before != 1 {
		t.Errorf("%d requests for two tasks sharing a tag, want 1", f.count()-before)
	}
	for _, r := range res {
		if r.Err != nil || r.Tag != "text-generation" || r.Models != 2 {
			t.Errorf("%+v", r)
		}
	}
}

// When the Hub cannot be reached or refuses the token, Sync stops asking.
func TestSyncStopsOnFatalErrors(t *testing.T) {
	calls := 0
	h := &Hub{BaseURL: "http://hub.invalid", HTTPClient: &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		calls++
		return nil, errors.New("dial tcp: lookup hub.invalid: no such host")
	})}}
	cache := Cache{Dir: t.TempDir()}
	res := Sync(context.Background(), h, cache, embeddedCatalog(t), []string{"image-classification", "object-detection", "translation"}, nil)
	if calls != 1 {
		t.Errorf("%d attempts, want 1", calls)
	}
	for i, r := range res {
		if !errors.Is(r.Err, ErrHubUnreachable) || !strings.Contains(r.Err.Error(), "no such host") {
			t.Errorf("%s: %v", r.Task, r.Err)
		}
		if r.NotTried != (i > 0) {
			t.Errorf("%s: NotTried %v, but only the first task was asked for", r.Task, r.NotTried)
		}
	}
	if tasks, _ := cache.Tasks(); len(tasks) != 0 {
		t.Errorf("a failed sync wrote %v", tasks)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
