package fakehf

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"net/http"
	"slices"
	"strings"
	"unicode"
)

// reply is an HTTP answer.
type reply struct {
	status      int
	contentType string
	body        []byte
}

func jsonReply(v any) reply {
	b, err := json.Marshal(v)
	if err != nil {
		return badRequest("internal: " + err.Error())
	}
	return reply{http.StatusOK, "application/json", b}
}

func badRequest(msg string) reply {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return reply{http.StatusBadRequest, "application/json", b}
}

func unprocessable(msg string) reply {
	b, _ := json.Marshal(map[string]string{"error": "Input validation error: " + msg})
	return reply{http.StatusUnprocessableEntity, "application/json", b}
}

// payload is a JSON request body in the Inference API's shape.
type payload struct {
	Inputs     json.RawMessage `json:"inputs"`
	Parameters map[string]any  `json:"parameters"`
}

func isJSON(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
}

func parsePayload(r *http.Request, body []byte) (payload, error) {
	var p payload
	if !isJSON(r) {
		return p, fmt.Errorf("expected a JSON body (Content-Type: application/json), got %q", r.Header.Get("Content-Type"))
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return p, fmt.Errorf("body is not valid JSON: %w", err)
	}
	if len(p.Inputs) == 0 || string(p.Inputs) == "null" {
		return p, fmt.Errorf("missing field `inputs`")
	}
	return p, nil
}

func textInput(r *http.Request, body []byte) (string, payload, error) {
	p, err := parsePayload(r, body)
	if err != nil {
		return "", p, err
	}
	var s string
	if err := json.Unmarshal(p.Inputs, &s); err != nil {
		return "", p, fmt.Errorf("`inputs` must be a string")
	}
	if strings.TrimSpace(s) == "" {
		return "", p, fmt.Errorf("`inputs` must not be empty")
	}
	return s, p, nil
}

// imageInput reads an image sent as raw bytes, or as JSON whose inputs is a
// base64 string (or {"image": base64}), as the Inference API accepts both.
func imageInput(r *http.Request, body []byte) (img []byte, p payload, err error) {
	if isJSON(r) {
		if p, err = parsePayload(r, body); err != nil {
			return nil, p, err
		}
		var s string
		if json.Unmarshal(p.Inputs, &s) != nil {
			var obj struct {
				Image string `json:"image"`
			}
			if json.Unmarshal(p.Inputs, &obj) != nil || obj.Image == "" {
				return nil, p, fmt.Errorf("`inputs` must be a base64-encoded image")
			}
			s = obj.Image
		}
		if img, err = base64.StdEncoding.DecodeString(s); err != nil {
			return nil, p, fmt.Errorf("`inputs` is not valid base64: %w", err)
		}
	} else {
		img = body
	}
	if len(img) == 0 {
		return nil, p, fmt.Errorf("empty image")
	}
	if _, _, err := ImageSize(img); err != nil {
		return nil, p, fmt.Errorf("cannot identify image file <_io.BytesIO object>")
	}
	return img, p, nil
}

func binaryInput(r *http.Request, body []byte, kind string) ([]byte, error) {
	if isJSON(r) {
		return nil, fmt.Errorf("expected raw %s bytes, got a JSON body", kind)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("empty %s", kind)
	}
	return body, nil
}

func labelsParam(p payload) ([]string, error) {
	raw, ok := p.Parameters["candidate_labels"].([]any)
	if !ok || len(raw) == 0 {
		return nil, fmt.Errorf("missing parameter `candidate_labels`")
	}
	var out []string
	for _, l := range raw {
		s, ok := l.(string)
		if !ok || s == "" {
			return nil, fmt.Errorf("`candidate_labels` must be a list of strings")
		}
		out = append(out, s)
	}
	return out, nil
}

type label struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

type box struct {
	XMin int `json:"xmin"`
	YMin int `json:"ymin"`
	XMax int `json:"xmax"`
	YMax int `json:"ymax"`
}

type detection struct {
	Score float64 `json:"score"`
	Label string  `json:"label"`
	Box   box     `json:"box"`
}

// rankedLabels gives labels decreasing scores that sum to about 1.
func rankedLabels(names []string) []label {
	out := make([]label, len(names))
	rest := 1.0
	for i, n := range names {
		s := rest * 0.7
		if i == len(names)-1 {
			s = rest
		}
		rest -= s
		out[i] = label{Label: n, Score: round3(s)}
	}
	return out
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// answer is the default, input-derived answer of a model registered for task.
func answer(task, model string, r *http.Request, body []byte) reply {
	route := ""
	if _, rt := splitRoute(strings.TrimPrefix(r.URL.Path, "/hf-inference/models/")); rt != "" {
		route = rt
	}
	switch route {
	case "/v1/chat/completions":
		return chatAnswer(model, r, body)
	case "/v1/completions":
		return completionAnswer(model, r, body)
	}
	switch task {
	case "image-classification", "object-detection", "image-to-text", "image-segmentation",
		"depth-estimation", "mask-generation", "image-to-image", "image-editing",
		"zero-shot-image-classification", "zero-shot-object-detection":
		return imageAnswer(task, r, body)
	case "visual-question-answering", "document-question-answering":
		return vqaAnswer(task, r, body)
	case "automatic-speech-recognition", "audio-classification", "audio-to-audio":
		return audioAnswer(task, r, body)
	case "video-classification":
		if _, err := binaryInput(r, body, "video"); err != nil {
			return badRequest(err.Error())
		}
		return jsonReply(rankedLabels([]string{"playing guitar", "singing", "dancing"}))
	case "question-answering":
		return qaAnswer(r, body)
	case "sentence-similarity":
		return similarityAnswer(r, body)
	case "tabular-classification":
		return tabularAnswer(r, body)
	case "conversational":
		return badRequest("conversational models are served through the chat completion route /v1/chat/completions")
	case "text-classification", "token-classification", "text2text-generation", "summarization",
		"translation", "text-generation", "text-to-image", "text-to-speech", "text-to-video":
		return textAnswer(task, r, body)
	}
	return badRequest(fmt.Sprintf("task %q is not supported by the fake", task))
}

func imageAnswer(task string, r *http.Request, body []byte) reply {
	img, p, err := imageInput(r, body)
	if err != nil {
		return badRequest(err.Error())
	}
	w, h, _ := ImageSize(img)
	switch task {
	case "image-classification":
		return jsonReply(rankedLabels([]string{"tabby, tabby cat", "Egyptian cat", "tiger cat", "remote control", "sofa"}))
	case "object-detection":
		return jsonReply([]detection{
			{Score: 0.998, Label: "cat", Box: box{0, 0, w / 2, h}},
			{Score: 0.871, Label: "remote", Box: box{w / 2, h / 2, w - 1, h - 1}},
		})
	case "image-to-text":
		return jsonReply([]map[string]string{{"generated_text": fmt.Sprintf("a %dx%d photo of a cat sitting on a sofa", w, h)}})
	case "image-segmentation":
		return jsonReply([]map[string]any{
			{"score": 0.994, "label": "cat", "mask": base64.StdEncoding.EncodeToString(maskPNG(w, h, image.Rect(0, 0, w/2, h)))},
			{"score": 0.951, "label": "couch", "mask": base64.StdEncoding.EncodeToString(maskPNG(w, h, image.Rect(w/2, 0, w, h)))},
		})
	case "mask-generation":
		region := image.Rect(0, 0, w/2, h/2)
		if pts, ok := p.Parameters["input_points"]; ok && pts != nil {
			region = image.Rect(0, 0, w, h/2)
		}
		// SAM's processor takes input_boxes as [[x0, y0, x1, y1]]: the
		// mask fills the box, so a test sees which box arrived.
		if bs, ok := p.Parameters["input_boxes"].([]any); ok && len(bs) == 1 {
			if b, ok := bs[0].([]any); ok && len(b) == 4 {
				var c [4]int
				for i, v := range b {
					f, _ := v.(float64)
					c[i] = int(f)
				}
				region = image.Rect(c[0], c[1], c[2], c[3]).Intersect(image.Rect(0, 0, w, h))
			}
		}
		return jsonReply([]map[string]any{{"score": 0.97, "label": "mask", "mask": base64.StdEncoding.EncodeToString(maskPNG(w, h, region))}})
	case "depth-estimation":
		return jsonReply(map[string]any{
			"predicted_depth": [][]float64{{1.5, 2.5}, {3.5, 4.5}},
			"depth":           base64.StdEncoding.EncodeToString(PNG(w, h)),
		})
	case "image-to-image", "image-editing":
		prompt, _ := p.Parameters["prompt"].(string)
		if task == "image-editing" && strings.TrimSpace(prompt) == "" {
			return badRequest("missing parameter `prompt`: an instruction-tuned editing model needs the edit instruction")
		}
		// The output keeps the input's size, like a diffusion img2img pass.
		return reply{http.StatusOK, "image/png", PNG(w, h)}
	case "zero-shot-image-classification":
		labels, err := labelsParam(p)
		if err != nil {
			return badRequest(err.Error())
		}
		return jsonReply(rankedLabels(labels))
	case "zero-shot-object-detection":
		labels, err := labelsParam(p)
		if err != nil {
			return badRequest(err.Error())
		}
		out := make([]detection, len(labels))
		for i, l := range labels {
			out[i] = detection{Score: round3(0.9 - 0.1*float64(i)), Label: l, Box: box{i, i, max(w-1-i, i), max(h-1-i, i)}}
		}
		return jsonReply(out)
	}
	return badRequest("unreachable")
}

func vqaAnswer(task string, r *http.Request, body []byte) reply {
	p, err := parsePayload(r, body)
	if err != nil {
		return badRequest(err.Error())
	}
	var in struct {
		Image    string `json:"image"`
		Question string `json:"question"`
	}
	if err := json.Unmarshal(p.Inputs, &in); err != nil || in.Image == "" || in.Question == "" {
		return badRequest("`inputs` must be an object with `image` (base64) and `question`")
	}
	img, err := base64.StdEncoding.DecodeString(in.Image)
	if err != nil {
		return badRequest("`inputs.image` is not valid base64")
	}
	w, h, err := ImageSize(img)
	if err != nil {
		return badRequest("cannot identify image file <_io.BytesIO object>")
	}
	if task == "document-question-answering" {
		return jsonReply([]map[string]any{{"answer": fmt.Sprintf("page %dx%d", w, h), "score": 0.87, "start": 3, "end": 4}})
	}
	return jsonReply([]label2{{Answer: fmt.Sprintf("a cat (%dx%d image)", w, h), Score: 0.93}, {Answer: "a dog", Score: 0.04}})
}

type label2 struct {
	Answer string  `json:"answer"`
	Score  float64 `json:"score"`
}

func audioAnswer(task string, r *http.Request, body []byte) reply {
	audio, err := binaryInput(r, body, "audio")
	if err != nil {
		return badRequest(err.Error())
	}
	switch task {
	case "automatic-speech-recognition":
		return jsonReply(map[string]string{"text": "hello from " + audioSummary(audio)})
	case "audio-classification":
		return jsonReply(rankedLabels([]string{"Speech", "Music", "Silence"}))
	}
	// audio-to-audio: an enhanced copy, as speechbrain models return.
	n, rate, err := WAVInfo(audio)
	if err != nil {
		n, rate = len(audio), 16000
	}
	return jsonReply([]map[string]string{{
		"label":        "speech_enhanced",
		"content-type": "audio/wav",
		"blob":         base64.StdEncoding.EncodeToString(WAV(n, rate)),
	}})
}

func qaAnswer(r *http.Request, body []byte) reply {
	p, err := parsePayload(r, body)
	if err != nil {
		return badRequest(err.Error())
	}
	var in struct {
		Question string `json:"question"`
		Context  string `json:"context"`
	}
	if err := json.Unmarshal(p.Inputs, &in); err != nil || in.Question == "" || in.Context == "" {
		return badRequest("`inputs` must be an object with `question` and `context`")
	}
	// The answer is the first context word the question does not contain.
	asked := map[string]bool{}
	for _, w := range words(in.Question) {
		asked[strings.ToLower(w.text)] = true
	}
	ws := words(in.Context)
	pick := ws[0]
	for _, w := range ws {
		if !asked[strings.ToLower(w.text)] {
			pick = w
			break
		}
	}
	return jsonReply(map[string]any{"answer": pick.text, "score": 0.912, "start": pick.start, "end": pick.end})
}

type word struct {
	text       string
	start, end int
}

// words splits s into letter/digit runs with byte offsets.
func words(s string) []word {
	var out []word
	start := -1
	for i, r := range s {
		inWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = append(out, word{s[start:i], start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{s[start:], start, len(s)})
	}
	if len(out) == 0 {
		out = append(out, word{s, 0, len(s)})
	}
	return out
}

func similarityAnswer(r *http.Request, body []byte) reply {
	p, err := parsePayload(r, body)
	if err != nil {
		return badRequest(err.Error())
	}
	var in struct {
		Source    string   `json:"source_sentence"`
		Sentences []string `json:"sentences"`
	}
	if err := json.Unmarshal(p.Inputs, &in); err != nil || in.Source == "" || len(in.Sentences) == 0 {
		return badRequest("`inputs` must be an object with `source_sentence` and a non-empty `sentences` list")
	}
	// Jaccard similarity of the word sets: deterministic and meaningful.
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range words(s) {
			m[strings.ToLower(w.text)] = true
		}
		return m
	}
	src := set(in.Source)
	out := make([]float64, len(in.Sentences))
	for i, s := range in.Sentences {
		other := set(s)
		inter, union := 0, len(src)
		for w := range other {
			if src[w] {
				inter++
			} else {
				union++
			}
		}
		if union > 0 {
			out[i] = round3(float64(inter) / float64(union))
		}
	}
	return jsonReply(out)
}

func tabularAnswer(r *http.Request, body []byte) reply {
	p, err := parsePayload(r, body)
	if err != nil {
		return badRequest(err.Error())
	}
	var in struct {
		Data map[string][]string `json:"data"`
	}
	if err := json.Unmarshal(p.Inputs, &in); err != nil || len(in.Data) == 0 {
		return badRequest("`inputs` must be {\"data\": {column: [values as strings]}}")
	}
	rows := -1
	for col, vals := range in.Data {
		if rows >= 0 && len(vals) != rows {
			return badRequest(fmt.Sprintf("column %q has %d values, others have %d", col, len(vals), rows))
		}
		rows = len(vals)
	}
	out := make([]int, rows)
	for i := range out {
		out[i] = i % 2
	}
	return jsonReply(out)
}

var negativeWords = []string{"bad", "terrible", "awful", "hate", "worst", "sad", "boring"}

func textAnswer(task string, r *http.Request, body []byte) reply {
	text, p, err := textInput(r, body)
	if err != nil {
		return badRequest(err.Error())
	}
	switch task {
	case "text-classification":
		pos, neg := label{"POSITIVE", 0.998}, label{"NEGATIVE", 0.002}
		for _, w := range words(text) {
			if slices.Contains(negativeWords, strings.ToLower(w.text)) {
				pos, neg = label{"NEGATIVE", 0.997}, label{"POSITIVE", 0.003}
				break
			}
		}
		return jsonReply([][]label{{pos, neg}})
	case "token-classification":
		type entity struct {
			EntityGroup string  `json:"entity_group"`
			Score       float64 `json:"score"`
			Word        string  `json:"word"`
			Start       int     `json:"start"`
			End         int     `json:"end"`
		}
		out := []entity{}
		for _, w := range words(text) {
			if r := []rune(w.text); unicode.IsUpper(r[0]) {
				out = append(out, entity{"PER", 0.991, w.text, w.start, w.end})
			}
		}
		return jsonReply(out)
	case "text2text-generation":
		return jsonReply([]map[string]string{{"generated_text": "generated from: " + text}})
	case "summarization":
		summary := text
		if i := strings.Index(text, ". "); i >= 0 {
			summary = text[:i+1]
		}
		return jsonReply([]map[string]string{{"summary_text": summary}})
	case "translation":
		src, _ := p.Parameters["src_lang"].(string)
		tgt, _ := p.Parameters["tgt_lang"].(string)
		prefix := ""
		if src != "" || tgt != "" {
			prefix = fmt.Sprintf("[%s→%s] ", src, tgt)
		}
		return jsonReply([]map[string]string{{"translation_text": prefix + strings.ToUpper(text)}})
	case "text-generation":
		return jsonReply([]map[string]string{{"generated_text": text + " and so the story goes on."}})
	case "text-to-image":
		// The picture's width is the prompt's length in runes (bounded).
		return reply{http.StatusOK, "image/jpeg", jpegOf(min(max(len([]rune(text)), 1), 512), 8)}
	case "text-to-speech":
		// 10 ms of audio per rune of text, at 16 kHz.
		return reply{http.StatusOK, "audio/wav", WAV(160*len([]rune(text)), 16000)}
	case "text-to-video":
		return reply{http.StatusOK, "video/mp4", MP4(text)}
	}
	return badRequest("unreachable")
}

func chatAnswer(model string, r *http.Request, body []byte) reply {
	if !isJSON(r) {
		return badRequest("expected a JSON body")
	}
	var in struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil || len(in.Messages) == 0 {
		return unprocessable("`messages` must be a non-empty list of {role, content}")
	}
	last := in.Messages[len(in.Messages)-1].Content
	return jsonReply(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
		"choices": []map[string]any{{
			"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": "You said: " + last},
		}},
		"usage": map[string]int{"prompt_tokens": len(words(last)), "completion_tokens": 3 + len(words(last)), "total_tokens": 3 + 2*len(words(last))},
	})
}

func completionAnswer(model string, r *http.Request, body []byte) reply {
	if !isJSON(r) {
		return badRequest("expected a JSON body")
	}
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Prompt == "" {
		return unprocessable("`prompt` must be a non-empty string")
	}
	return jsonReply(map[string]any{
		"id": "cmpl-fake", "object": "text_completion", "model": model,
		"choices": []map[string]any{{"index": 0, "text": " and so the story goes on.", "finish_reason": "stop"}},
	})
}
