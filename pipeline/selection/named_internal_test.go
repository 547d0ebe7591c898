package selection

import (
	"slices"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
)

// namesModel and requestWords together: what in a request names which
// model id, and what does not.
func TestRequestNamesModel(t *testing.T) {
	for _, tc := range []struct {
		request, id string
		names       bool
	}{
		{"use Salesforce/blip-image-captioning-large please", "Salesforce/blip-image-captioning-large", true},
		{"use blip-image-captioning-large.", "Salesforce/blip-image-captioning-large", true},
		{"use **`salesforce/BLIP-image-captioning-large`**,", "Salesforce/blip-image-captioning-large", true},
		{"use “blip-image-captioning-large”", "Salesforce/blip-image-captioning-large", true},
		{"with llava:13b?", "llava:13b", true},
		{"with llava", "llava:latest", true},
		{"with llava:latest", "llava", true},
		{"with llava", "llava:13b", false},
		{"with tesseract", "tesseract", true},
		{"resize it to 32x32", "chorus/resize", false},
		{"use chorus/resize", "chorus/resize", true},
		{"caption /data/Salesforce/blip-image-captioning-large/cat.png", "Salesforce/blip-image-captioning-large", false},
		{"caption ./Salesforce/blip-image-captioning-large", "Salesforce/blip-image-captioning-large", false},
		{"caption ~/blip-image-captioning-large", "Salesforce/blip-image-captioning-large", false},
		{"caption @blip-image-captioning-large", "Salesforce/blip-image-captioning-large", false},
		{"see https://hf.co/Salesforce/blip-image-captioning-large", "Salesforce/blip-image-captioning-large", false},
		{"use blip for it", "Salesforce/blip-image-captioning-large", false},
	} {
		got := slices.ContainsFunc(flow.RequestWords(tc.request), func(w string) bool { return flow.NamesModel(w, tc.id) })
		if got != tc.names {
			t.Errorf("%q names %s = %v, want %v (words %q)", tc.request, tc.id, got, tc.names, flow.RequestWords(tc.request))
		}
	}
}

// TestHubIDsNamed: the words of a request looked up on the Hub when the
// catalog does not list them — written as model ids, as written, once —
// and the words that are not: paths, URLs, "x/y" pairs of plain words.
func TestHubIDsNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		request string
		want    []string
	}{
		{"caption /p/cat.png with microsoft/git-base-coco please", []string{"microsoft/git-base-coco"}},
		{"use `Qwen/Qwen2-VL-7B-Instruct`, or qwen/qwen2-vl-7b-instruct.", []string{"Qwen/Qwen2-VL-7B-Instruct"}},
		{"transcribe it with (openai/whisper-large-v3).", []string{"openai/whisper-large-v3"}},
		{"yes/no and/or input/output TCP/IP km/h", nil},
		{"caption ./models/git-base-coco and ~/a/b-1 and https://hf.co/microsoft/git-base-coco", nil},
		{"caption photos/cat-1.png and notes/todo_2.txt", nil},
		{"draw it with black-forest-labs/FLUX.1-schnell!", []string{"black-forest-labs/FLUX.1-schnell"}},
	} {
		if got := hubIDsNamed(tc.request); !slices.Equal(got, tc.want) {
			t.Errorf("hubIDsNamed(%q) = %q, want %q", tc.request, got, tc.want)
		}
	}
}
