package testkit

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
)

// PathForms writes the file p (absolute; rel from the working folder,
// tilde from ~) in the ways a plan or an argument value may carry it to a
// task, by form name: the pipeline's stages (planning's validator,
// execution's argument gate) each ask every form of them. Scope's own
// table (TestGateForms) has every form against the gate alone.
func PathForms(p, rel, tilde string) map[string]string {
	arr, _ := json.Marshal([]string{p})
	return map[string]string{
		"absolute":          p,
		"~":                 tilde,
		"relative":          rel,
		"./":                "./" + rel,
		"../":               "../" + filepath.Base(filepath.Dir(p)) + "/" + rel,
		"file:///":          "file://" + p,
		"file://localhost/": "file://localhost" + p,
		"percent-encoded":   strings.ReplaceAll(url.PathEscape(p), "/", "%2F"),
		"%2e%2e":            "%2e%2e/" + filepath.Base(filepath.Dir(p)) + "/" + rel,
		"in a sentence":     "please use " + p + ", thanks",
		"after key=":        "--input=" + p,
		"JSON array":        string(arr),
		"before a NUL":      p + "\x00.txt",
		"ending in a NUL":   p + "\x00",
	}
}
