package chat

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// hostname goes into file:// links so a terminal on another machine (ssh)
// can tell the file is not local, as the OSC 8 convention asks.
var hostname = func() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}()

// FileURL returns the file:// URL of path.
func FileURL(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	u := url.URL{Scheme: "file", Host: hostname, Path: filepath.ToSlash(path)}
	return u.String()
}

// Hyperlink wraps text in an OSC 8 hyperlink to target. Terminals without
// OSC 8 show the text alone.
func Hyperlink(target, text string) string {
	return ansi.SetHyperlink(target) + text + ansi.ResetHyperlink()
}

// linkPaths turns every occurrence of one of paths in rendered lines into
// a hyperlink, so the paths Glamour printed in the answer's Files section
// open with a click. A path cut by wrapping stays plain text.
func linkPaths(lines []string, paths []string) []string {
	if len(paths) == 0 {
		return lines
	}
	var out []string
	for _, l := range lines {
		for _, p := range paths {
			if p == "" || !strings.Contains(l, p) || strings.Contains(l, "\x1b]8;") {
				continue
			}
			l = strings.ReplaceAll(l, p, Hyperlink(FileURL(p), p))
		}
		out = append(out, l)
	}
	return out
}
