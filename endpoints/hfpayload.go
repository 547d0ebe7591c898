package endpoints

// The Hugging Face Inference API's request and response shapes, task by
// task, as the official JavaScript client (@huggingface/inference, provider
// hf-inference) sends and reads them. Both the huggingface endpoint and a
// local server speaking the same protocol (local.protocol: hf) use them.

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/imaging"
)

// hfRequest is one request body in the Inference API's shape.
type hfRequest struct {
	// Route follows {base}/models/{id}: "" for the model's pipeline, or a
	// sub-route such as "/pipeline/sentence-similarity".
	Route       string
	ContentType string
	Body        []byte
}

// hfBadInput returns an error wrapping ErrBadInput.
func hfBadInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// HFTaskSupported reports whether the Hugging Face payload layer can express
// task, so callers can tell ErrUnsupported apart before trying a model.
func HFTaskSupported(task string) bool {
	switch task {
	case "token-classification", "text-classification", "text2text-generation", "summarization",
		"translation", "question-answering", "conversational", "text-generation",
		"sentence-similarity", "tabular-classification", "image-to-text", "text-to-image",
		"visual-question-answering", "document-question-answering", "image-segmentation",
		"image-classification", "image-to-image", "object-detection", "depth-estimation",
		"text-to-speech", "automatic-speech-recognition", "audio-to-audio", "audio-classification",
		"text-to-video", "video-classification", "zero-shot-image-classification",
		"zero-shot-object-detection", "mask-generation", "image-editing", "ocr", "social-media-post":
		return true
	}
	return false
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

// hfUnsupported explains why an HF-protocol server cannot run task.
func hfUnsupported(task string) error {
	if IsControlNetTask(task) {
		return fmt.Errorf("%w: %s is served only by HuggingGPT's models_server — set local.url and local.protocol: jarvis", ErrUnsupported, task)
	}
	return fmt.Errorf("%w: no Hugging Face request shape for task %q", ErrUnsupported, task)
}

// hfJSON encodes v without HTML escaping, as a request body.
func hfJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only maps, slices and strings are encoded here; they always encode.
		return []byte("null")
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

func hfJSONRequest(route string, v any) hfRequest {
	return hfRequest{Route: route, ContentType: "application/json", Body: hfJSON(v)}
}

// hfArg returns a required text argument.
func hfArg(task string, args map[string]string, name string) (string, error) {
	v := strings.TrimSpace(args[name])
	if v == "" {
		return "", hfBadInput("%s needs a %q argument", task, name)
	}
	return args[name], nil
}

// hfMedia reads the local file a media argument names and returns its bytes
// and MIME type.
func hfMedia(task string, args map[string]string, name string) ([]byte, string, error) {
	p := strings.TrimSpace(args[name])
	if p == "" {
		return nil, "", hfBadInput("%s needs an %q argument (a file path)", task, name)
	}
	if strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		return nil, "", hfBadInput("%s argument %s=%q is a URL; give a local file path (download it first)", task, name, p)
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", hfBadInput("%s file %s does not exist", name, p)
	case err != nil:
		return nil, "", hfBadInput("cannot read %s file %s: %v", name, p, err)
	case st.IsDir():
		return nil, "", hfBadInput("%s file %s is a directory, not a file", name, p)
	case !st.Mode().IsRegular():
		// Reading a FIFO or a device could block forever or never end.
		return nil, "", hfBadInput("%s %s is not a regular file (a pipe or device) — give a file", name, p)
	case st.Size() > hfMaxUpload:
		return nil, "", hfBadInput("%s file %s is %s; Chorus sends at most %d MB to an inference server — trim or compress it first", name, p, humanFileSize(st.Size()), hfMaxUpload>>20)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, "", hfBadInput("cannot read %s file %s: %v", name, p, err)
	}
	if len(data) == 0 {
		return nil, "", hfBadInput("%s file %s is empty", name, p)
	}
	mt := hfMediaType(p, data)
	if want := name + "/"; (name == "image" || name == "audio" || name == "video") && mt != "application/octet-stream" &&
		!strings.HasPrefix(mt, want) && !(name == "audio" && mt == "video/webm") {
		return nil, "", hfBadInput("%s file %s is %s, not %s", name, p, mt, strings.TrimSuffix(want, "/"))
	}
	return data, mt, nil
}

// hfMaxUpload bounds a media file read into memory for one request; like
// hfMaxResponse, more is refused rather than held.
const hfMaxUpload = 512 << 20

// hfExtTypes covers media extensions the system MIME table may lack.
var hfExtTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".bmp": "image/bmp", ".tif": "image/tiff", ".tiff": "image/tiff",
	".wav": "audio/wav", ".flac": "audio/flac", ".mp3": "audio/mpeg", ".ogg": "audio/ogg",
	".oga": "audio/ogg", ".m4a": "audio/mp4", ".opus": "audio/ogg",
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime", ".avi": "video/x-msvideo",
	".mkv": "video/x-matroska",
}

// hfMediaType names the type of a media file: the content sniffed when it is
// recognisable, else the extension's type.
func hfMediaType(path string, data []byte) string {
	if mt := hfSniff(data); mt != "" {
		return mt
	}
	if mt, ok := hfExtTypes[strings.ToLower(filepath.Ext(path))]; ok {
		return mt
	}
	if mt, _, _ := mime.ParseMediaType(http.DetectContentType(data)); strings.HasPrefix(mt, "text/") {
		return mt
	}
	return "application/octet-stream"
}

// hfSniff returns the media type of data when the content says it, "" when
// the content is not recognisable media.
func hfSniff(data []byte) string {
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	switch mt {
	case "", "application/octet-stream", "text/plain":
		return ""
	case "audio/wave", "audio/x-wav":
		return "audio/wav"
	}
	return mt
}

func hfBase64(data []byte) string { return base64.StdEncoding.EncodeToString(data) }

// hfList splits a list argument on sep, dropping empty items.
func hfList(s, sep string) []string {
	var out []string
	for _, item := range strings.Split(s, sep) {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// hfNumbers parses "x,y" or "x1,y1,x2,y2" with exactly n numbers.
func hfNumbers(task, name, s string, n int) ([]float64, error) {
	parts := hfList(s, ",")
	if len(parts) != n {
		return nil, hfBadInput("%s argument %s=%q needs %d comma-separated numbers", task, name, s, n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, hfBadInput("%s argument %s=%q: %q is not a number", task, name, s, p)
		}
		out[i] = f
	}
	return out, nil
}

// buildHFRequest builds the Inference API request for task from the
// planner's arguments. Media arguments are local file paths.
func buildHFRequest(task, model string, args map[string]string) (hfRequest, error) {
	if !HFTaskSupported(task) {
		return hfRequest{}, hfUnsupported(task)
	}
	text := func() (string, error) { return hfArg(task, args, "text") }
	switch task {
	case "text-classification", "token-classification", "text2text-generation", "summarization",
		"text-generation", "text-to-image", "text-to-speech", "text-to-video":
		t, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		return hfJSONRequest("", map[string]any{"inputs": t}), nil

	case "translation":
		t, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		body := map[string]any{"inputs": t}
		params := map[string]any{}
		for _, k := range []string{"src_lang", "tgt_lang"} {
			if v := strings.TrimSpace(args[k]); v != "" {
				params[k] = v
			}
		}
		if len(params) > 0 {
			body["parameters"] = params
		}
		return hfJSONRequest("", body), nil

	case "question-answering":
		q, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		c, err := hfArg(task, args, "context")
		if err != nil {
			return hfRequest{}, err
		}
		return hfJSONRequest("", map[string]any{"inputs": map[string]string{"question": q, "context": c}}), nil

	case "conversational", "social-media-post":
		// hf-inference serves chat through the OpenAI-compatible route; a
		// social-media post is a chat turn with the copywriter's brief.
		t, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		var msgs []map[string]string
		if task == "social-media-post" {
			msgs = append(msgs, map[string]string{"role": "system", "content": socialPostSystem})
		}
		msgs = append(msgs, map[string]string{"role": "user", "content": t})
		return hfJSONRequest("/v1/chat/completions", map[string]any{"model": model, "messages": msgs}), nil

	case "sentence-similarity":
		t, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		s, err := hfArg(task, args, "sentences")
		if err != nil {
			return hfRequest{}, err
		}
		// Sentence-transformers models answer feature-extraction on their
		// bare route; the pipeline route selects similarity.
		return hfJSONRequest("/pipeline/sentence-similarity", map[string]any{
			"inputs": map[string]any{"source_sentence": t, "sentences": hfList(s, "\n")},
		}), nil

	case "tabular-classification":
		t, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		table, err := hfTable(t)
		if err != nil {
			return hfRequest{}, err
		}
		return hfJSONRequest("", map[string]any{"inputs": map[string]any{"data": table}}), nil

	case "image-classification", "object-detection", "image-to-text", "depth-estimation", "ocr":
		// OCR models (TrOCR, Donut) are image-to-text pipelines on the Hub.
		return hfRawMedia(task, args, "image")
	case "automatic-speech-recognition", "audio-classification", "audio-to-audio":
		return hfRawMedia(task, args, "audio")
	case "video-classification":
		return hfRawMedia(task, args, "video")

	case "image-segmentation":
		img, _, err := hfMedia(task, args, "image")
		if err != nil {
			return hfRequest{}, err
		}
		return hfJSONRequest("", map[string]any{"inputs": hfBase64(img)}), nil

	case "image-to-image", "image-editing":
		img, mt, err := hfMedia(task, args, "image")
		if err != nil {
			return hfRequest{}, err
		}
		prompt := strings.TrimSpace(args["text"])
		if prompt == "" {
			if task == "image-editing" {
				return hfRequest{}, hfBadInput("image-editing needs a \"text\" argument (the edit instruction)")
			}
			return hfRequest{ContentType: mt, Body: img}, nil
		}
		return hfJSONRequest("", map[string]any{"inputs": hfBase64(img), "parameters": map[string]any{"prompt": prompt}}), nil

	case "zero-shot-image-classification", "zero-shot-object-detection":
		img, _, err := hfMedia(task, args, "image")
		if err != nil {
			return hfRequest{}, err
		}
		labels := hfList(args["labels"], ",")
		if len(labels) == 0 {
			return hfRequest{}, hfBadInput("%s needs a \"labels\" argument (comma-separated candidate labels)", task)
		}
		return hfJSONRequest("", map[string]any{"inputs": hfBase64(img), "parameters": map[string]any{"candidate_labels": labels}}), nil

	case "visual-question-answering", "document-question-answering":
		img, _, err := hfMedia(task, args, "image")
		if err != nil {
			return hfRequest{}, err
		}
		q, err := text()
		if err != nil {
			return hfRequest{}, err
		}
		return hfJSONRequest("", map[string]any{"inputs": map[string]string{"image": hfBase64(img), "question": q}}), nil

	case "mask-generation":
		img, mt, err := hfMedia(task, args, "image")
		if err != nil {
			return hfRequest{}, err
		}
		params := map[string]any{}
		if p := strings.TrimSpace(args["point"]); p != "" {
			xy, err := hfNumbers(task, "point", p, 2)
			if err != nil {
				return hfRequest{}, err
			}
			params["input_points"] = [][][]float64{{xy}}
		}
		if b := strings.TrimSpace(args["box"]); b != "" {
			box, err := hfNumbers(task, "box", b, 4)
			if err != nil {
				return hfRequest{}, err
			}
			params["input_boxes"] = [][]float64{box}
		}
		if len(params) == 0 {
			return hfRequest{ContentType: mt, Body: img}, nil
		}
		// SAM's processor names for visual prompts.
		return hfJSONRequest("", map[string]any{"inputs": hfBase64(img), "parameters": params}), nil
	}
	return hfRequest{}, hfUnsupported(task)
}

func hfRawMedia(task string, args map[string]string, name string) (hfRequest, error) {
	data, mt, err := hfMedia(task, args, name)
	if err != nil {
		return hfRequest{}, err
	}
	return hfRequest{ContentType: mt, Body: data}, nil
}

// hfTable turns a table written as CSV (a header row, then rows) or JSON (an
// object of columns, or a list of row objects) into the column map
// tabular models take: {"column": ["value", …]}.
func hfTable(text string) (map[string][]string, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return hfTableJSON(t)
	}
	r := csv.NewReader(strings.NewReader(t))
	r.TrimLeadingSpace = true
	rows, err := r.ReadAll()
	if err != nil {
		return nil, hfBadInput("tabular-classification: the table is not valid CSV: %v", err)
	}
	if len(rows) < 2 {
		return nil, hfBadInput("tabular-classification: the table needs a header row and at least one data row")
	}
	out := map[string][]string{}
	for _, row := range rows[1:] {
		for i, col := range rows[0] {
			out[col] = append(out[col], row[i])
		}
	}
	return out, nil
}

func hfTableJSON(t string) (map[string][]string, error) {
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, hfBadInput("tabular-classification: the table is not valid JSON: %v", err)
	}
	cell := func(x any) string {
		switch x := x.(type) {
		case string:
			return x
		case nil:
			return ""
		default:
			return fmt.Sprint(x)
		}
	}
	out := map[string][]string{}
	switch v := v.(type) {
	case map[string]any:
		if data, ok := v["data"].(map[string]any); ok && len(v) == 1 {
			v = data
		}
		n := -1
		for col, vals := range v {
			list, ok := vals.([]any)
			if !ok {
				list = []any{vals}
			}
			if n >= 0 && len(list) != n {
				return nil, hfBadInput("tabular-classification: column %q has %d values, others have %d", col, len(list), n)
			}
			n = len(list)
			for _, x := range list {
				out[col] = append(out[col], cell(x))
			}
		}
	case []any:
		var cols []string
		for i, row := range v {
			obj, ok := row.(map[string]any)
			if !ok {
				return nil, hfBadInput("tabular-classification: row %d is not an object of column values", i+1)
			}
			if i == 0 {
				for col := range obj {
					cols = append(cols, col)
				}
			}
			for _, col := range cols {
				out[col] = append(out[col], cell(obj[col]))
			}
		}
	}
	if len(out) == 0 {
		return nil, hfBadInput("tabular-classification: the table is empty")
	}
	return out, nil
}

// hfBinaryOutput reports whether task may answer with a file body.
func hfBinaryOutput(task string) bool {
	switch task {
	case "text-to-image", "image-to-image", "image-editing", "text-to-speech", "text-to-video", "depth-estimation":
		return true
	}
	return false
}

// parseHFResponse maps a successful answer onto a Result: the JSON in Data,
// a readable Text, and produced files as Blobs. Base64 files inside JSON
// become Blobs too. Segmentation and mask-generation keep their masks in
// Data as well (in order with Blobs), since Annotate overlays them with
// their labels from there; depth-estimation and audio-to-audio replace the
// bulky tensor and audio in Data by an index into Blobs ("depth_blob": 0,
// "blob_index": 0).
func parseHFResponse(task string, args map[string]string, contentType string, body []byte) (Result, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	isJSON := mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		((mt == "" || mt == "text/plain") && len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed))
	if !isJSON {
		if !hfBinaryOutput(task) {
			return Result{}, fmt.Errorf("%s answered %s (%d bytes) where JSON was expected", task, hfOr(mt, "no content type"), len(body))
		}
		if len(body) == 0 {
			return Result{}, fmt.Errorf("%s answered an empty body", task)
		}
		return Result{Blobs: []Blob{{MIME: hfBlobMIME(mt, body), Data: body}}}, nil
	}
	if !json.Valid(trimmed) {
		return Result{}, fmt.Errorf("%s answered invalid JSON", task)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, trimmed)
	data := json.RawMessage(compact.Bytes())
	if msg := hfErrorOnly(data); msg != "" {
		return Result{}, fmt.Errorf("%s", msg)
	}
	res, err := hfRender(task, args, data)
	if err != nil {
		return Result{}, fmt.Errorf("%s answered an unexpected shape (%v): %s", task, err, hfSnippet(data))
	}
	if res.Data == nil {
		res.Data = data
	}
	return res, nil
}

func hfOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// hfSnippet shortens a body for error messages.
func hfSnippet(b []byte) string {
	const n = 200
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// hfErrorOnly returns the message of an {"error": …} body that carries no
// result, which some servers send with HTTP 200.
func hfErrorOnly(data []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return ""
	}
	raw, ok := obj["error"]
	if !ok || string(raw) == "null" {
		return ""
	}
	for _, k := range []string{"generated_text", "text", "answer", "choices", "depth", "predicted_depth", "data"} {
		if _, has := obj[k]; has {
			return ""
		}
	}
	return hfMessage(data)
}

// hfBlobMIME is the type of a returned file: the Content-Type when it is
// specific, else what the bytes look like.
func hfBlobMIME(mt string, data []byte) string {
	switch mt {
	case "", "application/octet-stream", "binary/octet-stream":
		if s := hfSniff(data); s != "" {
			return s
		}
		return "application/octet-stream"
	case "audio/wave", "audio/x-wav":
		return "audio/wav"
	}
	return mt
}

// hfDecodeFile decodes a base64 file (optionally a data: URL) into a Blob.
func hfDecodeFile(s, mt string) (Blob, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, payload, found := strings.Cut(rest, ",")
		if !found {
			return Blob{}, fmt.Errorf("malformed data URL")
		}
		mt, _, _ = mime.ParseMediaType(strings.TrimSuffix(meta, ";base64"))
		s = payload
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(s); err != nil {
			return Blob{}, fmt.Errorf("file is not valid base64: %v", err)
		}
	}
	if len(data) == 0 {
		return Blob{}, fmt.Errorf("empty file")
	}
	return Blob{MIME: hfBlobMIME(mt, data), Data: data}, nil
}

// hfLabel is a classification answer.
type hfLabel struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// hfLabels reads [{label, score}], [[{label, score}]] or the legacy
// zero-shot {labels: [], scores: []}.
func hfLabels(data []byte) ([]hfLabel, error) {
	var flat []hfLabel
	if err := json.Unmarshal(data, &flat); err == nil {
		return flat, hfCheckLabels(flat)
	}
	var nested [][]hfLabel
	if err := json.Unmarshal(data, &nested); err == nil && len(nested) > 0 {
		return nested[0], hfCheckLabels(nested[0])
	}
	var legacy struct {
		Labels []string  `json:"labels"`
		Scores []float64 `json:"scores"`
	}
	if err := json.Unmarshal(data, &legacy); err == nil && len(legacy.Labels) == len(legacy.Scores) && len(legacy.Labels) > 0 {
		out := make([]hfLabel, len(legacy.Labels))
		for i := range out {
			out[i] = hfLabel{legacy.Labels[i], legacy.Scores[i]}
		}
		return out, nil
	}
	return nil, errors.New("want a list of {label, score}")
}

func hfCheckLabels(ls []hfLabel) error {
	for _, l := range ls {
		if l.Label == "" {
			return errors.New("a label is empty")
		}
	}
	return nil
}

// hfTopLabels renders the best labels: "tabby cat (0.93), tiger cat (0.05)".
func hfTopLabels(ls []hfLabel, n int) string {
	ls = slices.Clone(ls)
	slices.SortStableFunc(ls, func(a, b hfLabel) int { return cmp.Compare(b.Score, a.Score) })
	if len(ls) > n {
		ls = ls[:n]
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s (%.2f)", l.Label, l.Score)
	}
	if len(parts) == 0 {
		return "no labels"
	}
	return strings.Join(parts, ", ")
}

// hfDetection is an object-detection answer.
type hfDetection struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
	Box   *struct {
		XMin float64 `json:"xmin"`
		YMin float64 `json:"ymin"`
		XMax float64 `json:"xmax"`
		YMax float64 `json:"ymax"`
	} `json:"box"`
}

// hfRenderDetections renders "2 objects: cat (0.98) at [0,0,32,48], …".
func hfRenderDetections(data []byte) (string, error) {
	var ds []hfDetection
	if err := json.Unmarshal(data, &ds); err != nil {
		return "", errors.New("want a list of {label, score, box}")
	}
	if len(ds) == 0 {
		return "no objects found", nil
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		if d.Box == nil || d.Label == "" {
			return "", errors.New("a detection lacks its label or box")
		}
		parts[i] = fmt.Sprintf("%s (%.2f) at [%d,%d,%d,%d]", d.Label, d.Score,
			int(math.Round(d.Box.XMin)), int(math.Round(d.Box.YMin)), int(math.Round(d.Box.XMax)), int(math.Round(d.Box.YMax)))
	}
	noun := "objects"
	if len(ds) == 1 {
		noun = "object"
	}
	return fmt.Sprintf("%d %s: %s", len(ds), noun, strings.Join(parts, ", ")), nil
}

// hfFirstField reads field from an object or from the first object of a list.
func hfFirstField(data []byte, field string) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		var list []map[string]json.RawMessage
		if json.Unmarshal(data, &list) != nil || len(list) == 0 {
			return "", false
		}
		obj = list[0]
	}
	var s string
	if raw, ok := obj[field]; !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// hfRenderAnswer renders a QA answer, "Paris (0.98)".
func hfRenderAnswer(data []byte) (string, error) {
	type ans struct {
		Answer *string  `json:"answer"`
		Score  *float64 `json:"score"`
	}
	var a ans
	if json.Unmarshal(data, &a) != nil || a.Answer == nil {
		var list []ans
		if json.Unmarshal(data, &list) != nil || len(list) == 0 || list[0].Answer == nil {
			return "", errors.New("want {answer, score}")
		}
		a = list[0]
	}
	if a.Score == nil {
		return *a.Answer, nil
	}
	return fmt.Sprintf("%s (%.2f)", *a.Answer, *a.Score), nil
}

// hfRender dispatches on task.
func hfRender(task string, args map[string]string, data json.RawMessage) (Result, error) {
	switch task {
	case "text-classification", "image-classification", "audio-classification", "video-classification",
		"zero-shot-image-classification":
		ls, err := hfLabels(data)
		if err != nil {
			return Result{}, err
		}
		return Result{Text: hfTopLabels(ls, 5)}, nil

	case "object-detection", "zero-shot-object-detection":
		text, err := hfRenderDetections(data)
		return Result{Text: text}, err

	case "image-segmentation", "mask-generation":
		return hfRenderMasks(data)

	case "token-classification":
		return hfRenderEntities(data)

	case "image-to-text", "ocr", "text-generation", "text2text-generation":
		if s, ok := hfFirstField(data, "generated_text"); ok {
			return Result{Text: s}, nil
		}
		if s, ok := hfCompletionText(data); ok {
			return Result{Text: s}, nil
		}
		return Result{}, errors.New("want [{generated_text}]")

	case "summarization":
		if s, ok := hfFirstField(data, "summary_text"); ok {
			return Result{Text: s}, nil
		}
		return Result{}, errors.New("want [{summary_text}]")

	case "translation":
		if s, ok := hfFirstField(data, "translation_text"); ok {
			return Result{Text: s}, nil
		}
		return Result{}, errors.New("want [{translation_text}]")

	case "conversational", "social-media-post":
		if s, ok := hfCompletionText(data); ok {
			return Result{Text: s}, nil
		}
		if s, ok := hfFirstField(data, "generated_text"); ok {
			return Result{Text: s}, nil
		}
		return Result{}, errors.New("want a chat completion {choices: [{message: {content}}]}")

	case "automatic-speech-recognition":
		if s, ok := hfFirstField(data, "text"); ok {
			return Result{Text: strings.TrimSpace(s)}, nil
		}
		return Result{}, errors.New("want {text}")

	case "question-answering", "visual-question-answering", "document-question-answering":
		text, err := hfRenderAnswer(data)
		return Result{Text: text}, err

	case "sentence-similarity":
		var scores []float64
		if err := json.Unmarshal(data, &scores); err != nil {
			return Result{}, errors.New("want a list of numbers")
		}
		sentences := hfList(args["sentences"], "\n")
		lines := make([]string, len(scores))
		for i, s := range scores {
			what := fmt.Sprintf("sentence %d", i+1)
			if i < len(sentences) {
				what = strconv.Quote(sentences[i])
			}
			lines[i] = fmt.Sprintf("%s: %.2f", what, s)
		}
		return Result{Text: strings.Join(lines, "\n")}, nil

	case "tabular-classification":
		var preds []json.RawMessage
		if err := json.Unmarshal(data, &preds); err != nil {
			return Result{}, errors.New("want a list of predictions")
		}
		parts := make([]string, len(preds))
		for i, p := range preds {
			v := string(p)
			var s string
			if json.Unmarshal(p, &s) == nil {
				v = s
			}
			parts[i] = fmt.Sprintf("row %d: %s", i+1, v)
		}
		return Result{Text: strings.Join(parts, ", ")}, nil

	case "audio-to-audio":
		return hfRenderAudios(data)

	case "depth-estimation":
		return hfRenderDepth(data)

	case "text-to-image", "image-to-image", "image-editing":
		// Some deployments answer {"data": [{"b64_json": …}]}.
		var out struct {
			Data []struct {
				B64 string `json:"b64_json"`
			} `json:"data"`
		}
		if json.Unmarshal(data, &out) == nil && len(out.Data) > 0 && out.Data[0].B64 != "" {
			b, err := hfDecodeFile(out.Data[0].B64, "")
			if err != nil {
				return Result{}, err
			}
			return Result{Blobs: []Blob{b}, Data: json.RawMessage(`{"image_blob":0}`)}, nil
		}
		return Result{}, errors.New("want an image body")

	case "text-to-speech", "text-to-video":
		return Result{}, errors.New("want a media body")
	}
	return Result{}, hfUnsupported(task)
}

// hfCompletionText reads an OpenAI-style (chat) completion.
func hfCompletionText(data []byte) (string, bool) {
	var c struct {
		Choices []struct {
			Text    *string `json:"text"`
			Message *struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &c) != nil || len(c.Choices) == 0 {
		return "", false
	}
	switch ch := c.Choices[0]; {
	case ch.Message != nil:
		return ch.Message.Content, true
	case ch.Text != nil:
		return *ch.Text, true
	}
	return "", false
}

// hfRenderMasks decodes segmentation masks into Blobs, one per segment in
// order; Data stays the server's JSON.
func hfRenderMasks(data []byte) (Result, error) {
	var segs []map[string]any
	if err := json.Unmarshal(data, &segs); err != nil {
		return Result{}, errors.New("want a list of {label, score, mask}")
	}
	var res Result
	var parts []string
	for i, s := range segs {
		m, ok := s["mask"].(string)
		if !ok || m == "" {
			return Result{}, fmt.Errorf("segment %d has no mask", i+1)
		}
		b, err := hfDecodeFile(m, "image/png")
		if err != nil {
			return Result{}, fmt.Errorf("segment %d: %v", i+1, err)
		}
		res.Blobs = append(res.Blobs, b)
		name, _ := s["label"].(string)
		if name == "" {
			name = fmt.Sprintf("mask %d", i+1)
		}
		if score, ok := s["score"].(float64); ok {
			name = fmt.Sprintf("%s (%.2f)", name, score)
		}
		parts = append(parts, name)
	}
	noun := "segments"
	if len(segs) == 1 {
		noun = "segment"
	}
	res.Text = fmt.Sprintf("%d %s: %s", len(segs), noun, strings.Join(parts, ", "))
	if len(segs) == 0 {
		res.Text = "no segments found"
	}
	return res, nil
}

// hfRenderEntities renders token classification, "Sarah (PER 0.99)".
func hfRenderEntities(data []byte) (Result, error) {
	var ents []struct {
		Group  string  `json:"entity_group"`
		Entity string  `json:"entity"`
		Word   string  `json:"word"`
		Score  float64 `json:"score"`
	}
	if err := json.Unmarshal(data, &ents); err != nil {
		return Result{}, errors.New("want a list of {entity_group, word, score}")
	}
	if len(ents) == 0 {
		return Result{Text: "no entities found"}, nil
	}
	parts := make([]string, len(ents))
	for i, e := range ents {
		kind := hfOr(e.Group, e.Entity)
		parts[i] = fmt.Sprintf("%s (%s %.2f)", strings.TrimSpace(e.Word), kind, e.Score)
	}
	return Result{Text: strings.Join(parts, ", ")}, nil
}

// hfRenderAudios decodes audio-to-audio outputs into Blobs.
func hfRenderAudios(data []byte) (Result, error) {
	var outs []map[string]any
	if err := json.Unmarshal(data, &outs); err != nil || len(outs) == 0 {
		return Result{}, errors.New("want a list of {label, blob, content-type}")
	}
	var res Result
	var labels []string
	for i, o := range outs {
		s, _ := o["blob"].(string)
		if s == "" {
			return Result{}, fmt.Errorf("output %d has no blob", i+1)
		}
		ct, _ := o["content-type"].(string)
		b, err := hfDecodeFile(s, ct)
		if err != nil {
			return Result{}, fmt.Errorf("output %d: %v", i+1, err)
		}
		delete(o, "blob")
		o["blob_index"] = len(res.Blobs)
		res.Blobs = append(res.Blobs, b)
		if l, _ := o["label"].(string); l != "" {
			labels = append(labels, l)
		}
	}
	res.Text = fmt.Sprintf("%d audio file(s): %s", len(outs), strings.Join(labels, ", "))
	res.Data = hfJSON(outs)
	return res, nil
}

// hfRenderDepth reads {"depth": base64 image, "predicted_depth": tensor}.
// When only the tensor is there, it is rendered as a grayscale PNG (near is
// bright), so a depth map always comes back as an image.
func hfRenderDepth(data []byte) (Result, error) {
	var out struct {
		Depth     string          `json:"depth"`
		Predicted json.RawMessage `json:"predicted_depth"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return Result{}, errors.New("want {depth, predicted_depth}")
	}
	var b Blob
	switch {
	case out.Depth != "":
		var err error
		if b, err = hfDecodeFile(out.Depth, "image/png"); err != nil {
			return Result{}, fmt.Errorf("depth: %v", err)
		}
	case len(out.Predicted) > 0:
		img, err := hfDepthImage(out.Predicted)
		if err != nil {
			return Result{}, err
		}
		b = Blob{MIME: "image/png", Data: img}
	default:
		return Result{}, errors.New("neither depth nor predicted_depth")
	}
	return Result{Blobs: []Blob{b}, Data: json.RawMessage(`{"depth_blob":0}`)}, nil
}

// hfDepthImage renders a 2-D (or 1×H×W) depth tensor as a grayscale PNG.
func hfDepthImage(raw json.RawMessage) ([]byte, error) {
	var grid [][]float64
	if json.Unmarshal(raw, &grid) != nil {
		var cube [][][]float64
		if json.Unmarshal(raw, &cube) != nil || len(cube) == 0 {
			return nil, errors.New("predicted_depth is not a 2-D tensor")
		}
		grid = cube[0]
	}
	if len(grid) == 0 || len(grid[0]) == 0 {
		return nil, errors.New("predicted_depth is empty")
	}
	// A short body can still claim a huge image ([[0,…70000 zeros], [], [],
	// …]); allocating it would end the program, so the size is checked
	// like any image's.
	if err := imaging.CheckSize(len(grid[0]), len(grid)); err != nil {
		return nil, fmt.Errorf("predicted_depth: %w", err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range grid {
		for _, v := range row {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	w, h := len(grid[0]), len(grid)
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y, row := range grid {
		for x := 0; x < w && x < len(row); x++ {
			v := 0.0
			if hi > lo {
				v = (row[x] - lo) / (hi - lo)
			}
			img.SetGray(x, y, color.Gray{Y: uint8(math.Round(v * 255))})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// hfMessage extracts the error message of an error body: {"error": "…"},
// {"error": ["…"]}, {"error": {"message": "…"}}, {"detail": …} or
// {"message": …}; plain text is used as it is, HTML is dropped.
func hfMessage(body []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"error", "detail", "message"} {
			raw, ok := obj[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				return s
			}
			var list []string
			if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
				return strings.Join(list, "; ")
			}
			var nested struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(raw, &nested) == nil && nested.Message != "" {
				return nested.Message
			}
		}
		return ""
	}
	s := strings.TrimSpace(string(body))
	if strings.HasPrefix(s, "<") {
		return ""
	}
	return hfSnippet([]byte(s))
}
