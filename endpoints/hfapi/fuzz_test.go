package hfapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
)

// hfAllTasks are the tasks the Hugging Face payload layer answers for.
var hfAllTasks = []string{
	"token-classification", "text-classification", "text2text-generation", "summarization",
	"translation", "question-answering", "conversational", "text-generation",
	"sentence-similarity", "tabular-classification", "image-to-text", "text-to-image",
	"visual-question-answering", "document-question-answering", "image-segmentation",
	"image-classification", "image-to-image", "object-detection", "depth-estimation",
	"text-to-speech", "automatic-speech-recognition", "audio-to-audio", "audio-classification",
	"text-to-video", "video-classification", "zero-shot-image-classification",
	"zero-shot-object-detection", "mask-generation", "image-editing", "ocr", "social-media-post",
}

// TestHFDepthTensorSizeIsBounded: a small answer that describes a huge
// depth map is refused before the image is allocated.
func TestHFDepthTensorSizeIsBounded(t *testing.T) {
	wide := `{"predicted_depth": [[` + strings.Repeat("0,", 69999) + `0], [0]]}`
	tall := `{"predicted_depth": [[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19` + strings.Repeat("], [", 65536) + `]]}`
	for name, body := range map[string]string{"wide": wide, "tall": tall} {
		_, err := Parse("depth-estimation", nil, "application/json", []byte(body), endpoints.Spool{})
		if err == nil || !strings.Contains(err.Error(), "megapixels") {
			t.Errorf("%s tensor (%d bytes): err = %v, want the size refused", name, len(body), err)
		}
	}
	res, err := Parse("depth-estimation", nil, "application/json", []byte(`{"predicted_depth": [[1, 2], [3]]}`), endpoints.Spool{})
	if err != nil || len(res.Blobs) != 1 {
		t.Fatalf("a ragged small tensor still renders: %v", err)
	}
}

// FuzzParseHFResponse feeds arbitrary answers for every task to the
// response mapping: it must return a Result or an error, never panic, and
// the Data it returns must be JSON (events and reports embed it).
func FuzzParseHFResponse(f *testing.F) {
	for i, body := range []string{
		`[{"label":"cat","score":0.9}]`, `[[{"label":"cat","score":0.9}]]`, `{"labels":["a"],"scores":[1]}`,
		`[{"label":"cat","score":0.9,"box":{"xmin":1,"ymin":2,"xmax":3,"ymax":4}}]`,
		`[{"label":"x","score":0.5,"mask":"iVBORw0KGgo="}]`, `{"depth":"iVBORw0KGgo="}`,
		`{"predicted_depth":[[[0,1],[2,3]]]}`, `[{"generated_text":"hi"}]`, `{"choices":[{"message":{"content":"hi"}}]}`,
		`[{"blob":"UklGRg==","content-type":"audio/wav","label":"a"}]`, `{"answer":"Paris","score":0.9}`,
		`[0.5, 0.1]`, `["yes", 1]`, `{"data":[{"b64_json":"iVBORw0KGgo="}]}`, `{"error":"boom"}`, `[null]`, `{}`, "\x89PNG",
	} {
		f.Add(uint8(i*7), "application/json", []byte(body))
	}
	f.Add(uint8(18), "", []byte(`{"predicted_depth": [[0,0,0], [], []]}`))
	f.Add(uint8(11), "image/png", []byte("\x89PNG\r\n\x1a\n"))
	f.Fuzz(func(t *testing.T, ti uint8, ctype string, body []byte) {
		task := hfAllTasks[int(ti)%len(hfAllTasks)]
		args := map[string]string{"sentences": "a\nb", "labels": "a,b", "text": "x"}
		res, err := Parse(task, args, ctype, body, endpoints.Spool{})
		if err != nil {
			return
		}
		if len(res.Data) > 0 && !json.Valid(res.Data) {
			t.Fatalf("%s: Data is not JSON: %q", task, res.Data)
		}
		for _, b := range res.Blobs {
			if len(b.Data) == 0 || b.MIME == "" {
				t.Fatalf("%s: empty blob or no MIME: %+v", task, b.MIME)
			}
		}
	})
}
