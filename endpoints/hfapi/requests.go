package hfapi

import (
	"strings"

	"github.com/chorusai/chorus/endpoints"
)

// The request builders of the task table, by the shape they send.

// textInputs sends the text as {"inputs": text}.
func textInputs(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	t, err := textArg(task, args, "text")
	if err != nil {
		return Request{}, err
	}
	return jsonRequest("", map[string]any{"inputs": t}), nil
}

// buildTranslation sends the text, with src_lang and tgt_lang as
// parameters when the planner gave them.
func buildTranslation(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	t, err := textArg(task, args, "text")
	if err != nil {
		return Request{}, err
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
	return jsonRequest("", body), nil
}

// buildQuestionAnswering sends {"inputs": {question, context}}.
func buildQuestionAnswering(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	q, err := textArg(task, args, "text")
	if err != nil {
		return Request{}, err
	}
	c, err := textArg(task, args, "context")
	if err != nil {
		return Request{}, err
	}
	return jsonRequest("", map[string]any{"inputs": map[string]string{"question": q, "context": c}}), nil
}

// buildChat sends a chat completion to the OpenAI-compatible route, as the
// official client does for conversational and text-generation models; a
// social-media post gets the copywriter's brief as its system message.
func buildChat(req endpoints.Request) (Request, error) {
	msgs, err := ChatMessages(req)
	if err != nil {
		return Request{}, err
	}
	return jsonRequest("/v1/chat/completions", map[string]any{"model": req.Model, "messages": msgs}), nil
}

// ChatMessages are the chat messages of a text task sent as a chat
// completion: the text as the user's message, after the copywriter's
// brief for a social-media post.
func ChatMessages(req endpoints.Request) ([]map[string]string, error) {
	t, err := textArg(req.Task, req.Args, "text")
	if err != nil {
		return nil, err
	}
	var msgs []map[string]string
	if req.Task == "social-media-post" {
		msgs = append(msgs, map[string]string{"role": "system", "content": endpoints.SocialPostBrief})
	}
	return append(msgs, map[string]string{"role": "user", "content": t}), nil
}

// TextArg returns the required text argument name of req, or an error
// wrapping endpoints.ErrBadInput.
func TextArg(req endpoints.Request, name string) (string, error) {
	return textArg(req.Task, req.Args, name)
}

// ReadMedia reads the file of media argument name from req.Files (never a
// path from Args) and returns its bytes and MIME type, bounded as every
// upload is; problems wrap endpoints.ErrBadInput.
func ReadMedia(req endpoints.Request, name string) ([]byte, string, error) {
	return readMedia(req, name)
}

// DataURL is data as a data: URL of type mt, as providers take files
// inside JSON.
func DataURL(mt string, data []byte) string {
	return "data:" + mt + ";base64," + base64Of(data)
}

// buildSentenceSimilarity compares the text with the sentences, one per
// line.
func buildSentenceSimilarity(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	t, err := textArg(task, args, "text")
	if err != nil {
		return Request{}, err
	}
	s, err := textArg(task, args, "sentences")
	if err != nil {
		return Request{}, err
	}
	// Sentence-transformers models answer feature-extraction on their
	// bare route; the pipeline route selects similarity.
	return jsonRequest("/pipeline/sentence-similarity", map[string]any{
		"inputs": map[string]any{"source_sentence": t, "sentences": splitList(s, "\n")},
	}), nil
}

// buildTabular sends the table in the text (CSV or JSON) as columns.
func buildTabular(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	t, err := textArg(task, args, "text")
	if err != nil {
		return Request{}, err
	}
	table, err := parseTable(t)
	if err != nil {
		return Request{}, err
	}
	return jsonRequest("", map[string]any{"inputs": map[string]any{"data": table}}), nil
}

// rawMedia returns a builder that sends the file of the media argument
// name as the body, with its Content-Type.
func rawMedia(name string) func(req endpoints.Request) (Request, error) {
	return func(req endpoints.Request) (Request, error) {
		data, mt, err := readMedia(req, name)
		if err != nil {
			return Request{}, err
		}
		return Request{ContentType: mt, Body: data}, nil
	}
}

// buildSegmentation sends the image base64 in {"inputs": …}.
func buildSegmentation(req endpoints.Request) (Request, error) {
	img, _, err := readMedia(req, "image")
	if err != nil {
		return Request{}, err
	}
	return jsonRequest("", map[string]any{"inputs": base64Of(img)}), nil
}

// buildImageToImage sends the image with the text as parameters.prompt,
// or the bare image when image-to-image has no prompt; an edit needs its
// instruction.
func buildImageToImage(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	img, mt, err := readMedia(req, "image")
	if err != nil {
		return Request{}, err
	}
	prompt := strings.TrimSpace(args["text"])
	if prompt == "" {
		if task == "image-editing" {
			return Request{}, badInput("image-editing needs a \"text\" argument (the edit instruction)")
		}
		return Request{ContentType: mt, Body: img}, nil
	}
	return jsonRequest("", map[string]any{"inputs": base64Of(img), "parameters": map[string]any{"prompt": prompt}}), nil
}

// buildZeroShotImage sends the image with parameters.candidate_labels.
func buildZeroShotImage(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	img, _, err := readMedia(req, "image")
	if err != nil {
		return Request{}, err
	}
	labels := splitList(args["labels"], ",")
	if len(labels) == 0 {
		return Request{}, badInput("%s needs a \"labels\" argument (comma-separated candidate labels)", task)
	}
	return jsonRequest("", map[string]any{"inputs": base64Of(img), "parameters": map[string]any{"candidate_labels": labels}}), nil
}

// buildImageQuestion sends {"inputs": {image, question}}.
func buildImageQuestion(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	img, _, err := readMedia(req, "image")
	if err != nil {
		return Request{}, err
	}
	q, err := textArg(task, args, "text")
	if err != nil {
		return Request{}, err
	}
	return jsonRequest("", map[string]any{"inputs": map[string]string{"image": base64Of(img), "question": q}}), nil
}

// buildMaskGeneration sends the image with SAM's visual prompts — the
// point as input_points, the box as input_boxes — or the bare image when
// there are none.
func buildMaskGeneration(req endpoints.Request) (Request, error) {
	task, args := req.Task, req.Args
	img, mt, err := readMedia(req, "image")
	if err != nil {
		return Request{}, err
	}
	params := map[string]any{}
	if p := strings.TrimSpace(args["point"]); p != "" {
		xy, err := parseNumbers(task, "point", p, 2)
		if err != nil {
			return Request{}, err
		}
		params["input_points"] = [][][]float64{{xy}}
	}
	if b := strings.TrimSpace(args["box"]); b != "" {
		box, err := parseNumbers(task, "box", b, 4)
		if err != nil {
			return Request{}, err
		}
		params["input_boxes"] = [][]float64{box}
	}
	if len(params) == 0 {
		return Request{ContentType: mt, Body: img}, nil
	}
	// SAM's processor names for visual prompts.
	return jsonRequest("", map[string]any{"inputs": base64Of(img), "parameters": params}), nil
}
