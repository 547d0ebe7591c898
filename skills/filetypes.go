package skills

import (
	"bytes"
	"mime"
	"net/http"
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

// Sniff tells what content holds from its first bytes (512 are enough):
// its media type and modality, "" and "" when it is not recognisable media
// or text. The bytes decide, not a name or a server's Content-Type: a
// result is kept under the type it really has.
func Sniff(head []byte) (mediaType string, m Modality) {
	if mt := sniffExtra(head); mt != "" {
		return mt, ModalityOfMIME(mt)
	}
	mt := CanonicalMIME(http.DetectContentType(head))
	switch {
	case mt == "application/octet-stream":
		return "", ""
	case mt == "text/plain" && looksJSON(head):
		return "application/json", Text
	}
	return mt, ModalityOfMIME(mt)
}

// sniffExtra recognises what http.DetectContentType does not: FLAC, MP3
// without an ID3 tag, the ISO-BMFF brands of M4A, HEIC and AVIF, TIFF and
// Matroska.
func sniffExtra(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("fLaC")):
		return "audio/flac"
	case len(b) >= 2 && b[0] == 0xFF && (b[1]&0xE0) == 0xE0 && (b[1]&0x06) != 0:
		return "audio/mpeg" // an MPEG audio frame header
	case bytes.HasPrefix(b, []byte("II*\x00")) || bytes.HasPrefix(b, []byte("MM\x00*")):
		return "image/tiff"
	case len(b) >= 12 && string(b[4:8]) == "ftyp":
		switch brand := string(b[8:12]); brand {
		case "M4A ", "M4B ":
			return "audio/mp4"
		case "heic", "heix", "mif1", "msf1":
			return "image/heic"
		case "avif", "avis":
			return "image/avif"
		case "qt  ":
			return "video/quicktime"
		case "isom", "iso2", "mp41", "mp42", "avc1", "dash", "M4V ":
			return "video/mp4"
		}
	case bytes.HasPrefix(b, []byte{0x1A, 0x45, 0xDF, 0xA3}) && bytes.Contains(b, []byte("matroska")):
		return "video/x-matroska"
	}
	return ""
}

// looksJSON reports whether b starts like a JSON object or array: a
// bracket, then what may follow one ("[Desktop Entry]" does not).
func looksJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] != '{' && t[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	if len(rest) == 0 {
		return true
	}
	switch c := rest[0]; {
	case c == '"' || c == '{' || c == '[' || c == ']' || c == '}' || c == '-' || c >= '0' && c <= '9':
		return true
	case bytes.HasPrefix(rest, []byte("true")) || bytes.HasPrefix(rest, []byte("false")) || bytes.HasPrefix(rest, []byte("null")):
		return true
	}
	return false
}
