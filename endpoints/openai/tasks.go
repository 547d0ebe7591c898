package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/textproto"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/chattask"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/skills"
)

// route runs one task on one server.
type route func(e *Endpoint, ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error)

// routes are the tasks an OpenAI-compatible server serves by its own
// routes, by skill name; every task of the chat-model table
// (endpoints/chattask) is served through /v1/chat/completions besides.
var routes = map[string]route{
	"text-to-image":                (*Endpoint).generateImage,
	"image-editing":                (*Endpoint).editImage,
	"automatic-speech-recognition": (*Endpoint).transcribe,
	"text-to-speech":               (*Endpoint).speak,
	// An embedding model scores similarity better than a chat model
	// guessing numbers.
	"sentence-similarity": (*Endpoint).similarity,
}

// routeFor returns how the kind serves task: its own route, or a chat
// completion built by the shared chat-task table.
func routeFor(task string) (route, bool) {
	if r, ok := routes[task]; ok {
		return r, true
	}
	spec, ok := chattask.Lookup(task)
	if !ok {
		return nil, false
	}
	return func(e *Endpoint, ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error) {
		call, err := spec.Build(req)
		if err != nil {
			return endpoints.Result{}, err
		}
		return e.chatCall(ctx, s, req, call)
	}, true
}

// Tasks returns the task names an OpenAI-compatible server can serve,
// sorted.
func Tasks() []string {
	out := chattask.Tasks()
	for t := range routes {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// Supports reports whether task has a route on OpenAI-compatible servers.
func Supports(task string) bool {
	_, ok := routeFor(task)
	return ok
}

// imagesAnswer is the answer of /v1/images/generations and /v1/images/edits.
type imagesAnswer struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
}

// generateImage is text-to-image: POST /v1/images/generations.
func (e *Endpoint) generateImage(ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error) {
	prompt, err := req.Arg("text", "the prompt describing the image")
	if err != nil {
		return endpoints.Result{}, err
	}
	const r = "/v1/images/generations"
	j, err := e.postJSON(ctx, s, req.Model, r, map[string]any{"model": req.Model, "prompt": prompt, "n": 1, "response_format": "b64_json"})
	if err != nil {
		return endpoints.Result{}, err
	}
	defer j.Remove()
	return e.images(ctx, s, req.Model, r, j)
}

// editImage is image-editing: POST /v1/images/edits, a multipart form
// with the image file, the instruction as prompt, and the model.
func (e *Endpoint) editImage(ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error) {
	prompt, err := req.Arg("text", "the edit instruction")
	if err != nil {
		return endpoints.Result{}, err
	}
	img, mt, err := hfapi.ReadMedia(req, "image")
	if err != nil {
		return endpoints.Result{}, err
	}
	const r = "/v1/images/edits"
	body, ctype, err := multipartForm([]formFile{{field: "image", name: fileName(req, "image", mt), mime: mt, data: img}},
		"model", req.Model, "prompt", prompt, "n", "1", "response_format", "b64_json")
	if err != nil {
		return endpoints.Result{}, err
	}
	resp, err := e.post(ctx, s, req.Model, r, ctype, body)
	if err != nil {
		return endpoints.Result{}, err
	}
	defer resp.Body.Close()
	j, err := e.readJSON(s, req.Model, r, resp)
	if err != nil {
		return endpoints.Result{}, err
	}
	defer j.Remove()
	return e.images(ctx, s, req.Model, r, j)
}

// images reads {"data":[{"b64_json"|"url"}]} into blobs, each image
// decoded from its spooled base64 as it is read.
func (e *Endpoint) images(ctx context.Context, s *Server, model, r string, j endpoints.SpooledJSON) (endpoints.Result, error) {
	data := j.Data
	var ans imagesAnswer
	if err := json.Unmarshal(data, &ans); err != nil || len(ans.Data) == 0 {
		return endpoints.Result{}, e.malformed(s, model, r, `{"data":[{"b64_json":…}]}`, data)
	}
	var res endpoints.Result
	for _, d := range ans.Data {
		var (
			b   endpoints.Blob
			err error
		)
		switch {
		case d.B64JSON != "":
			var in io.ReadCloser
			if in, err = j.Open(d.B64JSON); err == nil {
				b, err = hfapi.DecodeFileFrom(in, "", e.spool)
				in.Close()
			}
			if err != nil {
				res.Discard()
				return endpoints.Result{}, e.malformed(s, model, r, "base64 in b64_json", []byte(err.Error()))
			}
		case d.URL != "":
			u, terr := j.Text(d.URL, 64<<10)
			if terr != nil {
				res.Discard()
				return endpoints.Result{}, e.malformed(s, model, r, "a URL", []byte(terr.Error()))
			}
			b, err = e.fetch(ctx, s, model, u)
			if err != nil {
				res.Discard()
				return endpoints.Result{}, err
			}
		default:
			res.Discard()
			return endpoints.Result{}, e.malformed(s, model, r, "b64_json or url in each data item", data)
		}
		if !strings.HasPrefix(b.MIME, "image/") {
			b.Remove()
			res.Discard()
			return endpoints.Result{}, e.malformed(s, model, r, "an image", []byte("a file of type "+b.MIME))
		}
		res.Blobs = append(res.Blobs, b)
		if d.RevisedPrompt != "" && res.Text == "" {
			res.Text = "revised prompt: " + d.RevisedPrompt
		}
	}
	return res, nil
}

// transcribe is automatic-speech-recognition: POST
// /v1/audio/transcriptions, a multipart form with the audio as file and
// the model, answered {"text": …}.
func (e *Endpoint) transcribe(ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error) {
	audio, mt, err := hfapi.ReadMedia(req, "audio")
	if err != nil {
		return endpoints.Result{}, err
	}
	const r = "/v1/audio/transcriptions"
	fields := []string{"model", req.Model, "response_format", "json"}
	if lang := strings.TrimSpace(req.Args["language"]); lang != "" {
		fields = append(fields, "language", lang)
	}
	body, ctype, err := multipartForm([]formFile{{field: "file", name: fileName(req, "audio", mt), mime: mt, data: audio}}, fields...)
	if err != nil {
		return endpoints.Result{}, err
	}
	resp, err := e.post(ctx, s, req.Model, r, ctype, body)
	if err != nil {
		return endpoints.Result{}, err
	}
	defer resp.Body.Close()
	j, err := e.readJSON(s, req.Model, r, resp)
	if err != nil {
		return endpoints.Result{}, err
	}
	defer j.Remove()
	data := j.Data
	var ans struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(data, &ans) != nil || ans.Text == nil {
		return endpoints.Result{}, e.malformed(s, req.Model, r, `{"text":…}`, data)
	}
	text, err := j.Text(*ans.Text, maxJSONText)
	if err != nil {
		return endpoints.Result{}, e.malformed(s, req.Model, r, `{"text":…} of at most 16 MB`, []byte(err.Error()))
	}
	res := endpoints.Result{Text: strings.TrimSpace(text)}
	if !j.Spooled(*ans.Text) {
		res.Data = data // the answer's other fields (segments, language), when it is small
	}
	return res, nil
}

// speak is text-to-speech: POST /v1/audio/speech, answered with the audio
// file itself.
func (e *Endpoint) speak(ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error) {
	input, err := req.Arg("text", "the words to speak")
	if err != nil {
		return endpoints.Result{}, err
	}
	voice := s.Voice
	if voice == "" {
		voice = "alloy"
	}
	const r = "/v1/audio/speech"
	resp, err := e.post(ctx, s, req.Model, r, "application/json",
		hfapi.EncodeJSON(map[string]any{"model": req.Model, "input": input, "voice": voice, "response_format": "wav"}))
	if err != nil {
		return endpoints.Result{}, err
	}
	defer resp.Body.Close()
	b, head, err := e.spool.ReadBody(resp)
	if err != nil {
		return endpoints.Result{}, &endpoints.HTTPError{Kind: skills.EndpointOpenAI, Model: req.Model, Provider: s.name(), Status: resp.StatusCode,
			Err: endpoints.ErrUnavailable, Message: fmt.Sprintf("%s answered POST %s unreadably: %v", s.label(), r, err)}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	b.MIME = hfapi.BlobMIME(mt, head)
	if !strings.HasPrefix(b.MIME, "audio/") {
		b.Remove()
		return endpoints.Result{}, e.malformed(s, req.Model, r, "audio", head)
	}
	return endpoints.Result{Blobs: []endpoints.Blob{b}}, nil
}

// maxChatImage bounds an image sent inside a chat request as a data URL.
const maxChatImage = 20 << 20

// chatCall posts one chat completion for a prepared chat-task call: the
// brief as the system message; the user's text, after the image as an
// image_url part holding a data URL (the server cannot read Chorus's
// files); the schema, when the answer is structured, as response_format
// (OpenAI's structured outputs, which vLLM, llama.cpp and LocalAI honour);
// and the reply read by the call's own reader.
func (e *Endpoint) chatCall(ctx context.Context, s *Server, req endpoints.Request, call chattask.Call) (endpoints.Result, error) {
	var msgs []map[string]any
	if call.System != "" {
		msgs = append(msgs, map[string]any{"role": "system", "content": call.System})
	}
	if !call.Image.IsZero() {
		data, err := call.Image.ReadAll(maxChatImage)
		if err != nil {
			return endpoints.Result{}, endpoints.Explain(fmt.Sprintf("%v: cannot read image %s: %v", endpoints.ErrBadInput, call.Image.Asked(), err), endpoints.ErrBadInput, err)
		}
		mt := hfapi.MediaType(call.Image.Asked(), data)
		if !strings.HasPrefix(mt, "image/") {
			return endpoints.Result{}, fmt.Errorf("%w: %s is %s, not an image", endpoints.ErrBadInput, call.Image.Asked(), mt)
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": []map[string]any{
			{"type": "image_url", "image_url": map[string]any{"url": hfapi.DataURL(mt, data)}},
			{"type": "text", "text": call.User},
		}})
	} else {
		msgs = append(msgs, map[string]any{"role": "user", "content": call.User})
	}
	body := map[string]any{"model": req.Model, "messages": msgs, "stream": false}
	if call.Temperature >= 0 {
		body["temperature"] = call.Temperature
	}
	if len(call.Format) > 0 {
		body["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "answer", "schema": call.Format}}
	}
	text, err := e.chat(ctx, s, req.Model, body)
	if err != nil {
		return endpoints.Result{}, err
	}
	res, err := call.Parse(text)
	if err != nil {
		return endpoints.Result{}, &endpoints.HTTPError{Kind: skills.EndpointOpenAI, Model: req.Model, Provider: s.name(), Status: 200, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("%s answered %s unusably: %v", s.label(), req.Task, err)}
	}
	return res, nil
}

// chat posts body to /v1/chat/completions and returns the first choice's
// text.
func (e *Endpoint) chat(ctx context.Context, s *Server, model string, body map[string]any) (string, error) {
	const r = "/v1/chat/completions"
	j, err := e.postJSON(ctx, s, model, r, body)
	if err != nil {
		return "", err
	}
	defer j.Remove()
	data := j.Data
	var ans struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &ans) != nil || len(ans.Choices) == 0 {
		return "", e.malformed(s, model, r, `{"choices":[{"message":{"content":…}}]}`, data)
	}
	text, ok := contentText(j, ans.Choices[0].Message.Content)
	if !ok {
		return "", e.malformed(s, model, r, "message content as text", data)
	}
	if strings.TrimSpace(thinkBlock.ReplaceAllString(text, "")) == "" {
		return "", &endpoints.HTTPError{Kind: skills.EndpointOpenAI, Model: model, Provider: s.name(), Status: 200, Err: endpoints.ErrUnavailable,
			Message: fmt.Sprintf("%s answered POST %s with an empty message (finish_reason %q)", s.label(), r, ans.Choices[0].FinishReason)}
	}
	return text, nil
}

// thinkBlock is a leading <think>…</think>, which reasoning models served
// by vLLM or llama.cpp put inline.
var thinkBlock = regexp.MustCompile(`(?s)^\s*<think>.*?</think>\s*`)

// contentText reads a message content: a string, or an array of parts
// whose text parts are joined — spooled strings read back (j.Text).
func contentText(j endpoints.SpooledJSON, raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		s, err := j.Text(s, maxJSONText)
		return s, err == nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			t, err := j.Text(p.Text, maxJSONText)
			if err != nil || int64(b.Len()+len(t)) > maxJSONText {
				return "", false
			}
			b.WriteString(t)
		}
	}
	return b.String(), true
}

// formFile is a file part of a multipart form.
type formFile struct {
	field, name, mime string
	data              []byte
}

// multipartForm writes files and the name/value pairs of fields as
// multipart/form-data, returning the body and its Content-Type.
func multipartForm(files []formFile, fields ...string) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(fields); i += 2 {
		if err := w.WriteField(fields[i], fields[i+1]); err != nil {
			return nil, "", err
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.field, f.name))
		h.Set("Content-Type", f.mime)
		p, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := p.Write(f.data); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// fileName is the file name an upload carries: the argument's base name,
// which servers use to tell the format (whisper reads the extension), or
// one made from its media type.
func fileName(req endpoints.Request, arg, mt string) string {
	name := ""
	if f, ok := req.Files[arg]; ok && !f.IsZero() {
		name = filepath.Base(f.Asked())
	}
	if name == "" || name == "." || name == "/" {
		name = arg + skills.ExtOfMIME(mt)
	}
	return name
}

// similarity is sentence-similarity through POST /v1/embeddings: the
// reference and the candidates embedded in one call, each candidate
// scored by its cosine similarity to the reference, as Hugging Face's
// sentence-similarity pipeline answers ([0.83, 0.12, …]).
func (e *Endpoint) similarity(ctx context.Context, s *Server, req endpoints.Request) (endpoints.Result, error) {
	src, err := req.Arg("text", "the reference sentence")
	if err != nil {
		return endpoints.Result{}, err
	}
	raw, err := req.Arg("sentences", "the sentences to compare with, one per line")
	if err != nil {
		return endpoints.Result{}, err
	}
	var sentences []string
	for _, l := range strings.Split(raw, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			sentences = append(sentences, l)
		}
	}
	const r = "/v1/embeddings"
	j, err := e.postJSON(ctx, s, req.Model, r, map[string]any{"model": req.Model, "input": append([]string{src}, sentences...), "encoding_format": "float"})
	if err != nil {
		return endpoints.Result{}, err
	}
	j.Remove() // numbers only: a spooled string is no embedding
	data := j.Data
	var ans struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if json.Unmarshal(data, &ans) != nil || len(ans.Data) != len(sentences)+1 {
		return endpoints.Result{}, e.malformed(s, req.Model, r, fmt.Sprintf(`{"data":[{"embedding":[…]}]} with %d embeddings`, len(sentences)+1), data)
	}
	vecs := make([][]float64, len(ans.Data))
	for i, d := range ans.Data {
		at := d.Index
		if at < 0 || at >= len(vecs) || vecs[at] != nil {
			at = i // servers that leave index out answer in order
		}
		vecs[at] = d.Embedding
	}
	scores := make([]float64, len(sentences))
	lines := make([]string, len(sentences))
	for i := range sentences {
		c, ok := cosine(vecs[0], vecs[i+1])
		if !ok {
			return endpoints.Result{}, e.malformed(s, req.Model, r, "embeddings of one non-zero length", data)
		}
		scores[i] = c
		lines[i] = fmt.Sprintf("%.2f  %s", c, sentences[i])
	}
	out, _ := json.Marshal(scores)
	return endpoints.Result{Text: strings.Join(lines, "\n"), Data: out}, nil
}

// cosine is the cosine similarity of a and b; false when they differ in
// length or either is zero.
func cosine(a, b []float64) (float64, bool) {
	if len(a) == 0 || len(a) != len(b) {
		return 0, false
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 || math.IsNaN(dot) || math.IsInf(dot, 0) {
		return 0, false
	}
	// Rounding can carry a cosine just past ±1.
	return max(-1, min(1, dot/(math.Sqrt(na)*math.Sqrt(nb)))), true
}
