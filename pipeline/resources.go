package pipeline

import (
	"io"
	"mime"
	"net/http"
	"os"

	"github.com/chorusai/chorus/skills"
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
	if !isRegularFile(path) {
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
