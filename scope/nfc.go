package scope

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Names compare Unicode-normalised (NFC): "café" written with a combining
// accent (e + U+0301) names the file "café" written composed, because the
// MCP filesystem server (server-filesystem's resolveUnicodeEquivalentPath)
// reads it so when the spelling as written names nothing. The gate, and
// every grant, reads a name the same way, so a spelling cannot name a file
// for the tool and nothing for the gate.

// dirNames are a folder's entries by their NFC form, read once per gate.
type dirNames struct {
	byNFC map[string]string
	// other: some entry is not ASCII, so an ASCII name may still have an
	// NFC twin (the Kelvin sign K is K); without one, an ASCII name that
	// is not there as written is not there.
	other bool
}

// maxEntries bounds the entries of one folder read for NFC twins.
const maxEntries = 1 << 16

// nfcResolve is the real path of p (absolute) when it names nothing as
// written: cleaned, and each name that is not there as written matched to
// the folder's entry of the same NFC form, links followed as it goes.
// cache (nil for none) keeps the folders read.
func nfcResolve(p string, cache map[string]*dirNames) (string, error) {
	notFound := &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
	cur := "/"
	for part := range strings.SplitSeq(filepath.Clean(p), "/") {
		if part == "" {
			continue
		}
		next := filepath.Join(cur, part)
		if _, err := os.Lstat(next); err != nil {
			twin, ok := nfcTwin(cur, part, cache)
			if !ok {
				return "", notFound
			}
			next = filepath.Join(cur, twin)
		}
		real, err := filepath.EvalSymlinks(next)
		if err != nil {
			return "", err
		}
		cur = real
	}
	return cur, nil
}

// nfcTwin is the entry of dir whose NFC form is name's.
func nfcTwin(dir, name string, cache map[string]*dirNames) (string, bool) {
	d := cache[dir]
	if d == nil {
		d = readNames(dir)
		if cache != nil && len(cache) < maxSeen {
			cache[dir] = d
		}
	}
	if !d.other && isASCII(name) {
		return "", false
	}
	twin, ok := d.byNFC[norm.NFC.String(name)]
	return twin, ok
}

// readNames reads dir's entries by their NFC form (the first of twins).
func readNames(dir string) *dirNames {
	d := &dirNames{byNFC: map[string]string{}}
	f, err := os.Open(dir)
	if err != nil {
		return d
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxEntries)
	for _, n := range names {
		if !isASCII(n) {
			d.other = true
		}
		k := norm.NFC.String(n)
		if _, dup := d.byNFC[k]; !dup {
			d.byNFC[k] = n
		}
	}
	return d
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
