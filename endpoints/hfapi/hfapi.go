// Package hfapi is the Hugging Face Inference API's wire format: for each
// task, how the request is built from the planner's arguments and how the
// answer is read into an endpoints.Result, as the official JavaScript client
// (@huggingface/inference, provider hf-inference) sends and reads them.
//
// It is one table, task → {build the request, read the answer}, so a task
// is supported exactly when it has a row (Supported), and adding one is one
// row with its two functions. The package only shapes data: the HTTP
// exchange — waiting for a loading model, backing off on 429, token errors —
// is the huggingface endpoint's, which the local endpoint reuses for a
// self-hosted server speaking the same protocol.
package hfapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/chorusai/chorus/endpoints"
)

// Request is one request body in the Inference API's shape.
type Request struct {
	// Route follows {base}/models/{id}: "" for the model's pipeline, or a
	// sub-route such as "/pipeline/sentence-similarity".
	Route       string
	ContentType string
	Body        []byte
}

// Supported reports whether the Inference API can express task (it has a
// row in the table), so callers can tell endpoints.ErrUnsupported apart
// before trying a model.
func Supported(task string) bool {
	_, ok := tasks[task]
	return ok
}

// Build builds the Inference API request for req.Task from the planner's
// arguments. Media arguments are read only from req.Files, the files that
// passed the turn's trust rule; problems with them wrap
// endpoints.ErrBadInput, and a task without a row wraps
// endpoints.ErrUnsupported.
func Build(req endpoints.Request) (Request, error) {
	spec, ok := tasks[req.Task]
	if !ok {
		return Request{}, Unsupported(req.Task)
	}
	return spec.build(req)
}

// Parse reads a successful answer to task (its Content-Type and body) into
// an endpoints.Result: the JSON in Data, a readable Text, and produced files
// as Blobs. Base64 files inside JSON become Blobs too, decoded through
// spool (in memory when small, to a temporary file when large), so the
// answer is never held twice. Segmentation and mask-generation keep their
// masks in Data as well (in order with Blobs), since the executor's
// annotation overlays them with their labels from there; depth-estimation
// and audio-to-audio replace the bulky tensor and audio in Data by an index
// into Blobs ("depth_blob": 0, "blob_index": 0). An answer in the wrong
// shape is an error that quotes it.
func Parse(task string, args map[string]string, contentType string, body []byte, spool endpoints.Spool) (endpoints.Result, error) {
	return ParseBlob(task, args, contentType, endpoints.Blob{Data: body}, body[:min(len(body), endpoints.SniffLen)], spool)
}

// ParseBlob is Parse for an answer spooled by endpoints.Spool: in memory,
// or in a temporary file when it was large, with head its first bytes. A
// file answer (an image, a sound) stays where it is and becomes the
// Result's Blob; a JSON answer is read into memory once, exactly sized,
// and its temporary file removed. On error no temporary file is left.
func ParseBlob(task string, args map[string]string, contentType string, body endpoints.Blob, head []byte, spool endpoints.Spool) (endpoints.Result, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	data := body.Data
	if body.Path != "" {
		if !mayBeJSON(mt, head) {
			return fileAnswer(task, mt, body, head)
		}
		var err error
		data, err = body.Bytes(spool.Limit())
		body.Remove()
		if err != nil {
			return endpoints.Result{}, fmt.Errorf("%s answer: %w", task, err)
		}
	}
	trimmed := bytes.TrimSpace(data)
	if !isJSON(mt, trimmed) {
		return fileAnswer(task, mt, endpoints.Blob{Data: data}, data[:min(len(data), endpoints.SniffLen)])
	}
	// A large answer is used as it came: compacting would copy it, and
	// json.Marshal compacts Data wherever it is embedded anyway.
	raw := json.RawMessage(trimmed)
	if len(trimmed) <= compactUpTo {
		var compact bytes.Buffer
		_ = json.Compact(&compact, trimmed)
		raw = compact.Bytes()
	}
	if msg := errorOnly(raw); msg != "" {
		return endpoints.Result{}, fmt.Errorf("%s", msg)
	}
	spec, known := tasks[task]
	res, err := endpoints.Result{}, Unsupported(task)
	if known {
		res, err = spec.read(args, raw, spool)
	}
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s answered an unexpected shape (%w): %s", task, err, Snippet(raw))
	}
	if res.Data == nil {
		res.Data = raw
	}
	return res, nil
}

// compactUpTo is the largest JSON answer compacted for Data.
const compactUpTo = 1 << 20

// isJSON reports whether an answer is JSON: by its type, or, untyped or
// typed as plain text, by being valid JSON that is an object or a list.
func isJSON(mt string, trimmed []byte) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		((mt == "" || mt == "text/plain") && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed))
}

// mayBeJSON is isJSON for an answer of which only the head is at hand.
func mayBeJSON(mt string, head []byte) bool {
	t := bytes.TrimSpace(head)
	return mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		((mt == "" || mt == "text/plain") && len(t) > 0 && (t[0] == '{' || t[0] == '['))
}

// fileAnswer is an answer that is a file (an image, a sound), for the
// tasks that produce one; for the others it is an error, and any
// temporary file is removed.
func fileAnswer(task, mt string, b endpoints.Blob, head []byte) (endpoints.Result, error) {
	spec := tasks[task]
	size, _ := b.Size()
	if !spec.binary {
		b.Remove()
		return endpoints.Result{}, fmt.Errorf("%s answered %s (%d bytes) where JSON was expected", task, cmp.Or(mt, "no content type"), size)
	}
	if size == 0 {
		b.Remove()
		return endpoints.Result{}, fmt.Errorf("%s answered an empty body", task)
	}
	b.MIME = BlobMIME(mt, head)
	return endpoints.Result{Blobs: []endpoints.Blob{b}}, nil
}

// ModelPath validates a model id and escapes it for a URL path, keeping
// the slash between owner and name: requests go to {base}/models/{path}.
func ModelPath(model string) (string, error) {
	m := strings.TrimSpace(model)
	if m == "" {
		return "", badInput("no model id")
	}
	segs := strings.Split(m, "/")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, " \t\r\n?#\\") {
			return "", badInput("model id %q is not a Hugging Face model id (owner/name)", model)
		}
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/"), nil
}

// IsControlNetTask reports whether task is one of HuggingGPT's ControlNet
// tasks ("canny-control", "canny-text-to-image", …), which only a
// models_server (local.protocol: jarvis) serves.
func IsControlNetTask(task string) bool {
	for _, kind := range []string{"canny", "hed", "mlsd", "normal", "openpose", "seg", "depth", "scribble"} {
		if task == kind+"-control" || task == kind+"-text-to-image" {
			return true
		}
	}
	return false
}

// Unsupported explains why a server speaking the Inference API cannot run
// task; it wraps endpoints.ErrUnsupported.
func Unsupported(task string) error {
	if IsControlNetTask(task) {
		return fmt.Errorf("%w: %s is served only by HuggingGPT's models_server — set local.url and local.protocol: jarvis", endpoints.ErrUnsupported, task)
	}
	return fmt.Errorf("%w: no Hugging Face request shape for task %q", endpoints.ErrUnsupported, task)
}

// badInput returns an error wrapping endpoints.ErrBadInput.
func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", endpoints.ErrBadInput, fmt.Sprintf(format, args...))
}

// EncodeJSON encodes v without HTML escaping, as a request body: the
// official client's JSON.stringify writes it.
func EncodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only maps, slices and strings are encoded here; they always encode.
		return []byte("null")
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// jsonRequest is a JSON request body for route.
func jsonRequest(route string, v any) Request {
	return Request{Route: route, ContentType: "application/json", Body: EncodeJSON(v)}
}
