package testkit

import (
	"strings"
	"unicode"
)

// Words splits text into the words a word error rate counts: lower case,
// letters, digits and apostrophes; punctuation dropped.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// WordErrorRate is the word error rate of hyps against refs, pair by
// pair: the substitutions, deletions and insertions of the cheapest edit
// of each hypothesis into its reference, over the reference words. It can
// pass 1 when a recogniser invents words.
func WordErrorRate(refs, hyps []string) float64 {
	edits, words := 0, 0
	for i, ref := range refs {
		r, h := Words(ref), []string(nil)
		if i < len(hyps) {
			h = Words(hyps[i])
		}
		edits += editDistance(r, h)
		words += len(r)
	}
	if words == 0 {
		return 0
	}
	return float64(edits) / float64(words)
}

// editDistance is the Levenshtein distance between two word lists.
func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
