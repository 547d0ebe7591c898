package flow

import (
	"strings"
	"unicode"
)

// RequestWords are the words of a request that may name a model or state
// a preference, lower-cased and without the quotes, backticks, brackets
// and punctuation around them ("`Salesforce/blip-image-captioning-large`,"
// → salesforce/blip-image-captioning-large). Paths and URLs the user typed
// are left out: they name files, not models ("/tmp/fast-cars.png",
// "./models/llava:7b", "@cat.png", "https://…").
func RequestWords(request string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(request)) {
		w = strings.TrimLeft(w, "\"'`([{<*_“‘«")
		w = strings.TrimRight(w, "\"'`)]}>*_,;:!?.…”’»")
		if w == "" || IsPathWord(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// IsPathWord reports whether w, a word of a request, is written as a path
// or a URL rather than a model id: a model id has at most one slash and
// never starts with one.
func IsPathWord(w string) bool {
	switch {
	case strings.HasPrefix(w, "/"), strings.HasPrefix(w, "~"), strings.HasPrefix(w, "@"),
		strings.HasPrefix(w, "./"), strings.HasPrefix(w, "../"), strings.HasPrefix(w, "file:"):
		return true
	}
	return strings.Contains(w, "://") || strings.ContainsRune(w, '\\') || strings.Count(w, "/") > 1
}

// NamesModel reports whether word (from requestWords) names the model id:
// the id itself in any case; an Ollama model without its ":latest" tag
// (llava for llava:latest) or with it; or a Hub id without its
// organisation (blip-image-captioning-large), when that part is not a
// plain word — "resize" in a sentence names no model, "chorus/resize" does.
func NamesModel(word, id string) bool {
	id = strings.ToLower(id)
	if word == id || strings.TrimSuffix(word, ":latest") == strings.TrimSuffix(id, ":latest") {
		return true
	}
	org, name, ok := strings.Cut(id, "/")
	if !ok || org == "" || strings.Contains(name, "/") {
		return false
	}
	return word == name && strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) })
}
