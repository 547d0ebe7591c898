package hfapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/skills"
)

// The answer readers of the task table, by the shape they read.

// readLabels reads a classification: the best five labels as text.
func readLabels(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	ls, err := parseLabels(data)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{Text: topLabels(ls, 5)}, nil
}

// readDetections reads [{label, score, box}].
func readDetections(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	text, err := RenderDetections(data)
	return endpoints.Result{Text: text}, err
}

// readGeneratedText reads [{generated_text}], or a completion.
func readGeneratedText(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	if s, ok := firstField(data, "generated_text"); ok {
		return endpoints.Result{Text: s}, nil
	}
	if s, ok := completionText(data); ok {
		return endpoints.Result{Text: s}, nil
	}
	return endpoints.Result{}, errors.New("want [{generated_text}]")
}

// readSummary reads [{summary_text}].
func readSummary(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	if s, ok := firstField(data, "summary_text"); ok {
		return endpoints.Result{Text: s}, nil
	}
	return endpoints.Result{}, errors.New("want [{summary_text}]")
}

// readTranslation reads [{translation_text}].
func readTranslation(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	if s, ok := firstField(data, "translation_text"); ok {
		return endpoints.Result{Text: s}, nil
	}
	return endpoints.Result{}, errors.New("want [{translation_text}]")
}

// readChat reads a chat completion, or [{generated_text}].
func readChat(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	if s, ok := completionText(data); ok {
		return endpoints.Result{Text: s}, nil
	}
	if s, ok := firstField(data, "generated_text"); ok {
		return endpoints.Result{Text: s}, nil
	}
	return endpoints.Result{}, errors.New("want a chat completion {choices: [{message: {content}}]}")
}

// readTranscript reads {text}.
func readTranscript(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	if s, ok := firstField(data, "text"); ok {
		return endpoints.Result{Text: strings.TrimSpace(s)}, nil
	}
	return endpoints.Result{}, errors.New("want {text}")
}

// readAnswer reads a question answer, {answer, score}.
func readAnswer(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	text, err := RenderAnswer(data)
	return endpoints.Result{Text: text}, err
}

// readSimilarity reads a score per sentence and names each sentence.
func readSimilarity(args map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	var scores []float64
	if err := json.Unmarshal(data, &scores); err != nil {
		return endpoints.Result{}, errors.New("want a list of numbers")
	}
	sentences := splitList(args["sentences"], "\n")
	lines := make([]string, len(scores))
	for i, s := range scores {
		what := fmt.Sprintf("sentence %d", i+1)
		if i < len(sentences) {
			what = strconv.Quote(sentences[i])
		}
		lines[i] = fmt.Sprintf("%s: %.2f", what, s)
	}
	return endpoints.Result{Text: strings.Join(lines, "\n")}, nil
}

// readTabular reads a prediction per row.
func readTabular(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	var preds []json.RawMessage
	if err := json.Unmarshal(data, &preds); err != nil {
		return endpoints.Result{}, errors.New("want a list of predictions")
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
	return endpoints.Result{Text: strings.Join(parts, ", ")}, nil
}

// readImages reads a generated image that came as JSON: some deployments
// answer {"data": [{"b64_json": …}]} instead of the image body.
func readImages(_ map[string]string, data json.RawMessage, spool endpoints.Spool) (endpoints.Result, error) {
	var out struct {
		Data []struct {
			B64 rawToken `json:"b64_json"`
		} `json:"data"`
	}
	if json.Unmarshal(data, &out) == nil && len(out.Data) > 0 && !out.Data[0].B64.empty() {
		b, err := decodeFile(out.Data[0].B64, "", spool)
		if err != nil {
			return endpoints.Result{}, err
		}
		return endpoints.Result{Blobs: []endpoints.Blob{b}, Data: json.RawMessage(`{"image_blob":0}`)}, nil
	}
	return endpoints.Result{}, errors.New("want an image body")
}

// readMediaBody refuses JSON for tasks whose answer is only ever a media
// body (speech, video).
func readMediaBody(map[string]string, json.RawMessage, endpoints.Spool) (endpoints.Result, error) {
	return endpoints.Result{}, errors.New("want a media body")
}

// BlobMIME is the type of a returned file: the Content-Type when it is
// specific, else what the bytes look like.
func BlobMIME(mt string, data []byte) string {
	switch mt {
	case "", "application/octet-stream", "binary/octet-stream":
		if s, m := skills.Sniff(data); m.Media() || m == skills.Text && s != "text/plain" {
			return s
		}
		return "application/octet-stream"
	}
	return skills.CanonicalMIME(mt)
}

// decodeFile decodes the JSON string token of an inline file (DecodeFile)
// without copying it out of the answer unless it holds escapes. A field
// that is not a string, or not a file, is an error.
func decodeFile(raw rawToken, mt string, spool endpoints.Spool) (endpoints.Blob, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return endpoints.Blob{}, fmt.Errorf("file is not a base64 string")
	}
	payload := []byte(raw[1 : len(raw)-1])
	if bytes.IndexByte(payload, '\\') >= 0 {
		// Escapes ("\/", "\n") are rare in base64; only then is the
		// string copied out to undo them.
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return endpoints.Blob{}, fmt.Errorf("file is not a valid JSON string: %w", err)
		}
		payload = []byte(s)
	}
	return DecodeFile(payload, mt, spool)
}

// labelScore is a classification answer.
type labelScore struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// parseLabels reads [{label, score}], [[{label, score}]] or the legacy
// zero-shot {labels: [], scores: []}.
func parseLabels(data []byte) ([]labelScore, error) {
	var flat []labelScore
	if err := json.Unmarshal(data, &flat); err == nil {
		return flat, checkLabels(flat)
	}
	var nested [][]labelScore
	if err := json.Unmarshal(data, &nested); err == nil && len(nested) > 0 {
		return nested[0], checkLabels(nested[0])
	}
	var legacy struct {
		Labels []string  `json:"labels"`
		Scores []float64 `json:"scores"`
	}
	if err := json.Unmarshal(data, &legacy); err == nil && len(legacy.Labels) == len(legacy.Scores) && len(legacy.Labels) > 0 {
		out := make([]labelScore, len(legacy.Labels))
		for i := range out {
			out[i] = labelScore{legacy.Labels[i], legacy.Scores[i]}
		}
		return out, nil
	}
	return nil, errors.New("want a list of {label, score}")
}

func checkLabels(ls []labelScore) error {
	for _, l := range ls {
		if l.Label == "" {
			return errors.New("a label is empty")
		}
	}
	return nil
}

// topLabels renders the best labels: "tabby cat (0.93), tiger cat (0.05)".
func topLabels(ls []labelScore, n int) string {
	ls = slices.Clone(ls)
	slices.SortStableFunc(ls, func(a, b labelScore) int { return cmp.Compare(b.Score, a.Score) })
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

// detectionJSON is an object-detection answer.
type detectionJSON struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
	Box   *struct {
		XMin float64 `json:"xmin"`
		YMin float64 `json:"ymin"`
		XMax float64 `json:"xmax"`
		YMax float64 `json:"ymax"`
	} `json:"box"`
}

// RenderDetections renders "2 objects: cat (0.98) at [0,0,32,48], …".
func RenderDetections(data []byte) (string, error) {
	var ds []detectionJSON
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

// firstField reads field from an object or from the first object of a list.
func firstField(data []byte, field string) (string, bool) {
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

// RenderAnswer renders a QA answer, "Paris (0.98)".
func RenderAnswer(data []byte) (string, error) {
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

// completionText reads an OpenAI-style (chat) completion.
func completionText(data []byte) (string, bool) {
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

// readMasks decodes segmentation masks into Blobs, one per segment in
// order; Data stays the server's JSON.
func readMasks(_ map[string]string, data json.RawMessage, spool endpoints.Spool) (res endpoints.Result, err error) {
	var segs []struct {
		Label string   `json:"label"`
		Score *float64 `json:"score"`
		Mask  rawToken `json:"mask"`
	}
	if err := json.Unmarshal(data, &segs); err != nil {
		return endpoints.Result{}, errors.New("want a list of {label, score, mask}")
	}
	defer func() {
		if err != nil {
			res.Discard()
			res = endpoints.Result{}
		}
	}()
	var parts []string
	for i, s := range segs {
		if s.Mask.empty() {
			return res, fmt.Errorf("segment %d has no mask", i+1)
		}
		b, err := decodeFile(s.Mask, "image/png", spool)
		if err != nil {
			return res, fmt.Errorf("segment %d: %w", i+1, err)
		}
		res.Blobs = append(res.Blobs, b)
		name := s.Label
		if name == "" {
			name = fmt.Sprintf("mask %d", i+1)
		}
		if s.Score != nil {
			name = fmt.Sprintf("%s (%.2f)", name, *s.Score)
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

// readEntities renders token classification, "Sarah (PER 0.99)".
func readEntities(_ map[string]string, data json.RawMessage, _ endpoints.Spool) (endpoints.Result, error) {
	var ents []struct {
		Group  string  `json:"entity_group"`
		Entity string  `json:"entity"`
		Word   string  `json:"word"`
		Score  float64 `json:"score"`
	}
	if err := json.Unmarshal(data, &ents); err != nil {
		return endpoints.Result{}, errors.New("want a list of {entity_group, word, score}")
	}
	if len(ents) == 0 {
		return endpoints.Result{Text: "no entities found"}, nil
	}
	parts := make([]string, len(ents))
	for i, e := range ents {
		kind := cmp.Or(e.Group, e.Entity)
		parts[i] = fmt.Sprintf("%s (%s %.2f)", strings.TrimSpace(e.Word), kind, e.Score)
	}
	return endpoints.Result{Text: strings.Join(parts, ", ")}, nil
}

// readAudios decodes audio-to-audio outputs into Blobs; Data keeps each
// output's other fields, with blob_index in place of the audio.
func readAudios(_ map[string]string, data json.RawMessage, spool endpoints.Spool) (res endpoints.Result, err error) {
	var outs []map[string]rawToken
	if err := json.Unmarshal(data, &outs); err != nil || len(outs) == 0 {
		return endpoints.Result{}, errors.New("want a list of {label, blob, content-type}")
	}
	defer func() {
		if err != nil {
			res.Discard()
			res = endpoints.Result{}
		}
	}()
	var labels []string
	meta := make([]map[string]any, len(outs))
	for i, o := range outs {
		blob := o["blob"]
		if blob.empty() {
			return res, fmt.Errorf("output %d has no blob", i+1)
		}
		var ct string
		_ = json.Unmarshal(o["content-type"], &ct)
		b, err := decodeFile(blob, ct, spool)
		if err != nil {
			return res, fmt.Errorf("output %d: %w", i+1, err)
		}
		meta[i] = map[string]any{"blob_index": len(res.Blobs)}
		for k, v := range o {
			if k != "blob" {
				meta[i][k] = json.RawMessage(v)
			}
		}
		res.Blobs = append(res.Blobs, b)
		var l string
		if json.Unmarshal(o["label"], &l) == nil && l != "" {
			labels = append(labels, l)
		}
	}
	res.Text = fmt.Sprintf("%d audio file(s): %s", len(outs), strings.Join(labels, ", "))
	res.Data = EncodeJSON(meta)
	return res, nil
}

// readDepth reads {"depth": base64 image, "predicted_depth": tensor}.
// When only the tensor is there, it is rendered as a grayscale PNG (near is
// bright), so a depth map always comes back as an image.
func readDepth(_ map[string]string, data json.RawMessage, spool endpoints.Spool) (endpoints.Result, error) {
	var out struct {
		Depth     rawToken `json:"depth"`
		Predicted rawToken `json:"predicted_depth"` // the raw tensor, not base64
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return endpoints.Result{}, errors.New("want {depth, predicted_depth}")
	}
	var b endpoints.Blob
	switch {
	case !out.Depth.empty():
		var err error
		if b, err = decodeFile(out.Depth, "image/png", spool); err != nil {
			return endpoints.Result{}, fmt.Errorf("depth: %w", err)
		}
	case len(out.Predicted) > 0 && string(out.Predicted) != "null":
		img, err := depthImage(json.RawMessage(out.Predicted))
		if err != nil {
			return endpoints.Result{}, err
		}
		b = endpoints.Blob{MIME: "image/png", Data: img}
	default:
		return endpoints.Result{}, errors.New("neither depth nor predicted_depth")
	}
	return endpoints.Result{Blobs: []endpoints.Blob{b}, Data: json.RawMessage(`{"depth_blob":0}`)}, nil
}

// depthImage renders a 2-D (or 1×H×W) depth tensor as a grayscale PNG.
func depthImage(raw json.RawMessage) ([]byte, error) {
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
