package skills

import (
	"regexp"
	"slices"
	"strings"
)

// HubLicenses are the licence ids the Hugging Face Hub lets a model card
// declare (its `license:` field), which catalog entries use. A licence
// constraint names one of them or a licence some model of the catalog has;
// anything else names no licence at all (a controller's invention).
var HubLicenses = []string{
	"apache-2.0", "mit", "openrail", "bigscience-openrail-m", "creativeml-openrail-m", "bigscience-bloom-rail-1.0",
	"bigcode-openrail-m", "afl-3.0", "artistic-2.0", "bsl-1.0", "bsd", "bsd-2-clause", "bsd-3-clause",
	"bsd-3-clause-clear", "c-uda", "cc", "cc0-1.0", "cc-by-2.0", "cc-by-2.5", "cc-by-3.0", "cc-by-4.0", "cc-by-sa-3.0",
	"cc-by-sa-4.0", "cc-by-nc-2.0", "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0", "cc-by-nc-nd-3.0", "cc-by-nc-nd-4.0",
	"cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0", "cdla-sharing-1.0", "cdla-permissive-1.0",
	"cdla-permissive-2.0", "wtfpl", "ecl-2.0", "epl-1.0", "epl-2.0", "etalab-2.0", "eupl-1.1", "eupl-1.2", "agpl-3.0",
	"gfdl", "gpl", "gpl-2.0", "gpl-3.0", "lgpl", "lgpl-2.1", "lgpl-3.0", "isc", "h-research", "intel-research",
	"lppl-1.3c", "ms-pl", "apple-ascl", "apple-amlr", "mpl-2.0", "odc-by", "odbl", "openrail++", "osl-3.0",
	"postgresql", "ofl-1.1", "ncsa", "unlicense", "zlib", "pddl", "lgpl-lr", "deepfloyd-if-license",
	"fair-noncommercial-research-license", "llama2", "llama3", "llama3.1", "llama3.2", "llama3.3", "llama4", "gemma",
	"unknown", "other",
}

var (
	licenceWords   = regexp.MustCompile(`\b(?:the|license|licence|licensed|version)\b`)
	licenceVersion = regexp.MustCompile(`v(\d)`)
)

// licenseKey folds the ways a licence is written onto one key: "Apache
// License 2.0", "apache-2", "Apache v2" and "apache-2.0" all give apache2;
// "GPLv3" and "gpl-3.0" give gpl3.
func licenseKey(s string) string {
	k := licenceWords.ReplaceAllString(strings.ToLower(strings.TrimSpace(s)), "")
	k = strings.TrimSuffix(licenceVersion.ReplaceAllString(k, "$1"), ".0")
	k = strings.ReplaceAll(k, ".0-", "-")
	var b strings.Builder
	for _, r := range k {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '+' {
			b.WriteRune(r)
		}
	}
	return strings.TrimSuffix(b.String(), ".0")
}

// licenseAliases are names for a licence that its key does not give.
var licenseAliases = map[string]string{"apache": "apache-2.0", "mitlicense": "mit", "publicdomain": "cc0-1.0", "cc0": "cc0-1.0"}

// KnownLicense returns the id a licence written as s stands for, among
// HubLicenses and extra (the licences of the models at hand), and whether
// there is one.
func KnownLicense(s string, extra []string) (string, bool) {
	key := licenseKey(s)
	if key == "" {
		return "", false
	}
	if id, ok := licenseAliases[key]; ok {
		return id, true
	}
	for _, id := range slices.Concat(extra, HubLicenses) {
		if id != "" && licenseKey(id) == key {
			return strings.ToLower(id), true
		}
	}
	return "", false
}
