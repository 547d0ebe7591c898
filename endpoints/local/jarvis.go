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
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/endpoints/huggingface"
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

// jarvisBody builds the JSON body models_server reads for task.
func jarvisBody(task string, args map[string]string) (map[string]any, error) {
	for _, name := range jarvisRequired(task) {
		if strings.TrimSpace(args[name]) == "" {
			return nil, badInput("%s needs a %q argument", task, name)
		}
	}
	body := map[string]any{}
	for k, v := range args {
		key, media := jarvisMediaKeys[k]
		if !media {
			body[k] = v
			continue
		}
		p, err := jarvisInputPath(k, v)
		if err != nil {
			return nil, err
		}
		body[key] = p
	}
	// models_server reads "text" for image tasks even when it is unused
	// (BLIP captioning), as awesome_chat always sends it.
	if _, ok := body["img_url"]; ok {
		if _, ok := body["text"]; !ok {
			body["text"] = nil
		}
	}
	return body, nil
}

// jarvisInputPath checks that a media file exists and makes its path
// absolute, since the server resolves relative paths against its own
// directory. URLs pass through: the server downloads them.
func jarvisInputPath(name, p string) (string, error) {
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		return p, nil
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", badInput("%s file %s does not exist", name, p)
	case err != nil:
		return "", badInput("cannot read %s file %s: %v", name, p, err)
	case st.IsDir():
		return "", badInput("%s file %s is a directory, not a file", name, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", badInput("%s file %s: %v", name, p, err)
	}
	return abs, nil
}

func (e *Endpoint) inferJarvis(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	mpath, err := hfapi.ModelPath(req.Model)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: %w", endpoints.Local, err)
	}
	body, err := jarvisBody(req.Task, req.Args)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", endpoints.Local, req.Model, err)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/models/"+mpath, bytes.NewReader(hfapi.EncodeJSON(body)))
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s %s: %w", endpoints.Local, req.Model, err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "chorus")
	resp, err := e.client.Do(r)
	if err != nil {
		return endpoints.Result{}, e.jarvisNetError(ctx, req.Model, err)
	}
	data, err := huggingface.ReadBody(resp.Body)
	resp.Body.Close()
	if err != nil {
		return endpoints.Result{}, e.jarvisNetError(ctx, req.Model, err)
	}
	if resp.StatusCode != http.StatusOK {
		return endpoints.Result{}, e.jarvisStatusError(req.Model, resp.StatusCode, data)
	}
	return e.jarvisResult(ctx, req, data)
}

func (e *Endpoint) jarvisNetError(ctx context.Context, model string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s %s: stopped: %w", endpoints.Local, model, ctxErr)
	}
	u := e.unreachable(err)
	return endpoints.Explain(fmt.Sprintf("%s %s: %v", endpoints.Local, model, u), u)
}

func (e *Endpoint) jarvisStatusError(model string, status int, body []byte) error {
	he := &endpoints.HTTPError{Kind: endpoints.Local, Model: model, Status: status, Err: endpoints.ErrUnavailable}
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
func (e *Endpoint) jarvisResult(ctx context.Context, req endpoints.Request, data []byte) (endpoints.Result, error) {
	fail := func(format string, args ...any) error {
		return &endpoints.HTTPError{Kind: endpoints.Local, Model: req.Model, Status: http.StatusOK, Err: endpoints.ErrUnavailable, Message: fmt.Sprintf(format, args...)}
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
		res, err := hfapi.Parse(req.Task, req.Args, "application/json", raw)
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
	if len(texts) == 0 && len(res.Blobs) == 0 {
		// Anything else in a Hugging Face shape (a generated_text object…).
		hr, err := hfapi.Parse(req.Task, req.Args, "application/json", raw)
		if err != nil {
			return endpoints.Result{}, fail("%v", err)
		}
		return hr, nil
	}
	res.Text = strings.Join(texts, "\n")
	return res, nil
}

// jarvisFile loads a file the server generated. p is a URL, or a path under
// the server's public directory ("/images/1a2b.png"): it is read from
// Options.PublicDir when that has it, else fetched from {URL}{p}; a
// clean absolute path to a media file that exists on this machine (a server
// writing absolute paths) is read last.
func (e *Endpoint) jarvisFile(ctx context.Context, p string) (endpoints.Blob, error) {
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		return e.jarvisFetch(ctx, p, p)
	}
	clean := path.Clean("/" + filepath.ToSlash(p))
	if e.publicDir != "" {
		local := filepath.Join(e.publicDir, filepath.FromSlash(clean))
		if data, err := os.ReadFile(local); err == nil {
			return endpoints.Blob{MIME: hfapi.MediaType(local, data), Data: data}, nil
		}
	}
	b, fetchErr := e.jarvisFetch(ctx, p, e.url+clean)
	if fetchErr == nil {
		return b, nil
	}
	if ctx.Err() != nil {
		return endpoints.Blob{}, fetchErr
	}
	// Only a clean absolute path to a media file: a server answer must not
	// make Chorus copy arbitrary local files into its outputs.
	if hfapi.IsMediaFile(p) && filepath.IsAbs(p) && filepath.Clean(p) == p {
		if data, err := os.ReadFile(p); err == nil {
			return endpoints.Blob{MIME: hfapi.MediaType(p, data), Data: data}, nil
		}
	}
	where := "local.public_dir is not set"
	if e.publicDir != "" {
		where = "it is not under local.public_dir (" + e.publicDir + ")"
	}
	return endpoints.Blob{}, endpoints.Explain(fmt.Sprintf("the local server produced %s but Chorus cannot read it: %s, and %v — set local.public_dir to models_server's public directory (hugginggpt/server/public)", p, where, fetchErr), endpoints.ErrUnavailable)
}

// jarvisFetch GETs a generated file.
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
	data, err := huggingface.ReadBody(resp.Body)
	if err != nil {
		return endpoints.Blob{}, fmt.Errorf("fetching %s: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return endpoints.Blob{}, fmt.Errorf("GET %s answered HTTP %d", target, resp.StatusCode)
	}
	if len(data) == 0 {
		return endpoints.Blob{}, fmt.Errorf("GET %s answered an empty file", target)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "" || mt == "application/octet-stream" || strings.HasPrefix(mt, "text/") {
		return endpoints.Blob{MIME: hfapi.MediaType(name, data), Data: data}, nil
	}
	return endpoints.Blob{MIME: hfapi.BlobMIME(mt, data), Data: data}, nil
}

// badInput returns an error wrapping endpoints.ErrBadInput.
func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", endpoints.ErrBadInput, fmt.Sprintf(format, args...))
}
