package pipeline

import (
	"slices"
	"testing"
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
		got := slices.ContainsFunc(requestWords(tc.request), func(w string) bool { return namesModel(w, tc.id) })
		if got != tc.names {
			t.Errorf("%q names %s = %v, want %v (words %q)", tc.request, tc.id, got, tc.names, requestWords(tc.request))
		}
	}
}
