package flow

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// ModalityOf guesses what a file holds from its extension, then from its
// first bytes. It returns "" when the file is none of text, image, audio or
// video.
func ModalityOf(path string) skills.Modality {
	if m, ok := skills.ModalityOfName(path); ok {
		return m
	}
	// Only regular files are sniffed: opening a FIFO blocks until a
	// writer comes, and a device may never end.
	if !IsRegularFile(path) {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return skills.ModalityOfMIME(http.DetectContentType(head[:n]))
}

// IsRegularFile reports whether p names a regular file. Plans may only
// name those: a directory cannot be read as media, and opening a FIFO or a
// terminal device blocks until someone writes to it, which would hang the
// turn.
func IsRegularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// IsURL reports whether s is an http(s) URL (a media argument fetched
// through the scope).
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// WithArticle names a modality as a sentence does: "an image", "text".
func WithArticle(m skills.Modality) string {
	switch m {
	case skills.Image, skills.Audio, skills.Video:
		if m == skills.Image {
			return "an image"
		}
		return string(m)
	case skills.Text:
		return "text"
	}
	return "a " + string(m)
}

// maxTextFile bounds a text file read into a text argument.
const maxTextFile = 256 << 10

// TextFile reads a text argument that is exactly the path of a text
// file the turn may read ("summarize notes.txt", planned as text:
// /…/notes.txt): the task wants the words, not the file name. isFile is
// false when val is not such a path (the gate has refused one the turn
// may not read); err says why an allowed text file cannot be used — a task
// given the file's name instead of its words would silently answer about
// the wrong thing.
func TextFile(sc *scope.Scope, val string) (content string, isFile bool, err error) {
	p := strings.TrimSpace(val)
	if p == "" || strings.ContainsAny(p, "\n") || len(p) > 4096 || sc.Outside(p) != nil {
		return "", false, nil
	}
	f, err := sc.Check(p)
	if err != nil {
		return "", false, nil // not a file it may read: it is text
	}
	// What it holds is told from the file judged — a relative path from
	// the folder the scope read it from, not the process's.
	if checkedModality(p, f) != skills.Text {
		return "", false, nil
	}
	b, err := f.ReadAll(maxTextFile)
	switch {
	case errors.Is(err, scope.ErrTooLarge):
		size := int64(0)
		if st, serr := os.Stat(f.Path()); serr == nil {
			size = st.Size()
		}
		return "", true, fmt.Errorf("%s is %s; a text argument takes at most %d KB of a file — split it, or quote the part that matters",
			p, skills.HumanBytes(size), maxTextFile>>10)
	case err != nil:
		return "", true, fmt.Errorf("cannot read %s: %w", p, err)
	}
	// Text in another encoding keeps its ASCII; the rest shows as U+FFFD.
	return strings.ToValidUTF8(string(b), "\uFFFD"), true, nil
}

// checkedModality is ModalityOf for the checked file f, asked for as p:
// by p's name, else by the first bytes of the file the scope judged.
func checkedModality(p string, f scope.File) skills.Modality {
	if m, ok := skills.ModalityOfName(p); ok {
		return m
	}
	fh, err := f.Open() // a regular file only: a FIFO cannot hang the turn
	if err != nil {
		return ""
	}
	defer fh.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(fh, head)
	return skills.ModalityOfMIME(http.DetectContentType(head[:n]))
}

// maxControllerImage bounds an image file shown to a vision controller.
const maxControllerImage = 20 << 20

// ReadImages reads the images the turn may read, skipping the rest: an
// image the controller sees is an enhancement, never a reason to fail.
func ReadImages(sc *scope.Scope, paths []string) [][]byte {
	var out [][]byte
	for _, p := range paths {
		f, err := sc.Check(p)
		if err != nil {
			continue
		}
		b, err := f.ReadAll(maxControllerImage)
		if err != nil || len(b) == 0 {
			continue
		}
		out = append(out, b)
	}
	return out
}

// ArgReader is r for the argument k of skill s: a path, or a JSON list
// or object, as the tool's schema says.
func ArgReader(r scope.Reader, s *skills.Skill, k string) scope.Reader {
	if !r.Tool || s == nil || s.Tool == nil {
		return r
	}
	p := s.Tool.Params[k]
	r.Path, r.Structured = p.IsPath(), p.IsStructured()
	return r
}

// SkillBrief is the skill's one-line brief, or its description's first
// sentence when it has none.
func SkillBrief(s *skills.Skill) string {
	if s.Brief != "" {
		return s.Brief
	}
	return text.OneLine(firstSentence(s.Description), 100)
}

func firstSentence(d string) string {
	d = strings.Join(strings.Fields(d), " ")
	if i := strings.Index(d, ". "); i >= 0 {
		return d[:i+1]
	}
	return d
}
