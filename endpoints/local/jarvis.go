package local

// HuggingGPT's models_server protocol (microsoft/JARVIS,
// hugginggpt/server/models_server.py), as awesome_chat.py speaks it:
//
//	GET  /running           → {"running": true}
//	GET  /status/{model_id} → {"loaded": true|false}
//	POST /models/{model_id} with {"img_url": path, "text": …} for image
//	     tasks, {"audio_url": path} for audio tasks, {"text": …} for text
//	     tasks and generation
//
// The server reads inputs from local paths (or URLs) itself, so Chorus sends
// absolute paths and the server must see the same file system. It answers
// every inference failure with HTTP 200 and {"error": {"message": …}}, and
// generated files as paths under its public directory
// ({"path": "/images/1a2b.png"}).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// jarvisMediaKeys maps Chorus's media argument names onto the keys
// models_server reads.
var jarvisMediaKeys = map[string]string{"image": "img_url", "audio": "audio_url", "video": "video_url"}

// jarvisRequired lists the arguments task cannot run without.
func jarvisRequired(task string) []string {
	switch {
	case strings.HasSuffix(task, "-control"):
		return []string{"image"}
	case hfapi.IsControlNetTask(task): // *-text-to-image
		return []string{"image", "text"}
	}
	switch task {
	case "image-classification", "object-detection", "image-to-text", "ocr", "depth-estimation",
		"image-segmentation", "image-to-image", "mask-generation":
		return []string{"image"}
	case "zero-shot-image-classification", "zero-shot-object-detection":
		return []string{"image", "labels"}
	case "visual-question-answering", "document-question-answering", "image-editing":
		return []string{"image", "text"}
	case "automatic-speech-recognition", "audio-classification", "audio-to-audio":
		return []string{"audio"}
	case "video-classification":
		return []string{"video"}
	case "question-answering":
		return []string{"text", "context"}
	case "sentence-similarity":
		return []string{"text", "sentences"}
	}
	return []string{"text"}
}

// jarvisBody builds the JSON body models_server reads for task, field for
// field as awesome_chat.py's local_model_inference sends it:
//
//	ControlNet generation (*-text-to-image)   {"img_url", "text"}
//	ControlNet annotators (*-control)          {"img_url"}
//	captioning, OCR, classification, VQA, DQA  {"img_url", "text"} (text null when not asked)
//	depth, segmentation, image-to-image,
//	detection, zero-shot detection             {"img_url"}
//	speech recognition, audio-to-audio,
//	audio classification                       {"audio_url"}
//	text-to-image, -video, -speech, text tasks the task's arguments as they are ({"text": …})
//	mask-generation (not in models_server)     {"img_url", "points": [[x, y]], "boxes": [[x0, y0, x1, y1]]}
//
// Zero-shot detection sends only the image: models_server's OWL-ViT branch
// reads nothing else (it searches a fixed list of COCO classes), so the
// labels are applied to its answer instead (jarvisResult). Tasks
// awesome_chat has no code for (a deployment's own additions: mask
// generation, editing) get every argument, media as *_url. Media
// arguments are sent as the resolved paths of req.Files — files that
// passed the turn's trust rule — since the server reads them itself from
// the same file system; a path only in Args is refused.
func jarvisBody(req endpoints.Request) (map[string]any, error) {
	task, args := req.Task, req.Args
	for _, name := range jarvisRequired(task) {
		_, media := jarvisMediaKeys[name]
		if media {
			if _, ok := req.Files[name]; ok {
				continue
			}
		}
		if strings.TrimSpace(args[name]) == "" {
			return nil, badInput("%s needs a %q argument", task, name)
		}
	}
	media := func(body map[string]any, names ...string) (map[string]any, error) {
		for _, name := range names {
			p, err := jarvisInputPath(req, name)
			if err != nil {
				return nil, err
			}
			body[jarvisMediaKeys[name]] = p
		}
		return body, nil
	}
	textOrNull := func() any {
		if v, ok := args["text"]; ok {
			return v
		}
		return nil
	}
	switch {
	case strings.HasSuffix(task, "-control"):
		return media(map[string]any{}, "image")
	case hfapi.IsControlNetTask(task):
		return media(map[string]any{"text": args["text"]}, "image")
	}
	switch task {
	case "image-classification", "image-to-text", "ocr", "document-question-answering", "visual-question-answering":
		return media(map[string]any{"text": textOrNull()}, "image")
	case "depth-estimation", "image-segmentation", "image-to-image", "object-detection", "zero-shot-object-detection":
		return media(map[string]any{}, "image")
	case "automatic-speech-recognition", "audio-to-audio", "audio-classification":
		return media(map[string]any{}, "audio")
	case "mask-generation":
		// Not a models_server task: the shape Chorus documents for a
		// server that adds SAM, SAM's own visual prompts as numbers.
		body := map[string]any{}
		for name, key := range map[string]string{"point": "points", "box": "boxes"} {
			if v := strings.TrimSpace(args[name]); v != "" {
				n, err := jarvisNumbers(task, name, v, map[string]int{"point": 2, "box": 4}[name])
				if err != nil {
					return nil, err
				}
				body[key] = [][]float64{n}
			}
		}
		return media(body, "image")
	}
	body := map[string]any{}
	for k, v := range args {
		if _, m := jarvisMediaKeys[k]; !m {
			body[k] = v
		}
	}
	for k := range jarvisMediaKeys {
		if _, ok := req.Files[k]; !ok && strings.TrimSpace(args[k]) == "" {
			continue
		}
		if _, err := media(body, k); err != nil {
			return nil, err
		}
	}
	return body, nil
}

// jarvisNumbers parses a point "x,y" or a box "x1,y1,x2,y2".
func jarvisNumbers(task, name, v string, n int) ([]float64, error) {
	parts := strings.Split(v, ",")
	if len(parts) != n {
		return nil, badInput("%s: %s %q is not %d numbers", task, name, v, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, badInput("%s: %s %q is not %d numbers", task, name, v, n)
		}
		out[i] = f
	}
	return out, nil
}

// jarvisInputPath returns the checked file of media argument name as the
// absolute, resolved path the server is to read: absolute because the
// server resolves relative paths against its own directory. Chorus does
// not open it, the server does; what matters is that the path passed the
// rule, so the server is sent only files the user gave.
func jarvisInputPath(req endpoints.Request, name string) (string, error) {
	f, err := req.File(name, "the "+name+" file")
	if err != nil {
		return "", err
	}
	p := req.Args[name]
	if p == "" {
		p = f.Asked()
	}
	st, err := os.Stat(f.Path())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", badInput("%s file %s does not exist", name, p)
	case err != nil:
		return "", badInput("cannot read %s file %s: %v", name, p, err)
	case st.IsDir():
		return "", badInput("%s file %s is a directory, not a file", name, p)
	}
	return f.Path(), nil
}

func (e *Endpoint) inferJarvis(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	mpath, err := hfapi.ModelPath(req.Model)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: %w", skills.EndpointLocal, err)
	}
	body, err := jarvisBody(req)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", skills.EndpointLocal, req.Model, err)
	}
	var classes []string
	if req.Task == "zero-shot-object-detection" {
		if classes, err = jarvisDetectClasses(req); err != nil {
			return endpoints.Result{}, fmt.Errorf("%s %s: %w", skills.EndpointLocal, req.Model, err)
		}
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/models/"+mpath, bytes.NewReader(hfapi.EncodeJSON(body)))
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", skills.EndpointLocal, req.Model, err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "chorus")
	resp, err := e.client.Do(r)
	if err != nil {
		return endpoints.Result{}, e.jarvisNetError(ctx, req.Model, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := httpwire.ReadBody(resp, maxErrorBody)
		return endpoints.Result{}, e.jarvisStatusError(req.Model, resp.StatusCode, data)
	}
	data, err := e.readJSON(resp)
	if err != nil {
		return endpoints.Result{}, e.jarvisBodyError(ctx, req.Model, resp.StatusCode, err)
	}
	if classes != nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		if data, err = jarvisFilterDetections(data, classes); err != nil {
			return endpoints.Result{}, &endpoints.HTTPError{Kind: skills.EndpointLocal, Model: req.Model, Status: http.StatusOK, Err: endpoints.ErrUnavailable, Message: err.Error()}
		}
	}
	return e.jarvisResult(ctx, req, data)
}

// maxErrorBody bounds how much of a failure's body is read.
const maxErrorBody = 64 << 10

// readJSON reads models_server's answer into memory once, exactly sized:
// refused by Content-Length or by count when over the limit, spooled to
// disk on the way when it is large, never grown by doubling.
func (e *Endpoint) readJSON(resp *http.Response) ([]byte, error) {
	b, _, err := e.spool.ReadBody(resp)
	if err != nil || b.Path == "" {
		return b.Data, err
	}
	defer b.Remove()
	return b.Bytes(e.spool.Limit())
}

// jarvisBodyError explains an answer that arrived but could not be read
// whole: cut off mid-way or over the limit — not an unreachable server.
func (e *Endpoint) jarvisBodyError(ctx context.Context, model string, status int, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: stopped: %w", skills.EndpointLocal, model, ctxErr)
	}
	var be *httpwire.BodyError
	switch {
	case errors.As(err, &be) && be.TooLarge():
		return &endpoints.HTTPError{Kind: skills.EndpointLocal, Model: model, Status: status, Err: errors.Join(endpoints.ErrUnavailable, be),
			Message: fmt.Sprintf("%v — a smaller output, or another model, may do", be)}
	case errors.As(err, &be):
		return &endpoints.HTTPError{Kind: skills.EndpointLocal, Model: model, Status: status, Err: errors.Join(endpoints.ErrUnavailable, be),
			Message: fmt.Sprintf("the local server %s started answering, then closed the connection: %v — see the models_server log", e.url, be)}
	}
	return fmt.Errorf("%s %s: %w", skills.EndpointLocal, model, err)
}

func (e *Endpoint) jarvisNetError(ctx context.Context, model string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: stopped: %w", skills.EndpointLocal, model, ctxErr)
	}
	u := e.unreachable(err)
	return endpoints.MarkHostDown(e.url, err, endpoints.Explain(fmt.Sprintf("%s %s: %v", skills.EndpointLocal, model, u), u))
}

func (e *Endpoint) jarvisStatusError(model string, status int, body []byte) error {
	he := &endpoints.HTTPError{Kind: skills.EndpointLocal, Model: model, Status: status, Err: endpoints.ErrUnavailable}
	switch status {
	case http.StatusInternalServerError:
		// models_server raises KeyError outside its try block for a model
		// it has not loaded.
		he.Message = fmt.Sprintf("the local server %s failed on the model; it is probably not loaded there (check GET /status/%s and the models_server log)", e.url, model)
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		he.Message = fmt.Sprintf("%s has no POST /models/%s — is it HuggingGPT's models_server? Check local.url, or set local.protocol: hf", e.url, model)
	default:
		he.Message = fmt.Sprintf("the local server %s could not run the model%s", e.url, huggingface.ServerSaid(hfapi.Message(body)))
	}
	return he
}

// jarvisPathKeys are the answer fields that carry generated files: the
// server's "path", and the names awesome_chat renames it to.
var jarvisPathKeys = []string{"path", "generated image", "generated audio", "generated video"}

// jarvisResult maps models_server's answer onto a Result.
func (e *Endpoint) jarvisResult(ctx context.Context, req endpoints.Request, data []byte) (out endpoints.Result, err error) {
	fail := func(format string, args ...any) error {
		return &endpoints.HTTPError{Kind: skills.EndpointLocal, Model: req.Model, Status: http.StatusOK, Err: endpoints.ErrUnavailable, Message: fmt.Sprintf(format, args...)}
	}
	trimmed := bytes.TrimSpace(data)
	if !json.Valid(trimmed) {
		return endpoints.Result{}, fail("the local server answered something other than JSON: %s", hfapi.Snippet(trimmed))
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, trimmed)
	raw := json.RawMessage(compact.Bytes())

	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		// A list: detections, VQA answers, labels — Hugging Face shapes.
		res, err := hfapi.Parse(req.Task, req.Args, "application/json", raw, e.spool)
		if err != nil {
			return endpoints.Result{}, fail("%v", err)
		}
		return res, nil
	}
	if _, ok := obj["error"]; ok {
		msg := hfapi.Message(raw)
		if msg == "model not found" {
			return endpoints.Result{}, fail("the local server %s has no inference code for %s (models_server answered \"model not found\") — pick another model", e.url, req.Model)
		}
		return endpoints.Result{}, fail("the local server %s failed to run the model%s — see the models_server log", e.url, huggingface.ServerSaid(msg))
	}

	res := endpoints.Result{Data: raw}
	// Files read so far are temporary files when large; a later failure
	// must not leave them behind.
	defer func() {
		if err != nil {
			res.Discard()
		}
	}()
	var texts []string
	str := func(key string) (string, bool) {
		v, ok := obj[key]
		if !ok {
			return "", false
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	for _, k := range jarvisPathKeys {
		p, ok := str(k)
		if !ok || p == "" {
			continue
		}
		b, err := e.jarvisFile(ctx, p)
		if err != nil {
			return endpoints.Result{}, err
		}
		res.Blobs = append(res.Blobs, b)
	}
	if s, ok := str("generated text"); ok {
		texts = append(texts, s)
	}
	if s, ok := str("text"); ok && req.Task != "text-to-speech" {
		texts = append(texts, strings.TrimSpace(s))
	}
	if pred, ok := obj["predicted"]; ok {
		t, err := hfapi.RenderDetections(pred)
		if err != nil {
			return endpoints.Result{}, fail("predicted: %v", err)
		}
		texts = append(texts, t)
	}
	if _, ok := obj["answer"]; ok {
		t, err := hfapi.RenderAnswer(raw)
		if err != nil {
			return endpoints.Result{}, fail("%v", err)
		}
		texts = append(texts, t)
	}
	if req.Task == "mask-generation" && len(res.Blobs) > 0 && len(texts) == 0 {
		// The mask's text, as the Inference API's masks read.
		var score float64
		if v, ok := obj["score"]; ok && json.Unmarshal(v, &score) == nil {
			texts = append(texts, fmt.Sprintf("1 segment: mask (%.2f)", score))
		} else {
			texts = append(texts, "1 segment: mask")
		}
	}
	if len(texts) == 0 && len(res.Blobs) == 0 {
		// Anything else in a Hugging Face shape (a generated_text object…).
		hr, err := hfapi.Parse(req.Task, req.Args, "application/json", raw, e.spool)
		if err != nil {
			return endpoints.Result{}, fail("%v", err)
		}
		return hr, nil
	}
	res.Text = strings.Join(texts, "\n")
	return res, nil
}

// jarvisFile loads a file the server generated. p is a path the server
// wrote — an expert's output, so it is trusted no further than
// local.public_dir: a path under the server's public directory
// ("/images/1a2b.png", or absolute inside it) is read from
// Options.PublicDir, through a scope that allows only that directory, so
// "../../.ssh/id_rsa" or a link out of it is refused; otherwise the file
// is fetched from {URL}{p}, which works behind a static file server. A
// URL is fetched only from the server itself.
func (e *Endpoint) jarvisFile(ctx context.Context, p string) (endpoints.Blob, error) {
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		if !e.sameServer(p) {
			return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("the local server answered a file at %s, which is not on the server itself (%s) — Chorus fetches generated files only from local.url", p, e.url), endpoints.ErrUnavailable, scope.ErrDenied)
		}
		return e.jarvisFetch(ctx, p, p)
	}
	if e.publicDir != "" {
		b, found, err := e.publicFile(p)
		if found || err != nil {
			return b, err
		}
	}
	clean := path.Clean("/" + filepath.ToSlash(p))
	b, fetchErr := e.jarvisFetch(ctx, p, e.url+clean)
	if fetchErr == nil {
		return b, nil
	}
	if ctx.Err() != nil {
		return endpoints.Blob{}, fetchErr
	}
	where := "local.public_dir is not set"
	if e.publicDir != "" {
		where = "it is not under local.public_dir (" + e.publicDir + ")"
	}
	return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("the local server produced %s but Chorus cannot read it: %s, and %v — set local.public_dir to models_server's public directory (hugginggpt/server/public)", p, where, fetchErr), endpoints.ErrUnavailable)
}

// publicFile reads a generated file from the public directory: p relative
// to it (models_server's "/images/…"), or an absolute path inside it.
// found is false when neither exists, so the caller fetches it instead;
// a path that resolves outside the directory is refused, never read.
func (e *Endpoint) publicFile(p string) (b endpoints.Blob, found bool, err error) {
	public := scope.New(scope.Options{WorkDir: e.publicDir})
	public.AllowDir(e.publicDir, scope.Output)
	candidates := []string{filepath.Join(e.publicDir, filepath.FromSlash(p))}
	if filepath.IsAbs(p) {
		candidates = append(candidates, p)
	}
	var denied error
	for _, c := range candidates {
		f, err := public.Check(c)
		var de *scope.DeniedError
		switch {
		case errors.As(err, &de):
			denied = de
			continue
		case err != nil:
			continue // not there: try the next, or HTTP
		}
		fh, err := f.Open()
		if err != nil {
			return endpoints.Blob{}, true, endpoints.Explain(fmt.Sprintf("the local server produced %s but Chorus cannot read it: %v", p, err), endpoints.ErrUnavailable, err)
		}
		b, head, err := e.spool.Copy(fh)
		fh.Close()
		if err != nil {
			return endpoints.Blob{}, true, endpoints.Explain(fmt.Sprintf("the local server produced %s but Chorus cannot read it: %v", p, err), endpoints.ErrUnavailable, err)
		}
		b.MIME = hfapi.MediaType(f.Path(), head)
		return b, true, nil
	}
	if denied != nil {
		return endpoints.Blob{}, false, endpoints.Explain(fmt.Sprintf("the local server answered %s, which is outside local.public_dir (%s) — Chorus reads the files it generates only from there, so it was not read", p, e.publicDir), endpoints.ErrUnavailable, denied)
	}
	return endpoints.Blob{}, false, nil
}

// sameServer reports whether u is on the local server (local.url): the
// only place a URL in its answer may send Chorus.
func (e *Endpoint) sameServer(u string) bool {
	pu, err := url.Parse(u)
	base, berr := url.Parse(e.url)
	return err == nil && berr == nil && strings.EqualFold(pu.Scheme, base.Scheme) && strings.EqualFold(pu.Host, base.Host)
}

// jarvisFetch GETs a generated file, spooled: refused by Content-Length
// or by count over the limit, held in a temporary file when large.
func (e *Endpoint) jarvisFetch(ctx context.Context, name, target string) (endpoints.Blob, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return endpoints.Blob{}, fmt.Errorf("fetching %s: %w", name, err)
	}
	r.Header.Set("User-Agent", "chorus")
	resp, err := e.client.Do(r)
	if err != nil {
		if ctx.Err() != nil {
			return endpoints.Blob{}, fmt.Errorf("fetching %s: %w", name, ctx.Err())
		}
		return endpoints.Blob{}, fmt.Errorf("fetching %s failed: %w", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return endpoints.Blob{}, fmt.Errorf("GET %s answered HTTP %d", target, resp.StatusCode)
	}
	b, head, err := e.spool.ReadBody(resp)
	if err != nil {
		return endpoints.Blob{}, fmt.Errorf("fetching %s: %w", target, err)
	}
	if len(head) == 0 {
		b.Remove()
		return endpoints.Blob{}, fmt.Errorf("GET %s answered an empty file", target)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "" || mt == "application/octet-stream" || strings.HasPrefix(mt, "text/") {
		b.MIME = hfapi.MediaType(name, head)
	} else {
		b.MIME = hfapi.BlobMIME(mt, head)
	}
	return b, nil
}

// badInput returns an error wrapping endpoints.ErrBadInput.
func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", endpoints.ErrBadInput, fmt.Sprintf(format, args...))
}
