package pipeline

import (
	"mime"
	"net/http"

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
