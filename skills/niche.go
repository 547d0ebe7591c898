package skills

import (
	"slices"
	"strings"
	"unicode"
)

// nicheWords are words in a model's id or description that mark a
// special-purpose model, with what it is for. The Hub's most downloaded
// models for a general task are often such models (an NSFW filter tops
// image-classification, a table finder object-detection), and a sync
// brings them in unmarked.
var nicheWords = []struct {
	words []string
	note  string
}{
	{[]string{"nsfw", "porn"}, "tells safe from NSFW content, nothing else"},
	{[]string{"table", "tables"}, "finds tables in documents, nothing else"},
	{[]string{"age"}, "guesses a person's age, nothing else"},
	{[]string{"gender"}, "guesses a person's gender, nothing else"},
	{[]string{"emotion", "emotions", "fer", "fer2013"}, "reads facial or textual emotion, nothing else"},
	{[]string{"deepfake", "ai-generated", "aigc"}, "tells real images from generated ones, nothing else"},
	{[]string{"xray", "x-ray", "chest", "radiology", "medical"}, "reads medical images, nothing else"},
}

// words splits s into lower-case words at anything but letters and
// digits (so "stable-diffusion" holds "stable", not "table").
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// GuessNiche says what m is specially for, judged from the words of its id
// and description, or "" when nothing marks it. A word the skill itself
// is about (its name, aliases or description) marks nothing: an NSFW
// filter is the general model of an NSFW-detection skill.
func (s *Skill) GuessNiche(m Model) string {
	have := map[string]bool{}
	for _, w := range append(words(m.ID), words(m.Description)...) {
		have[w] = true
	}
	about := map[string]bool{}
	for _, w := range words(s.Name + " " + strings.Join(s.Aliases, " ") + " " + s.Description + " " + s.Brief) {
		about[w] = true
	}
	// has reports whether every word of w (split like the text, so
	// "x-ray" is two) is in set.
	has := func(set map[string]bool, w string) bool {
		for _, p := range words(w) {
			if !set[p] {
				return false
			}
		}
		return true
	}
	for _, n := range nicheWords {
		if slices.ContainsFunc(n.words, func(w string) bool { return has(about, w) }) {
			continue // the skill is about this: it is no niche here
		}
		if slices.ContainsFunc(n.words, func(w string) bool { return has(have, w) }) {
			return n.note
		}
	}
	return ""
}
