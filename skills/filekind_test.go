package skills

import (
	"strings"
	"testing"
)

// A skill file's file kinds and synonyms are checked at load, with the
// field named, like every other field.
func TestFileKindsAndSynonymsAreValidated(t *testing.T) {
	base := "name: t\ndescription: d\noutputs: [image]\nmodels: []\n"
	for _, c := range []struct{ yaml, want string }{
		{"args:\n  - {name: mask, type: image, kind: annotated}\n", `kind "annotated"`},
		{"args:\n  - {name: labels, type: text, kind: mask}\n", `kind "mask"`},
		{"args:\n  - {name: image, type: image}\nfiles: audio\n", `files "audio"`},
		{"args:\n  - {name: image, type: image}\n  - {name: labels, type: text, synonyms: [image]}\n", `synonym "image"`},
		{"args:\n  - {name: a, type: text, synonyms: [x]}\n  - {name: b, type: text, synonyms: [x]}\n", `synonym "x"`},
	} {
		_, err := Parse([]byte(base + c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one naming %s", c.yaml, err, c.want)
		}
	}
	s, err := Parse([]byte(base + "files: mask\nargs:\n  - {name: mask, type: image, kind: mask, synonyms: [mask_image]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.ProducedKind(Image) != FileMask || s.ProducedKind(Audio) != FileKind(Audio) {
		t.Fatalf("ProducedKind = %s, %s", s.ProducedKind(Image), s.ProducedKind(Audio))
	}
}
