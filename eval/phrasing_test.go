package eval

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/chorusai/chorus/skills"
)

// TestBuiltinRequestsDoNotNameTheirTask guards the embedded suite's
// phrasing: a request says what the user wants, and the planner must
// work out which task does it. A request that names its gold task — the
// skill's name or any alias the catalog gives it, in any word form
// ("transcribe", "transcribed", "the transcript"; "classify this image")
// — measures string matching, not planning. Every task of the gold and of
// every alternative is checked; earlier turns of a multi-turn case are
// history, not the request, and are not.
func TestBuiltinRequestsDoNotNameTheirTask(t *testing.T) {
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, c := range s.Cases {
		bad := false
		words := requestWords(c.Request)
		var tasks []string
		for _, g := range c.golds() {
			for _, task := range g {
				if !slices.Contains(tasks, task.Task) {
					tasks = append(tasks, task.Task)
				}
			}
		}
		for _, task := range tasks {
			sk, ok := cat.Skill(task)
			if !ok {
				t.Fatalf("%s: %q is no skill", c.ID, task)
			}
			for _, name := range append([]string{sk.Name}, sk.Aliases...) {
				if phrase, ok := namesTask(words, nameWords(name)); ok {
					t.Errorf("%s names its task %s (%q, for %q): %q", c.ID, task, phrase, name, c.Request)
					bad = true
				}
			}
		}
		if bad {
			named++
		}
	}
	if named > 0 {
		t.Logf("%d of %d requests name a task of their gold or alternatives", named, len(s.Cases))
	}
}

// TestNamesTask pins the matching the phrasing guard relies on: word
// forms match, articles and pronouns between the words of a name are
// skipped, a file stands for its kind, and look-alike words do not match.
func TestNamesTask(t *testing.T) {
	for _, tc := range []struct {
		request, name string
		want          bool
	}{
		{"Transcribe {memo.wav}.", "transcribe", true},
		{"summarize the transcript", "transcription", true},
		{"what is said in {memo.wav}?", "transcribe", false},
		{"Translated, please", "translate", true},
		{"classify this image", "classify-image", true},
		{"Classify {pet.jpg}", "classify-image", true},
		{"what animal is in {pet.jpg}?", "classify-image", false},
		{"read it aloud", "read-aloud", true},
		{"read it to me", "read-aloud", false},
		{"draw their boxes on the picture", "draw-boxes", true},
		{"Generate an image of a fox", "generate-image", true},
		{"what would you capture here?", "caption", false},
		{"add captions", "caption", true},
		{"the same walls", "sam", false},
		{"run SAM on it", "sam", true},
		{"estimate the depth of the room", "estimate-depth", true},
		{"how far away are things?", "depth", false},
		{"segment {street.png}", "segmentation", true},
		{"my kid drew this", "draw", false},
		{"recognise faces", "recognition", true},
		{"soft outlines", "softedge", false},
		{"a text to speak", "text2speech", false},
		{"look up the tallest mountain", "lookup", false},
		{"look up the tallest mountain", "look-up", true},
	} {
		_, got := namesTask(requestWords(tc.request), nameWords(tc.name))
		if got != tc.want {
			t.Errorf("%q names %q: %v, want %v", tc.request, tc.name, got, tc.want)
		}
	}
}

// filePlaceholder is a suite file in a request: "{memo.wav}".
var filePlaceholder = regexp.MustCompile(`\{([^{}]+)\}`)

// requestWords are a request's words, lower case, with each file
// placeholder read as its kind ("{pet.jpg}" is "image"), so "classify
// {pet.jpg}" says "classify image".
func requestWords(request string) []string {
	request = filePlaceholder.ReplaceAllStringFunc(request, func(p string) string {
		if m, ok := skills.ModalityOfName(strings.Trim(p, "{}")); ok {
			return " " + string(m) + " "
		}
		return " file "
	})
	return nameWords(request)
}

// nameWords splits a skill name, an alias or a text into lower-case
// words, letters and digits apart: "read-aloud" is "read aloud",
// "text2speech" is "text 2 speech".
func nameWords(s string) []string {
	var out []string
	var w strings.Builder
	kind := 0 // 1 letters, 2 digits
	for _, r := range strings.ToLower(s) {
		k := 0
		switch {
		case unicode.IsLetter(r):
			k = 1
		case unicode.IsDigit(r):
			k = 2
		}
		if k != kind && w.Len() > 0 {
			out = append(out, w.String())
			w.Reset()
		}
		if kind = k; k != 0 {
			w.WriteRune(r)
		}
	}
	if w.Len() > 0 {
		out = append(out, w.String())
	}
	return out
}

// filler words may stand between the words of a name: "read it aloud",
// "detect the objects".
var filler = map[string]bool{
	"the": true, "a": true, "an": true, "this": true, "that": true, "these": true, "those": true,
	"it": true, "its": true, "them": true, "their": true, "my": true, "your": true, "our": true,
	"his": true, "her": true, "me": true, "us": true, "all": true, "some": true, "every": true, "each": true,
}

// namesTask reports whether the request's words contain the name's words
// in order, each in some word form, with only filler words between; it
// returns the matched phrase.
func namesTask(words, name []string) (string, bool) {
	if len(name) == 0 {
		return "", false
	}
	for start := range words {
		if !sameWord(words[start], name[0]) {
			continue
		}
		at, k := start+1, 1
		for k < len(name) && at < len(words) {
			switch {
			case sameWord(words[at], name[k]):
				k++
			case !filler[words[at]]:
				at = len(words) // a real word breaks the phrase
				continue
			}
			at++
		}
		if k == len(name) {
			return strings.Join(words[start:min(at, len(words))], " "), true
		}
	}
	return "", false
}

// sameWord reports whether two words are forms of one word: equal, or
// a stem of at least four letters followed in each by an ending
// ("transcribe"/"transcribed", "summary"/"summarize",
// "segment"/"segmentation", "recognise"/"recognition"; not
// "caption"/"capture", "soft"/"softedge"). Words of three letters or
// fewer (abbreviations: "sam", "tts") match only themselves and their
// plural.
func sameWord(a, b string) bool {
	if a == b || a == b+"s" || b == a+"s" {
		return true
	}
	if len(a) <= 3 || len(b) <= 3 {
		return false
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for p := n; p >= 4; p-- {
		if endings[a[p:]] && endings[b[p:]] {
			return true
		}
	}
	return false
}

// endings are the English word endings sameWord strips.
var endings = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`_ s es e ed d ing er ers or ors ion ions ation ations ition itions
		ication ications ise ize ised ized ises izes ising izing isation ization y ies ied ity ify ary al ly ment ments`) {
		endings[strings.Trim(e, "_")] = true
	}
}
