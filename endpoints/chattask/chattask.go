// Package chattask is the table of expert tasks a chat model serves —
// captioning, questions about an image, OCR, classification, text tasks —
// each as a prompt written for the task (a system brief, the user's text,
// the image to attach, a JSON schema where the answer is structured) and a
// reader that turns the reply into Hugging Face's result shape. The ollama
// kind and the openai kind (OpenAI-compatible servers) both send these
// calls, so a task is asked and read the same way whichever server runs it.
package chattask

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
)

// Spec is how a chat model serves one task.
type Spec struct {
	// Vision marks tasks that send an image and need a vision model.
	Vision bool
	// Build prepares the call for a request, or says what is missing.
	Build func(req endpoints.Request) (Call, error)
}

// Call is one prepared chat call and how to read its answer.
type Call struct {
	System, User string
	// Image is the checked file of the image to attach, if any.
	Image scope.File
	// Format is a JSON schema for structured answers.
	Format json.RawMessage
	// Temperature for the call; negative leaves the model's default.
	Temperature float64
	// Parse reads the reply's content into the task's result.
	Parse func(content string) (endpoints.Result, error)
}

// Lookup returns how a chat model serves task.
func Lookup(task string) (Spec, bool) {
	s, ok := tasks[task]
	return s, ok
}

// tasks are the tasks chat models serve, by skill name.
var tasks = map[string]Spec{
	"image-to-text":                  {Vision: true, Build: buildCaption},
	"visual-question-answering":      {Vision: true, Build: buildVQA},
	"document-question-answering":    {Vision: true, Build: buildDocQA},
	"ocr":                            {Vision: true, Build: buildVisionOCR},
	"image-classification":           {Vision: true, Build: buildImageClassification},
	"zero-shot-image-classification": {Vision: true, Build: buildZeroShotImage},
	"summarization":                  {Build: buildSummary},
	"translation":                    {Build: buildTranslation},
	"text-generation":                {Build: buildTextGeneration},
	"conversational":                 {Build: buildConversational},
	"social-media-post":              {Build: buildSocialPost},
	"text2text-generation":           {Build: buildText2Text},
	"question-answering":             {Build: buildQA},
	"text-classification":            {Build: buildTextClassification},
	"token-classification":           {Build: buildTokenClassification},
	"sentence-similarity":            {Build: buildSentenceSimilarity},
}

// Tasks returns the task names chat models can serve, sorted.
func Tasks() []string {
	out := make([]string, 0, len(tasks))
	for t := range tasks {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func buildCaption(req endpoints.Request) (Call, error) {
	img, err := req.File("image", "the image to describe")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.CaptionBrief,
		User:   "Describe this image.", Image: img, Temperature: 0.2, Parse: textAnswer,
	}, nil
}

func buildVQA(req endpoints.Request) (Call, error) {
	img, err := req.File("image", "the image the question is about")
	if err != nil {
		return Call{}, err
	}
	q, err := req.Arg("text", "the question about the image")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.VQABrief,
		User:   q, Image: img, Temperature: 0, Parse: textAnswer,
	}, nil
}

func buildDocQA(req endpoints.Request) (Call, error) {
	img, err := req.File("image", "the document image")
	if err != nil {
		return Call{}, err
	}
	q, err := req.Arg("text", "the question about the document")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.DocQABrief,
		User:   q, Image: img, Temperature: 0, Parse: textAnswer,
	}, nil
}

func buildVisionOCR(req endpoints.Request) (Call, error) {
	img, err := req.File("image", "the image to read text from")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.OCRBrief,
		User:   "Transcribe the text in this image.", Image: img, Temperature: 0,
		Parse: func(s string) (endpoints.Result, error) {
			return endpoints.Result{Text: strings.TrimSpace(stripThinking(s))}, nil
		},
	}, nil
}

// labelScore is Hugging Face's classification item.
type labelScore struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

func renderLabels(ls []labelScore) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s %.2f", l.Label, l.Score)
	}
	return strings.Join(parts, ", ")
}

func labelsResult(ls []labelScore) (endpoints.Result, error) {
	data, err := json.Marshal(ls)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{Text: renderLabels(ls), Data: data}, nil
}

func buildImageClassification(req endpoints.Request) (Call, error) {
	img, err := req.File("image", "the image to classify")
	if err != nil {
		return Call{}, err
	}
	schema := `{"type":"object","properties":{"labels":{"type":"array","minItems":1,"maxItems":5,"items":{"type":"object",` +
		`"properties":{"label":{"type":"string"},"score":{"type":"number","minimum":0,"maximum":1}},"required":["label","score"]}}},` +
		`"required":["labels"]}`
	return Call{
		System: "You are an image classifier. Name the main subject of the attached image with up to 5 candidate labels " +
			"(short common nouns such as \"tabby cat\" or \"sports car\"), each with a confidence between 0 and 1, most likely first. " +
			"Answer in JSON.",
		User: "Classify this image.", Image: img, Format: json.RawMessage(schema), Temperature: 0,
		Parse: func(s string) (endpoints.Result, error) {
			var out struct {
				Labels []labelScore `json:"labels"`
			}
			if err := decodeAnswer(s, &out); err != nil {
				return endpoints.Result{}, err
			}
			var ls []labelScore
			for _, l := range out.Labels {
				if l.Label = strings.TrimSpace(l.Label); l.Label != "" {
					ls = append(ls, labelScore{l.Label, clamp01(l.Score)})
				}
			}
			if len(ls) == 0 {
				return endpoints.Result{}, errors.New("the model gave no labels")
			}
			sortLabels(ls)
			return labelsResult(ls)
		},
	}, nil
}

// splitList splits a comma- or newline-separated list, trimming and
// dropping empty and repeated entries.
func splitList(s string, sep func(rune) bool) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, sep) {
		p = strings.TrimSpace(p)
		if p != "" && !slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, p) }) {
			out = append(out, p)
		}
	}
	return out
}

func commaOrNewline(r rune) bool { return r == ',' || r == '\n' }

// scoreLabelsCall asks for a score per given label and reads the answer
// as Hugging Face's zero-shot output: every label, scores summing to 1.
func scoreLabelsCall(labels []string, system, user string, image scope.File) Call {
	enum, _ := json.Marshal(labels)
	schema := fmt.Sprintf(`{"type":"object","properties":{"scores":{"type":"array","minItems":%d,"maxItems":%d,"items":{"type":"object",`+
		`"properties":{"label":{"type":"string","enum":%s},"score":{"type":"number","minimum":0,"maximum":1}},"required":["label","score"]}}},`+
		`"required":["scores"]}`, len(labels), len(labels), enum)
	return Call{
		System: system, User: user, Image: image, Format: json.RawMessage(schema), Temperature: 0,
		Parse: func(s string) (endpoints.Result, error) {
			var out struct {
				Scores []labelScore `json:"scores"`
			}
			if err := decodeAnswer(s, &out); err != nil {
				return endpoints.Result{}, err
			}
			scores := map[string]float64{}
			for _, l := range out.Scores {
				for _, want := range labels {
					if strings.EqualFold(strings.TrimSpace(l.Label), want) {
						scores[want] = max(scores[want], clamp01(l.Score))
					}
				}
			}
			if len(scores) == 0 {
				return endpoints.Result{}, fmt.Errorf("the model scored none of the labels %s", strings.Join(labels, ", "))
			}
			total := 0.0
			for _, v := range scores {
				total += v
			}
			ls := make([]labelScore, len(labels))
			for i, l := range labels {
				ls[i] = labelScore{Label: l}
				switch {
				case total > 0:
					ls[i].Score = scores[l] / total
				default:
					ls[i].Score = 1 / float64(len(labels))
				}
			}
			sortLabels(ls)
			return labelsResult(ls)
		},
	}
}

func buildZeroShotImage(req endpoints.Request) (Call, error) {
	img, err := req.File("image", "the image to classify")
	if err != nil {
		return Call{}, err
	}
	raw, err := req.Arg("labels", `the candidate labels, comma-separated, e.g. "cat, dog, bird"`)
	if err != nil {
		return Call{}, err
	}
	labels := splitList(raw, commaOrNewline)
	return scoreLabelsCall(labels,
		"You are a zero-shot image classifier. For each candidate label, give the probability (0 to 1) that it describes "+
			"the attached image. Score every label exactly once. Answer in JSON.",
		"Candidate labels: "+strings.Join(labels, ", "), img), nil
}

func buildSummary(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the text to summarise")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.SummaryBrief,
		User:   text, Temperature: 0.2, Parse: textAnswer,
	}, nil
}

// languageNames spells out common language codes, which small models
// follow more reliably than codes.
var languageNames = map[string]string{
	"en": "English", "eng": "English", "fr": "French", "fra": "French", "de": "German", "deu": "German",
	"es": "Spanish", "spa": "Spanish", "it": "Italian", "ita": "Italian", "pt": "Portuguese", "por": "Portuguese",
	"nl": "Dutch", "nld": "Dutch", "ru": "Russian", "rus": "Russian", "zh": "Chinese", "zho": "Chinese",
	"ja": "Japanese", "jpn": "Japanese", "ko": "Korean", "kor": "Korean", "ar": "Arabic", "arb": "Arabic",
	"hi": "Hindi", "hin": "Hindi", "pl": "Polish", "pol": "Polish", "tr": "Turkish", "tur": "Turkish",
	"sv": "Swedish", "swe": "Swedish", "uk": "Ukrainian", "ukr": "Ukrainian", "ro": "Romanian", "ron": "Romanian",
}

// languageName turns "fr", "fra_Latn" or "French" into "French".
func languageName(s string) string {
	s = strings.TrimSpace(s)
	code, _, _ := strings.Cut(strings.ToLower(s), "_")
	code, _, _ = strings.Cut(code, "-")
	if n, ok := languageNames[code]; ok {
		return n
	}
	return s
}

func buildTranslation(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the text to translate")
	if err != nil {
		return Call{}, err
	}
	src, tgt := languageName(req.Args["src_lang"]), languageName(req.Args["tgt_lang"])
	if tgt == "" {
		tgt = "English"
	}
	from := "from its language"
	if src != "" {
		from = "from " + src
	}
	return Call{
		System: fmt.Sprintf("You are a translator. Translate the user's text %s into %s, keeping its meaning, tone and "+
			"formatting. Reply with the translation only, without notes or quotes.", from, tgt),
		User: text, Temperature: 0, Parse: textAnswer,
	}, nil
}

func buildTextGeneration(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the prompt to generate from")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.TextGenerationBrief,
		User:   text, Temperature: -1, Parse: textAnswer,
	}, nil
}

func buildConversational(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the message to answer")
	if err != nil {
		return Call{}, err
	}
	return Call{User: text, Temperature: -1, Parse: textAnswer}, nil
}

func buildSocialPost(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "what the post is about, with any wishes on tone or platform")
	if err != nil {
		return Call{}, err
	}
	return Call{System: endpoints.SocialPostBrief, User: text, Temperature: 0.7, Parse: textAnswer}, nil
}

func buildText2Text(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the instruction and its input")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System: endpoints.Text2TextBrief,
		User:   text, Temperature: 0.2, Parse: textAnswer,
	}, nil
}

func buildQA(req endpoints.Request) (Call, error) {
	q, err := req.Arg("text", "the question")
	if err != nil {
		return Call{}, err
	}
	ctxText, err := req.Arg("context", "the passage that holds the answer")
	if err != nil {
		return Call{}, err
	}
	return Call{
		System:      endpoints.QABrief,
		User:        "Context:\n" + ctxText + "\n\nQuestion: " + q,
		Temperature: 0,
		Parse: func(s string) (endpoints.Result, error) {
			res, err := textAnswer(s)
			if err != nil {
				return res, err
			}
			ans := strings.Trim(res.Text, "\"'“”. ")
			out := map[string]any{"answer": ans}
			if i := strings.Index(ctxText, ans); i >= 0 && ans != "" {
				out["start"], out["end"] = i, i+len(ans)
			}
			res.Data, _ = json.Marshal(out)
			if ans != "" {
				res.Text = ans // the answer, without the quotes models put round it
			}
			return res, nil
		},
	}, nil
}

func buildTextClassification(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the text to classify")
	if err != nil {
		return Call{}, err
	}
	labels := splitList(req.Args["labels"], commaOrNewline)
	what := "label"
	if len(labels) == 0 {
		labels, what = []string{"POSITIVE", "NEGATIVE", "NEUTRAL"}, "sentiment"
	}
	return scoreLabelsCall(labels,
		fmt.Sprintf("You are a text classifier. For each candidate %s, give the probability (0 to 1) that it fits the user's "+
			"text. Score every label exactly once. Answer in JSON.", what),
		"Candidate labels: "+strings.Join(labels, ", ")+"\n\nText:\n"+text, scope.File{}), nil
}

// entity is Hugging Face's token-classification item (aggregated).
type entity struct {
	Group string `json:"entity_group"`
	Word  string `json:"word"`
	Start *int   `json:"start,omitempty"`
	End   *int   `json:"end,omitempty"`
}

func buildTokenClassification(req endpoints.Request) (Call, error) {
	text, err := req.Arg("text", "the text to find named entities in")
	if err != nil {
		return Call{}, err
	}
	schema := `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{` +
		`"word":{"type":"string"},"entity_group":{"type":"string","enum":["PER","ORG","LOC","MISC"]}},` +
		`"required":["word","entity_group"]}}},"required":["entities"]}`
	return Call{
		System: "You are a named-entity recogniser. List every person (PER), organisation (ORG), location (LOC) and other " +
			"named entity (MISC) in the user's text, in order of appearance, each with the exact words as written. Answer in JSON.",
		User: text, Format: json.RawMessage(schema), Temperature: 0,
		Parse: func(s string) (endpoints.Result, error) {
			var out struct {
				Entities []entity `json:"entities"`
			}
			if err := decodeAnswer(s, &out); err != nil {
				return endpoints.Result{}, err
			}
			ents := []entity{}
			var parts []string
			cursor := 0
			for _, e := range out.Entities {
				e.Word = strings.TrimSpace(e.Word)
				if e.Word == "" {
					continue
				}
				e.Group = strings.ToUpper(strings.TrimSpace(e.Group))
				// Offsets let annotators highlight the span; a word the
				// model reworded simply has none.
				if i := strings.Index(text[cursor:], e.Word); i >= 0 {
					start, end := cursor+i, cursor+i+len(e.Word)
					e.Start, e.End, cursor = &start, &end, end
				} else if i := strings.Index(text, e.Word); i >= 0 {
					start, end := i, i+len(e.Word)
					e.Start, e.End = &start, &end
				}
				ents = append(ents, e)
				parts = append(parts, fmt.Sprintf("%s (%s)", e.Word, e.Group))
			}
			data, err := json.Marshal(ents)
			if err != nil {
				return endpoints.Result{}, err
			}
			txt := strings.Join(parts, ", ")
			if txt == "" {
				txt = "no named entities found"
			}
			return endpoints.Result{Text: txt, Data: data}, nil
		},
	}, nil
}

func buildSentenceSimilarity(req endpoints.Request) (Call, error) {
	src, err := req.Arg("text", "the source sentence")
	if err != nil {
		return Call{}, err
	}
	raw, err := req.Arg("sentences", "the sentences to compare with, one per line")
	if err != nil {
		return Call{}, err
	}
	sentences := splitList(raw, func(r rune) bool { return r == '\n' })
	n := len(sentences)
	schema := fmt.Sprintf(`{"type":"object","properties":{"scores":{"type":"array","minItems":%d,"maxItems":%d,`+
		`"items":{"type":"number","minimum":0,"maximum":1}}},"required":["scores"]}`, n, n)
	var list strings.Builder
	for i, s := range sentences {
		fmt.Fprintf(&list, "%d. %s\n", i+1, s)
	}
	return Call{
		System: fmt.Sprintf("You rate semantic similarity. For each of the %d numbered sentences, in order, give how close its "+
			"meaning is to the source sentence, from 0 (unrelated) to 1 (same meaning). Answer in JSON with exactly %d scores.", n, n),
		User:   "Source sentence: " + src + "\n\nSentences:\n" + list.String(),
		Format: json.RawMessage(schema), Temperature: 0,
		Parse: func(s string) (endpoints.Result, error) {
			var out struct {
				Scores []float64 `json:"scores"`
			}
			if err := decodeAnswer(s, &out); err != nil {
				return endpoints.Result{}, err
			}
			if len(out.Scores) != n {
				return endpoints.Result{}, fmt.Errorf("the model gave %d scores for %d sentences", len(out.Scores), n)
			}
			lines := make([]string, n)
			for i := range out.Scores {
				out.Scores[i] = clamp01(out.Scores[i])
				lines[i] = fmt.Sprintf("%.2f  %s", out.Scores[i], sentences[i])
			}
			data, _ := json.Marshal(out.Scores)
			return endpoints.Result{Text: strings.Join(lines, "\n"), Data: data}, nil
		},
	}, nil
}

var thinkBlock = regexp.MustCompile(`(?s)^\s*<think>.*?</think>\s*`)

// stripThinking drops a leading <think>…</think> block, which reasoning
// models put inline when the request does not ask for thinking separately.
func stripThinking(s string) string { return thinkBlock.ReplaceAllString(s, "") }

// textAnswer reads a plain-text answer.
func textAnswer(s string) (endpoints.Result, error) {
	t := strings.TrimSpace(stripThinking(s))
	if t == "" {
		return endpoints.Result{}, errors.New("the model returned an empty answer")
	}
	return endpoints.Result{Text: t}, nil
}

// decodeAnswer reads a JSON answer, tolerating what models wrap it in
// (a think block, a ```json fence, a sentence before it).
func decodeAnswer(s string, v any) error {
	t := strings.TrimSpace(stripThinking(s))
	if err := json.Unmarshal([]byte(t), v); err == nil {
		return nil
	}
	i, j := strings.IndexAny(t, "{["), strings.LastIndexAny(t, "}]")
	if i >= 0 && j > i {
		if err := json.Unmarshal([]byte(t[i:j+1]), v); err == nil {
			return nil
		}
	}
	return fmt.Errorf("the model's answer is not the JSON asked for: %s", strconv.Quote(excerpt(t, 120)))
}

func clamp01(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return min(1, max(0, f))
}

func sortLabels(ls []labelScore) {
	slices.SortStableFunc(ls, func(a, b labelScore) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
}

// excerpt shortens s for an error message.
func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
