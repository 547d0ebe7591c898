package execution

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// extFor picks a file extension for a produced blob.
func extFor(mt string, data []byte) string {
	base, _, _ := mime.ParseMediaType(mt)
	if base == "" || base == "application/octet-stream" || base == "binary/octet-stream" {
		base, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	if ext := skills.ExtOfMIME(base); ext != "" {
		return ext
	}
	return ".bin"
}

// fixedExt is the file extension a task's file is given in advance: the
// one the same kind of task produced last on this engine, else the usual
// one of its modality.
func (x *Executor) fixedExt(task string, m skills.Modality) string {
	if x.Exts != nil {
		if v, ok := x.Exts.Load(task); ok {
			return v.(string)
		}
	}
	switch m {
	case skills.Audio:
		return ".wav"
	case skills.Video:
		return ".mp4"
	}
	return ".png"
}

// FixPath returns the path Chorus fixes in advance for task's file, or ""
// when the answer would need more than that path: the option is off, the
// task produces text (or several kinds of output), a tool or the
// controller runs it, or it makes an image a vision controller would look
// at when it answers.
func (x *Executor) FixPath(task flow.Task) string {
	if !x.EarlyAnswer {
		return ""
	}
	s, ok := x.Catalog.Skill(task.Task)
	if !ok || s.Tool != nil || s.Controller || len(s.Outputs) != 1 || !s.Outputs[0].Media() {
		return ""
	}
	m := s.Outputs[0]
	if m == skills.Image && x.CanSee {
		return ""
	}
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	name := fmt.Sprintf("%s-%s-%d-%s%s", time.Now().Format("20060102-150405"), safeName(task.Task), task.ID, hex.EncodeToString(suffix[:]), x.fixedExt(task.Task, m))
	return filepath.Join(x.OutDir, name)
}

// writeFixed stores a task's first file at the path fixed for it in
// advance (FixPath) when its type has that path's extension, and
// remembers the extension the task produced for the next fixed path. It
// returns "" (and no error) when the file must go elsewhere: another type,
// or a name that is taken.
func (x *Executor) writeFixed(r *flow.TaskRun, b endpoints.Blob) (string, error) {
	ext, err := blobExt(b)
	if err != nil {
		return "", err
	}
	if x.Exts != nil {
		x.Exts.Store(r.Task.Task, ext)
	}
	if ext != filepath.Ext(r.Fixed) {
		return "", nil
	}
	f, err := os.OpenFile(r.Fixed, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", nil
	}
	f.Close()
	if err := b.SaveAs(r.Fixed); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", r.Fixed, err)
	}
	return r.Fixed, nil
}

// writeBlob stores b under dir with a unique name and an extension that
// matches its type, and returns the absolute path. A blob spooled to a
// temporary file is moved, not read into memory; a write that fails (a
// full disk) leaves no empty or partial file behind.
func writeBlob(dir, task string, id int, b endpoints.Blob) (string, error) {
	ext, err := blobExt(b)
	if err != nil {
		return "", err
	}
	var suffix [3]byte
	for {
		_, _ = rand.Read(suffix[:])
		name := fmt.Sprintf("%s-%s-%d-%s%s", time.Now().Format("20060102-150405"), safeName(task), id, hex.EncodeToString(suffix[:]), ext)
		p := filepath.Join(dir, name)
		// The name is reserved first, so two results never share it.
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			b.Remove()
			return "", fmt.Errorf("cannot write the result file: %w", err)
		}
		f.Close()
		if err := b.SaveAs(p); err != nil {
			return "", fmt.Errorf("cannot write %s: %w", p, err)
		}
		return p, nil
	}
}

// blobExt is the extension b is stored under, from its MIME type and
// first bytes (extFor); a blob that cannot be read is removed.
func blobExt(b endpoints.Blob) (string, error) {
	head, err := blobHead(b)
	if err != nil {
		b.Remove()
		return "", fmt.Errorf("cannot read the result file: %w", err)
	}
	return extFor(b.MIME, head), nil
}

// blobHead returns the first bytes of b, for telling its type.
func blobHead(b endpoints.Blob) ([]byte, error) {
	if b.Path == "" {
		return b.Data, nil
	}
	f, err := os.Open(b.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, endpoints.SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}
