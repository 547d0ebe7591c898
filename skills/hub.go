package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/text"
)

// DefaultHubURL is the Hugging Face Hub that `chorus models sync` reads.
const DefaultHubURL = "https://huggingface.co"

// DefaultHubLimit is how many models per task a sync keeps when Hub.Limit
// is zero: HuggingGPT ranks candidates by downloads and shows the top few,
// so the long tail is never used.
const DefaultHubLimit = 30

const (
	// maxHubPages bounds paging so a server that keeps answering with a
	// "next" link cannot keep a sync running forever.
	maxHubPages = 50
	// maxHubBody bounds one page of the listing.
	maxHubBody = 64 << 20
	// maxBenchmarks bounds the results kept per model: embedding models
	// record hundreds of MTEB results, which would swamp the cache and the
	// selection prompt.
	maxBenchmarks = 32
)

// hubExpand are the model properties the listing asks for. The Hub returns
// only these when expand is given, and expand cannot be combined with
// full=true or cardData=true (huggingface_hub's HfApi.list_models sends
// them the same way: one expand parameter per property).
var hubExpand = []string{
	"downloads", "likes", "tags", "pipeline_tag", "library_name", "gated", "disabled",
	"cardData", "model-index", "safetensors", "siblings", "usedStorage",
	"inference", "inferenceProviderMapping",
}

// The errors a Hub listing can fail with; HubError wraps one of them so
// callers can decide with errors.Is.
var (
	// ErrHubUnauthorized means the Hub refused the token (or wanted one).
	ErrHubUnauthorized = errors.New("hugging face hub: not authorized")
	// ErrHubRateLimited means the Hub answered 429.
	ErrHubRateLimited = errors.New("hugging face hub: rate limited")
	// ErrHubUnreachable means no answer came back at all.
	ErrHubUnreachable = errors.New("hugging face hub: not reachable")
	// ErrHubUnavailable means the Hub answered with a server error.
	ErrHubUnavailable = errors.New("hugging face hub: server error")
)

// HubError is a failed Hub request. Its message says what to do about it.
type HubError struct {
	// URL is the Hub base URL (never a URL carrying a token; a password
	// inside it is redacted when shown).
	URL string
	// Tag is the pipeline tag being listed.
	Tag string
	// Model is the model whose provider mapping (or, with Info, whose
	// facts) was asked for, when the request was that rather than a
	// listing.
	Model string
	// Info says the request asked for the model's facts (ModelInfo).
	Info bool
	// Status is the HTTP status, 0 when no answer came.
	Status int
	// Message is the Hub's own error text, if it sent one.
	Message string
	// RetryAfter is the wait the Hub asked for on 429, if it said.
	RetryAfter time.Duration
	// Err is the sentinel that classifies the failure, and for an
	// unreachable Hub also the transport error.
	Err error

	hint string
}

func (e *HubError) Error() string {
	var b strings.Builder
	switch {
	case e.Model != "" && e.Info:
		fmt.Fprintf(&b, "asking the Hugging Face Hub at %s about %s: ", text.RedactURL(e.URL), e.Model)
	case e.Model != "":
		fmt.Fprintf(&b, "asking the Hugging Face Hub at %s which providers serve %s: ", text.RedactURL(e.URL), e.Model)
	default:
		fmt.Fprintf(&b, "listing %s models on the Hugging Face Hub at %s: ", e.Tag, text.RedactURL(e.URL))
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if e.Message != "" {
			fmt.Fprintf(&b, " (%s)", e.Message)
		}
	} else if e.Message != "" {
		b.WriteString(e.Message)
	}
	if e.hint != "" {
		b.WriteString(" — ")
		b.WriteString(e.hint)
	}
	return b.String()
}

// Unwrap returns the classifying sentinel (and the transport error).
func (e *HubError) Unwrap() error { return e.Err }

// Hub reads model listings from the Hugging Face Hub API
// (GET {BaseURL}/api/models). The zero value works: it reads the public Hub
// anonymously with DefaultHubLimit models per task.
type Hub struct {
	// BaseURL is the Hub, e.g. https://huggingface.co; empty means
	// DefaultHubURL.
	BaseURL string
	// Token is a Hugging Face access token; empty lists anonymously. It is
	// sent only to the BaseURL's origin (scheme, host and port), never to
	// a page a paging link names elsewhere.
	Token string
	// HTTPClient makes the requests; nil means a client with a one-minute
	// timeout.
	HTTPClient *http.Client
	// Limit is the most models returned per tag; zero means
	// DefaultHubLimit.
	Limit int
}

var defaultHubClient = scope.Credentialed(&http.Client{Timeout: time.Minute})

func (h *Hub) base() string {
	if h.BaseURL == "" {
		return DefaultHubURL
	}
	return strings.TrimRight(h.BaseURL, "/")
}

func (h *Hub) limit() int {
	if h.Limit <= 0 {
		return DefaultHubLimit
	}
	return h.Limit
}

// client is the Hub's HTTP client under the rule for credentials: the
// token goes only to the Hub's origin, never across a redirect.
func (h *Hub) client() *http.Client {
	if h.HTTPClient != nil {
		return scope.Credentialed(h.HTTPClient)
	}
	return defaultHubClient
}

// ListURL returns the first listing URL Models requests for pipelineTag.
func (h *Hub) ListURL(pipelineTag string) string {
	q := url.Values{}
	q.Set("pipeline_tag", pipelineTag)
	q.Set("sort", "downloads")
	q.Set("direction", "-1")
	q.Set("limit", strconv.Itoa(h.limit()))
	for _, e := range hubExpand {
		q.Add("expand", e)
	}
	return h.base() + "/api/models?" + q.Encode()
}

// Models lists the most downloaded models the Hub tags with pipelineTag,
// following the listing's Link rel="next" pages up to Limit models. Each
// model carries its downloads, likes, licence ("" when the card names
// none), parameter count and weight size where the Hub knows them, its
// model-index benchmark results, and the endpoint kinds that can serve it:
// huggingface when an Inference Provider serves it live, local when it is
// a library a self-hosted server can load — and which Inference Providers
// serve it (Model.Providers). Models nothing can serve, and
// disabled ones, are left out. Descriptions are written from the card's
// facts; the embedded catalog's own descriptions win on Overlay.
func (h *Hub) Models(ctx context.Context, pipelineTag string) ([]Model, error) {
	pipelineTag = strings.TrimSpace(pipelineTag)
	if pipelineTag == "" {
		return nil, fmt.Errorf("hub listing: empty pipeline tag")
	}
	base, err := url.Parse(h.base())
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("hub URL %q is not a URL such as https://huggingface.co — fix huggingface.hub_url", text.RedactURL(h.BaseURL))
	}
	var (
		out  []Model
		seen = map[string]bool{}
		next = h.ListURL(pipelineTag)
	)
	for page := 0; next != "" && len(out) < h.limit(); page++ {
		if page == maxHubPages {
			break
		}
		items, link, err := h.page(ctx, base, pipelineTag, next)
		if err != nil {
			return nil, err
		}
		for _, raw := range items {
			m, ok := modelFromHub(raw, pipelineTag)
			if !ok || seen[strings.ToLower(m.ID)] {
				continue
			}
			seen[strings.ToLower(m.ID)] = true
			out = append(out, m)
			if len(out) == h.limit() {
				break
			}
		}
		next = link
	}
	return out, nil
}

// page fetches one page of the listing and returns its items and the next
// page's URL ("" on the last page).
func (h *Hub) page(ctx context.Context, base *url.URL, tag, pageURL string) ([]map[string]any, string, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return nil, "", fmt.Errorf("hub listing: bad page URL %q: %w", pageURL, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("hub listing: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "chorus (models sync)")
	// The token goes only to the Hub's origin: a page on its host over
	// plain http, or on another port, gets none.
	if h.Token != "" && scope.SameOrigin(u, base) {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := h.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("listing %s models on the Hugging Face Hub: %w", tag, ctx.Err())
		}
		return nil, "", &HubError{
			URL: h.base(), Tag: tag, Message: "no answer",
			Err:  errors.Join(ErrHubUnreachable, err),
			hint: "cannot reach the Hub (" + transportReason(err) + "); check the network or huggingface.hub_url (the embedded catalog is used offline meanwhile)",
		}
	}
	defer resp.Body.Close()
	body, err := httpwire.ReadBody(resp, maxHubBody)
	var be *httpwire.BodyError
	switch {
	case errors.As(err, &be) && be.TooLarge() && resp.StatusCode != http.StatusOK:
		return nil, "", h.statusError(tag, resp, nil)
	case errors.As(err, &be) && be.TooLarge():
		return nil, "", fmt.Errorf("listing %s models on the Hugging Face Hub: a page is larger than %d MiB — lower the sync limit", tag, maxHubBody>>20)
	case err != nil:
		if ctx.Err() != nil {
			return nil, "", fmt.Errorf("listing %s models on the Hugging Face Hub: %w", tag, ctx.Err())
		}
		return nil, "", &HubError{URL: h.base(), Tag: tag, Status: resp.StatusCode, Message: "answer cut off",
			Err: errors.Join(ErrHubUnreachable, err), hint: "the connection broke mid-answer; run the sync again"}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", h.statusError(tag, resp, body)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, "", fmt.Errorf("listing %s models on the Hugging Face Hub at %s: the answer is not a model listing (%w) — is huggingface.hub_url the Hub (https://huggingface.co)?", tag, text.RedactURL(h.base()), err)
	}
	items := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		var m map[string]any
		if json.Unmarshal(r, &m) == nil && m != nil {
			items = append(items, m)
		}
	}
	return items, nextLink(u, resp.Header.Values("Link")), nil
}

func (h *Hub) statusError(tag string, resp *http.Response, body []byte) error {
	e := &HubError{URL: h.base(), Tag: tag, Status: resp.StatusCode, Message: hubMessage(body)}
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		e.Err = ErrHubUnauthorized
		if h.Token == "" {
			e.hint = "the Hub wants a token: set huggingface.token or HF_TOKEN (create one at https://huggingface.co/settings/tokens)"
		} else {
			e.hint = "the Hub refused the token in huggingface.token / HF_TOKEN (wrong, expired or without read access); make a new one at https://huggingface.co/settings/tokens"
		}
	case code == http.StatusTooManyRequests:
		e.Err = ErrHubRateLimited
		wait, _ := httpwire.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
		e.RetryAfter = wait.Round(time.Second)
		e.hint = "the Hub is rate limiting this machine; retry later"
		if e.RetryAfter > 0 {
			e.hint += " (it asks to wait " + e.RetryAfter.String() + ")"
		}
		if h.Token == "" {
			e.hint += "; a token (HF_TOKEN) raises the limit"
		}
	case code >= 500:
		e.Err = ErrHubUnavailable
		e.hint = "the Hub is having trouble; try again later (the embedded catalog stays in use)"
	default:
		e.hint = "the Hub rejected the listing request; check the task's pipeline tag and huggingface.hub_url"
	}
	return e
}

// hubMessage extracts the Hub's {"error": "..."} text, or a short plain
// body.
func hubMessage(body []byte) string {
	var v struct {
		Error any `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && v.Error != nil {
		switch e := v.Error.(type) {
		case string:
			return e
		default:
			b, _ := json.Marshal(e)
			return string(b)
		}
	}
	s := strings.TrimSpace(string(body))
	if strings.HasPrefix(s, "<") { // an HTML error page says nothing useful
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func transportReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// nextLink returns the rel="next" target of Link headers, resolved
// against the page that carried them.
func nextLink(page *url.URL, headers []string) string {
	for _, h := range headers {
		for _, part := range strings.Split(h, ",") {
			part = strings.TrimSpace(part)
			if !strings.HasPrefix(part, "<") {
				continue
			}
			end := strings.Index(part, ">")
			if end < 0 {
				continue
			}
			target, params := part[1:end], strings.Split(part[end+1:], ";")
			for _, p := range params {
				k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(k), "rel") {
					continue
				}
				if slices.Contains(strings.Fields(strings.ToLower(strings.Trim(v, `"`))), "next") {
					u, err := page.Parse(target)
					if err != nil {
						return ""
					}
					return u.String()
				}
			}
		}
	}
	return ""
}

// localLibraries are the libraries a self-hosted inference server (such as
// HuggingGPT's models_server) can load by model id.
var localLibraries = map[string]bool{
	"transformers": true, "diffusers": true, "sentence-transformers": true, "timm": true,
	"open_clip": true, "speechbrain": true, "asteroid": true, "espnet": true,
}

// modelFromHub turns one listing item into a Model; ok is false for items
// without an id, disabled models and models no endpoint can serve.
func modelFromHub(raw map[string]any, tag string) (Model, bool) {
	m := hubModel(raw, tag)
	if m.ID == "" || boolean(raw, "disabled") || len(m.Endpoints) == 0 {
		return Model{}, false
	}
	return m, true
}

// hubModel reads the facts of one model as the Hub gives them (a listing
// item, or the model API's answer with the same properties): no
// endpoints when nothing can serve it.
func hubModel(raw map[string]any, tag string) Model {
	id := str(raw, "id")
	if id == "" {
		id = str(raw, "modelId")
	}
	card := obj(raw, "cardData")
	m := Model{
		ID:        id,
		Downloads: num(raw, "downloads"),
		Likes:     num(raw, "likes"),
		License:   hubLicense(card, strs(raw, "tags")),
	}
	m.Params, m.SizeBytes = hubSize(raw)
	index := list(card, "model-index")
	if index == nil {
		index = list(raw, "model-index")
	}
	m.Benchmarks = hubBenchmarks(index)
	library := str(raw, "library_name")
	if library == "" {
		library = str(card, "library_name")
	}
	m.Providers = providersFromHub(id, raw)
	if servedByProviders(raw, m.Providers) {
		m.Endpoints = append(m.Endpoints, EndpointHuggingFace)
	}
	if localLibraries[library] {
		m.Endpoints = append([]EndpointKind{EndpointLocal}, m.Endpoints...)
	}
	m.Description = hubDescription(raw, card, library, tag)
	return m
}

// servedByProviders reports whether an Inference Provider serves the
// model live through Hugging Face's router, which the huggingface endpoint
// calls: any live entry of its mapping. Whether Chorus speaks that
// provider's protocol for a task is the endpoint's to say (it explains a
// model it cannot call). Without a mapping, the older "inference": "warm"
// flag decides.
func servedByProviders(raw map[string]any, providers []Provider) bool {
	if _, ok := raw["inferenceProviderMapping"]; ok {
		return slices.ContainsFunc(providers, Provider.Live)
	}
	return str(raw, "inference") == "warm"
}

// hubLicense reads the card's licence, or a license:xxx tag; "" means the
// model names none. A card's "other" licence is replaced by its
// license_name, which says which one it is.
func hubLicense(card map[string]any, tags []string) string {
	lic := str(card, "license")
	if lic == "" {
		if l := strs(card, "license"); len(l) > 0 {
			lic = l[0]
		}
	}
	if lic == "other" {
		if name := str(card, "license_name"); name != "" {
			lic = name
		}
	}
	if lic == "" {
		for _, t := range tags {
			if v, ok := strings.CutPrefix(t, "license:"); ok && v != "" {
				lic = v
				break
			}
		}
	}
	return strings.ToLower(strings.TrimSpace(lic))
}

// dtypeBytes is the width of each safetensors dtype.
var dtypeBytes = map[string]int64{
	"F64": 8, "I64": 8, "U64": 8,
	"F32": 4, "I32": 4, "U32": 4,
	"F16": 2, "BF16": 2, "I16": 2, "U16": 2,
	"F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "I8": 1, "U8": 1, "BOOL": 1,
}

// weightExts are weight-file formats in order of preference: a repository
// often holds the same weights in several formats, so only one is summed.
var weightExts = [][]string{{".safetensors"}, {".bin"}, {".pt", ".pth"}, {".ckpt"}, {".h5"}, {".onnx"}, {".gguf"}, {".msgpack"}}

// hubSize returns the parameter count and weight size. The safetensors
// header gives exact counts per dtype; otherwise the weight files' sizes
// are summed where the listing has them, and usedStorage (the whole
// repository, an over-estimate) is the last resort.
func hubSize(raw map[string]any) (params, size int64) {
	st := obj(raw, "safetensors")
	params = num(st, "total")
	if perType := obj(st, "parameters"); len(perType) > 0 {
		var sum, count int64
		known := true
		for dtype, v := range perType {
			n := toInt(v)
			w, ok := dtypeBytes[strings.ToUpper(dtype)]
			if !ok {
				known = false
			}
			sum += n * w
			count += n
		}
		if params == 0 {
			params = count
		}
		if known && sum > 0 {
			return params, sum
		}
	}
	for _, exts := range weightExts {
		var sum int64
		for _, s := range list(raw, "siblings") {
			f, _ := s.(map[string]any)
			name := strings.ToLower(str(f, "rfilename"))
			if slices.Contains(exts, path.Ext(name)) {
				sum += num(f, "size")
			}
		}
		if sum > 0 {
			return params, sum
		}
	}
	if params == 0 {
		size = num(raw, "usedStorage")
	}
	return params, size
}

// hubBenchmarks flattens model-index results:
// [{results: [{dataset: {name, type}, metrics: [{type, name, value}]}]}].
func hubBenchmarks(index []any) []Benchmark {
	var out []Benchmark
	for _, entry := range index {
		for _, r := range list(asObj(entry), "results") {
			res := asObj(r)
			ds := obj(res, "dataset")
			dataset := benchmarkDataset(str(ds, "name"), str(ds, "type"), str(ds, "config"))
			if dataset == "" {
				continue
			}
			for _, mv := range list(res, "metrics") {
				met := asObj(mv)
				metric := str(met, "type")
				if metric == "" {
					metric = str(met, "name")
				}
				value, ok := toFloat(met["value"])
				if metric == "" || !ok {
					continue
				}
				b := Benchmark{Dataset: dataset, Metric: strings.ToLower(metric), Value: value, LowerIsBetter: lowerIsBetter(metric, str(met, "name"))}
				if !slices.Contains(out, b) {
					out = append(out, b)
				}
				if len(out) == maxBenchmarks {
					return out
				}
			}
		}
	}
	return out
}

// benchmarkDataset names a dataset so that both its display name and its
// Hub id can be matched ("LibriSpeech (clean) (librispeech_asr)").
func benchmarkDataset(name, typ, config string) string {
	name, typ = strings.TrimSpace(name), strings.TrimSpace(typ)
	switch {
	case name == "" && typ == "":
		return ""
	case name == "":
		name = typ
		if config != "" && config != "default" {
			name += " " + config
		}
		return name
	case typ == "":
		return name
	}
	short := typ[strings.LastIndex(typ, "/")+1:]
	flat := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "", ".", "").Replace(strings.ToLower(s))
	}
	if strings.Contains(flat(name), flat(short)) {
		return name
	}
	return name + " (" + typ + ")"
}

// lowerIsBetter reports whether smaller values of a metric are better:
// error rates, distances and losses.
func lowerIsBetter(names ...string) bool {
	for _, n := range names {
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool {
			return r == ' ' || r == '_' || r == '-' || r == '/' || r == '(' || r == ')'
		}) {
			switch w {
			case "wer", "cer", "mer", "wil", "per", "ter", "fid", "kid", "fvd", "perplexity", "ppl", "loss", "rmse", "mse", "mae", "eer", "error", "abs", "absrel":
				return true
			}
		}
	}
	return false
}

// hubDescription writes a one-line description from the listing's facts.
func hubDescription(raw, card map[string]any, library, tag string) string {
	var b strings.Builder
	if library != "" {
		b.WriteString(library + " model for " + tag)
	} else {
		b.WriteString("Model for " + tag)
	}
	if ds := strs(card, "datasets"); len(ds) > 0 {
		if len(ds) > 3 {
			ds = append(ds[:3:3], "…")
		}
		b.WriteString(", trained on " + strings.Join(ds, ", "))
	}
	langs := strs(card, "language")
	if l := str(card, "language"); l != "" {
		langs = []string{l}
	}
	if len(langs) > 0 && len(langs) <= 3 {
		b.WriteString(" (" + strings.Join(langs, ", ") + ")")
	} else if len(langs) > 3 {
		fmt.Fprintf(&b, " (%d languages)", len(langs))
	}
	if g, _ := raw["gated"].(string); g != "" {
		b.WriteString("; gated: accept its terms on the Hub first")
	} else if g, _ := raw["gated"].(bool); g {
		b.WriteString("; gated: accept its terms on the Hub first")
	}
	b.WriteString(".")
	return b.String()
}

// Lenient accessors: the Hub's payloads vary between models and over
// time, and a field of an unexpected type must read as missing, not fail.

func asObj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func obj(m map[string]any, k string) map[string]any { return asObj(m[k]) }

func list(m map[string]any, k string) []any { l, _ := m[k].([]any); return l }

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return strings.TrimSpace(s)
}

func strs(m map[string]any, k string) []string {
	var out []string
	for _, v := range list(m, k) {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

func boolean(m map[string]any, k string) bool { b, _ := m[k].(bool); return b }

func num(m map[string]any, k string) int64 { return toInt(m[k]) }

func toInt(v any) int64 {
	f, ok := toFloat(v)
	if !ok || f < 0 || f > 1e18 {
		return 0
	}
	return int64(f)
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(x), "%"))
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// SyncResult is the outcome of syncing one task.
type SyncResult struct {
	// Task is the skill name ("image-classification").
	Task string
	// Tag is the Hub pipeline tag that was listed.
	Tag string
	// Models is how many models were saved.
	Models int
	// Served is how many of them an Inference Provider serves live, with
	// the mapping (which provider, under which id) saved with them.
	Served int
	// Fetched is when the listing was read.
	Fetched time.Time
	// Err is why the task was not synced; the previous listing (or the
	// embedded catalog) stays in use.
	Err error
	// NotTried says the task was not asked for: an earlier task found the
	// Hub unreachable or the token refused, and Err is that task's error.
	NotTried bool
	// Skipped says why there is nothing to sync for the task — the Hub has
	// no listing for what runs it ("ocr runs on local programs and local
	// inference servers only"); not a failure.
	Skipped string
}

// Sync refreshes the cache from the Hub for each of tasks, or for every
// skill with a Hub listing when tasks is empty; task names may be aliases
// or near misses, as the planner's are. Each task's listing is saved as
// soon as it arrives. When the Hub is unreachable or refuses the token,
// the remaining tasks are not tried and carry the same error. now stamps
// the fetch time.
func Sync(ctx context.Context, hub *Hub, cache Cache, cat *Catalog, tasks []string, now func() time.Time) []SyncResult {
	if now == nil {
		now = time.Now
	}
	// Resolve first so results come back in the order asked, with unknown
	// names reported where they were given.
	type job struct {
		name  string
		skill *Skill
	}
	var jobs []job
	if len(tasks) == 0 {
		for _, s := range cat.All() {
			if _, ok := s.HubPipelineTag(); ok {
				jobs = append(jobs, job{s.Name, s})
			}
		}
	}
	for _, t := range tasks {
		s, _, ok := cat.Resolve(t)
		if ok && slices.ContainsFunc(jobs, func(j job) bool { return j.skill == s }) {
			continue
		}
		jobs = append(jobs, job{t, s})
	}
	byTag := map[string][]Model{}
	var fatal error
	var results []SyncResult
	for _, j := range jobs {
		s := j.skill
		if s == nil {
			results = append(results, SyncResult{Task: j.name, Err: fmt.Errorf("unknown task %q — `chorus models` lists the tasks", j.name)})
			continue
		}
		r := SyncResult{Task: s.Name}
		tag, ok := s.HubPipelineTag()
		switch {
		case !ok:
			r.Skipped = fmt.Sprintf("%s runs on %s only — nothing to sync", s.Name, s.RunsOn())
		case fatal != nil:
			r.Tag, r.Err, r.NotTried = tag, fatal, true
		default:
			r.Tag = tag
			models, seen := byTag[tag]
			if !seen {
				var err error
				models, err = hub.Models(ctx, tag)
				if err != nil {
					r.Err = err
					if errors.Is(err, ErrHubUnreachable) || errors.Is(err, ErrHubUnauthorized) || ctx.Err() != nil {
						fatal = err
					}
					break
				}
				byTag[tag] = models
			}
			r.Fetched = now()
			if err := cache.Save(s.Name, models, r.Fetched); err != nil {
				r.Err = err
				break
			}
			r.Models = len(models)
			for _, m := range models {
				if len(m.LiveProviders()) > 0 {
					r.Served++
				}
			}
		}
		results = append(results, r)
	}
	return results
}
