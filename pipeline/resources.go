package pipeline

import (
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/chorusai/chorus/skills"
)

var extModality = map[string]skills.Modality{
	".png": skills.Image, ".jpg": skills.Image, ".jpeg": skills.Image, ".gif": skills.Image, ".webp": skills.Image,
	".bmp": skills.Image, ".tif": skills.Image, ".tiff": skills.Image, ".heic": skills.Image,
	".wav": skills.Audio, ".mp3": skills.Audio, ".flac": skills.Audio, ".ogg": skills.Audio, ".oga": skills.Audio,
	".m4a": skills.Audio, ".aac": skills.Audio, ".opus": skills.Audio, ".weba": skills.Audio,
	".mp4": skills.Video, ".mov": skills.Video, ".mkv": skills.Video, ".webm": skills.Video, ".avi": skills.Video,
	".m4v": skills.Video, ".mpeg": skills.Video, ".mpg": skills.Video,
	".txt": skills.Text, ".md": skills.Text, ".csv": skills.Text, ".json": skills.Text, ".tsv": skills.Text,
}

// ModalityOf guesses what a file holds from its extension, then from its
// first bytes. It returns "" when the file is none of text, image, audio or
// video.
func ModalityOf(path string) skills.Modality {
	if m, ok := extModality[strings.ToLower(filepath.Ext(path))]; ok {
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
	return modalityOfMIME(http.DetectContentType(head[:n]))
}

func modalityOfMIME(mt string) skills.Modality {
	mt, _, _ = mime.ParseMediaType(mt)
	switch {
	case strings.HasPrefix(mt, "image/"):
		return skills.Image
	case strings.HasPrefix(mt, "audio/"), mt == "application/ogg":
		return skills.Audio
	case strings.HasPrefix(mt, "video/"):
		return skills.Video
	case strings.HasPrefix(mt, "text/"), mt == "application/json":
		return skills.Text
	}
	return ""
}

// extFor picks a file extension for a produced blob.
func extFor(mt string, data []byte) string {
	base, _, _ := mime.ParseMediaType(mt)
	if base == "" || base == "application/octet-stream" || base == "binary/octet-stream" {
		base, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	known := map[string]string{
		"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/bmp": ".bmp",
		"image/tiff": ".tiff", "audio/flac": ".flac", "audio/x-flac": ".flac", "audio/wav": ".wav", "audio/x-wav": ".wav",
		"audio/wave": ".wav", "audio/vnd.wave": ".wav", "audio/mpeg": ".mp3", "audio/ogg": ".ogg", "application/ogg": ".ogg",
		"audio/webm": ".weba", "audio/mp4": ".m4a", "video/mp4": ".mp4", "video/webm": ".webm", "video/quicktime": ".mov",
		"video/x-matroska": ".mkv", "text/plain": ".txt", "application/json": ".json",
	}
	if ext, ok := known[base]; ok {
		return ext
	}
	if exts, _ := mime.ExtensionsByType(base); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}
