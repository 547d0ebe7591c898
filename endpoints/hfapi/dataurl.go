package hfapi

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"

	"github.com/chorusai/chorus/endpoints"
)

// DecodeFile decodes a file an answer carries inline — base64, or a data:
// URL (RFC 2397) — into a Blob through spool. Base64 comes padded or not,
// with line breaks or without; a data: URL's media type is the file's
// type, else mt, else what the bytes look like. Every endpoint kind reads
// inline files here. Not base64, a malformed data: URL or nothing at all
// is an error; so is a file over the spool's limit (ErrTooLarge) or one
// it cannot store (ErrStore).
func DecodeFile(payload []byte, mt string, spool endpoints.Spool) (endpoints.Blob, error) {
	payload = bytes.TrimSpace(payload)
	b64 := true
	if rest, ok := bytes.CutPrefix(payload, []byte("data:")); ok {
		meta, data, found := bytes.Cut(rest, []byte(","))
		if !found {
			return endpoints.Blob{}, errors.New("malformed data URL: no comma before the data")
		}
		meta, b64 = bytes.CutSuffix(meta, []byte(";base64"))
		if t, _, err := mime.ParseMediaType(string(meta)); err == nil {
			mt = t
		}
		payload = data
		if !b64 {
			// Percent-encoded bytes: small by nature, decoded in memory.
			s, err := url.PathUnescape(string(data))
			if err != nil {
				return endpoints.Blob{}, fmt.Errorf("malformed data URL: %w", err)
			}
			payload = []byte(s)
		}
	}
	var dec io.Reader = bytes.NewReader(payload)
	if b64 {
		// Padded base64 comes in groups of four; unpadded may not. Line
		// breaks, which the decoder skips, do not count.
		enc := base64.StdEncoding
		if n := len(payload) - bytes.Count(payload, []byte("\n")) - bytes.Count(payload, []byte("\r")); n%4 != 0 {
			enc = base64.RawStdEncoding
		}
		dec = base64.NewDecoder(enc, dec)
	}
	return spoolFile(spool, dec, mt)
}

// spoolFile copies a file's decoded bytes from dec to the spool, naming
// corrupt base64 and an empty file as such; the Blob's MIME type is mt,
// or what its first bytes say.
func spoolFile(spool endpoints.Spool, dec io.Reader, mt string) (endpoints.Blob, error) {
	b, head, err := spool.Copy(dec)
	var corrupt base64.CorruptInputError
	switch {
	case errors.As(err, &corrupt):
		return endpoints.Blob{}, fmt.Errorf("file is not valid base64: %w", err)
	case err != nil:
		return endpoints.Blob{}, fmt.Errorf("file: %w", err)
	case len(head) == 0:
		b.Remove()
		return endpoints.Blob{}, errors.New("empty file")
	}
	b.MIME = BlobMIME(mt, head)
	return b, nil
}
