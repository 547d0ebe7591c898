package skills

import (
	"mime"
	"path/filepath"
	"strings"
)

// fileType is one row of the file-type table: an extension, the media type
// Chorus gives it, and what it holds.
type fileType struct {
	ext      string
	mime     string
	modality Modality
}

// fileTypes is Chorus's one table of the file kinds it recognises by name.
// The first row of a media type gives the extension a produced file of that
// type is saved with. Every part of Chorus that asks "what is this file"
// or "what do I call these bytes" reads it, so a preview, a plan check and
// an upload never disagree about a .heic or a .weba.
var fileTypes = []fileType{
	{".png", "image/png", Image},
	{".jpg", "image/jpeg", Image},
	{".jpeg", "image/jpeg", Image},
	{".gif", "image/gif", Image},
	{".webp", "image/webp", Image},
	{".bmp", "image/bmp", Image},
	{".tiff", "image/tiff", Image},
	{".tif", "image/tiff", Image},
	{".heic", "image/heic", Image},
	{".heif", "image/heif", Image},
	{".avif", "image/avif", Image},
	{".wav", "audio/wav", Audio},
	{".mp3", "audio/mpeg", Audio},
	{".flac", "audio/flac", Audio},
	{".ogg", "audio/ogg", Audio},
	{".oga", "audio/ogg", Audio},
	{".opus", "audio/ogg", Audio},
	{".m4a", "audio/mp4", Audio},
	{".aac", "audio/aac", Audio},
	{".weba", "audio/webm", Audio},
	{".mp4", "video/mp4", Video},
	{".webm", "video/webm", Video},
	{".mov", "video/quicktime", Video},
	{".mkv", "video/x-matroska", Video},
	{".avi", "video/x-msvideo", Video},
	{".m4v", "video/x-m4v", Video},
	{".mpeg", "video/mpeg", Video},
	{".mpg", "video/mpeg", Video},
	{".txt", "text/plain", Text},
	{".md", "text/markdown", Text},
	{".csv", "text/csv", Text},
	{".tsv", "text/tab-separated-values", Text},
	{".json", "application/json", Text},
}

// mimeAliases are other names servers use for a type in the table.
var mimeAliases = map[string]string{
	"audio/x-wav": "audio/wav", "audio/wave": "audio/wav", "audio/vnd.wave": "audio/wav",
	"audio/x-flac": "audio/flac", "application/ogg": "audio/ogg", "audio/x-m4a": "audio/mp4",
	"image/jpg": "image/jpeg", "image/x-ms-bmp": "image/bmp", "audio/mp3": "audio/mpeg",
}

// CanonicalMIME returns the base media type of mt (parameters dropped,
// lower case) under the name the table uses ("audio/x-wav" → "audio/wav").
func CanonicalMIME(mt string) string {
	base, _, err := mime.ParseMediaType(mt)
	if err != nil {
		base = strings.ToLower(strings.TrimSpace(mt))
	}
	if a, ok := mimeAliases[base]; ok {
		return a
	}
	return base
}

// ModalityOfName tells what a file holds from its extension alone; ok is
// false for an extension the table does not know.
func ModalityOfName(path string) (m Modality, ok bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, ft := range fileTypes {
		if ft.ext == ext {
			return ft.modality, true
		}
	}
	return "", false
}

// MIMEOfName returns the media type of a file name's extension, "" when the
// table does not know it.
func MIMEOfName(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	for _, ft := range fileTypes {
		if ft.ext == ext {
			return ft.mime
		}
	}
	return ""
}

// ModalityOfMIME tells what content of media type mt holds, "" when it is
// none of text, image, audio or video.
func ModalityOfMIME(mt string) Modality {
	base := CanonicalMIME(mt)
	for _, ft := range fileTypes {
		if ft.mime == base {
			return ft.modality
		}
	}
	switch {
	case strings.HasPrefix(base, "image/"):
		return Image
	case strings.HasPrefix(base, "audio/"):
		return Audio
	case strings.HasPrefix(base, "video/"):
		return Video
	case strings.HasPrefix(base, "text/"):
		return Text
	}
	return ""
}

// ExtOfMIME returns the extension a file of media type mt is saved with,
// "" when neither the table nor the system knows one.
func ExtOfMIME(mt string) string {
	base := CanonicalMIME(mt)
	for _, ft := range fileTypes {
		if ft.mime == base {
			return ft.ext
		}
	}
	if exts, _ := mime.ExtensionsByType(base); len(exts) > 0 {
		return exts[0]
	}
	return ""
}
