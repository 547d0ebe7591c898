package command

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/chorusai/chorus/endpoints"
)

// languages maps ISO 639-1 codes to ISO 639-3 (what apertium's newer pairs
// are named by: eng-spa) and to the English name a plan may write instead
// of a code ("Spanish").
var languages = []struct{ iso1, iso3, name string }{
	{"af", "afr", "afrikaans"}, {"an", "arg", "aragonese"}, {"ar", "ara", "arabic"}, {"be", "bel", "belarusian"},
	{"bg", "bul", "bulgarian"}, {"bn", "ben", "bengali"}, {"br", "bre", "breton"}, {"bs", "bos", "bosnian"},
	{"ca", "cat", "catalan"}, {"cs", "ces", "czech"}, {"cy", "cym", "welsh"}, {"da", "dan", "danish"},
	{"de", "deu", "german"}, {"el", "ell", "greek"}, {"en", "eng", "english"}, {"eo", "epo", "esperanto"},
	{"es", "spa", "spanish"}, {"et", "est", "estonian"}, {"eu", "eus", "basque"}, {"fa", "fas", "persian"},
	{"fi", "fin", "finnish"}, {"fr", "fra", "french"}, {"ga", "gle", "irish"}, {"gl", "glg", "galician"},
	{"he", "heb", "hebrew"}, {"hi", "hin", "hindi"}, {"hr", "hrv", "croatian"}, {"hu", "hun", "hungarian"},
	{"hy", "hye", "armenian"}, {"id", "ind", "indonesian"}, {"is", "isl", "icelandic"}, {"it", "ita", "italian"},
	{"ja", "jpn", "japanese"}, {"ka", "kat", "georgian"}, {"kk", "kaz", "kazakh"}, {"ko", "kor", "korean"},
	{"lt", "lit", "lithuanian"}, {"lv", "lav", "latvian"}, {"mk", "mkd", "macedonian"}, {"ms", "msa", "malay"},
	{"mt", "mlt", "maltese"}, {"nb", "nob", "norwegian bokmål"}, {"nl", "nld", "dutch"}, {"nn", "nno", "norwegian nynorsk"},
	{"no", "nor", "norwegian"}, {"oc", "oci", "occitan"}, {"pl", "pol", "polish"}, {"pt", "por", "portuguese"},
	{"ro", "ron", "romanian"}, {"ru", "rus", "russian"}, {"sk", "slk", "slovak"}, {"sl", "slv", "slovenian"},
	{"sq", "sqi", "albanian"}, {"sr", "srp", "serbian"}, {"sv", "swe", "swedish"}, {"sw", "swa", "swahili"},
	{"th", "tha", "thai"}, {"tr", "tur", "turkish"}, {"tt", "tat", "tatar"}, {"uk", "ukr", "ukrainian"},
	{"ur", "urd", "urdu"}, {"uz", "uzb", "uzbek"}, {"vi", "vie", "vietnamese"}, {"zh", "zho", "chinese"},
}

// langCode is a language code as a program takes it: two or three
// letters, maybe a region or variant ("pt_BR", "en-US").
var langCode = regexp.MustCompile(`^[a-z]{2,3}([-_][a-z0-9]{2,8})?$`)

// normalizeLang reads a language as a plan writes it — "es", "ES",
// "spa", "Spanish", "es-ES" — into a code: ISO 639-1 where the table
// knows the language, otherwise the code as given, lower case. ok is
// false for anything that is not a language code or name, so that no
// value of a language placeholder can be read as an option.
func normalizeLang(v string) (code string, ok bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	for _, l := range languages {
		if v == l.iso1 || v == l.iso3 || v == l.name {
			return l.iso1, true
		}
	}
	if !langCode.MatchString(v) {
		return "", false
	}
	base, _, _ := strings.Cut(strings.ReplaceAll(v, "_", "-"), "-")
	for _, l := range languages {
		if base == l.iso1 || base == l.iso3 {
			return l.iso1, true
		}
	}
	return v, true
}

// sameLang reports whether code (from normalizeLang) and a code in a
// program's pair listing ("eng", "en", "eng_US") name one language.
func sameLang(code, listed string) bool {
	listed, _, _ = strings.Cut(strings.ToLower(listed), "_")
	if listed == code {
		return true
	}
	for _, l := range languages {
		if l.iso1 == code && l.iso3 == listed {
			return true
		}
	}
	return false
}

// pair is one translation direction a program lists: its codes as the
// program writes them ("eng", "spa_US").
type pair struct{ src, tgt string }

func (p pair) String() string { return p.src + "-" + p.tgt }

// parsePairs reads a pair listing, one SRC-TGT per line (apertium -l).
func parsePairs(out string) []pair {
	var pairs []pair
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		src, tgt, ok := strings.Cut(line, "-")
		if !ok || !pairCode.MatchString(src) || !pairCode.MatchString(tgt) {
			continue
		}
		pairs = append(pairs, pair{src, tgt})
	}
	return pairs
}

var pairCode = regexp.MustCompile(`^[a-z]{2,3}(_[A-Za-z0-9]+)?$`)

// plainPairs are the pairs without a variant ("eng-spa", not
// "spa-eng_US"), shown as ISO 639-1 directions: "en→es".
func plainPairs(pairs []pair) []string {
	var out []string
	for _, p := range pairs {
		if strings.Contains(p.src+p.tgt, "_") {
			continue
		}
		s, _ := normalizeLang(p.src)
		t, _ := normalizeLang(p.tgt)
		out = append(out, s+"→"+t)
	}
	return out
}

// choosePair finds the installed pair for src → tgt (codes from
// normalizeLang), preferring one without a variant. An empty src is
// the source of the only pair into tgt. It fails with ErrUnavailable —
// another expert may have the pair — naming what is installed.
func choosePair(name string, pairs []pair, src, tgt string) (pair, error) {
	var found []pair
	for _, p := range pairs {
		if sameLang(tgt, p.tgt) && (src == "" || sameLang(src, p.src)) {
			found = append(found, p)
		}
	}
	slices.SortStableFunc(found, func(a, b pair) int {
		return strings.Count(a.String(), "_") - strings.Count(b.String(), "_")
	})
	if src == "" {
		sources := map[string]bool{}
		for _, p := range found {
			s, _ := normalizeLang(p.src)
			sources[s] = true
		}
		if len(sources) > 1 {
			return pair{}, fmt.Errorf("%w: %s has several pairs into %s — say which language the text is in (src_lang)", endpoints.ErrBadInput, name, tgt)
		}
	}
	if len(found) == 0 {
		want := tgt
		if src != "" {
			want = src + "→" + tgt
		}
		return pair{}, endpoints.Explain(fmt.Sprintf("%s has no %s pair installed (it has %s) — install the package of that pair",
			name, want, strings.Join(plainPairs(pairs), ", ")), endpoints.ErrUnavailable)
	}
	return found[0], nil
}
