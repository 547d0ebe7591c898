package hfapi

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"

	"github.com/chorusai/chorus/endpoints"
)

// DecodeFileFrom is DecodeFile for an inline file read from r as it
// arrives — a spooled JSON string (endpoints.SpooledJSON.Open) — so a file
// of hundreds of megabytes is decoded to the spool without being held:
// base64, padded or not, with line breaks or without, or a base64 data:
// URL.
func DecodeFileFrom(r io.Reader, mt string, spool endpoints.Spool) (endpoints.Blob, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(5); bytes.Equal(head, []byte("data:")) {
		meta, err := br.ReadSlice(',')
		if err != nil {
			return endpoints.Blob{}, errors.New("malformed data URL: no comma before the data")
		}
		meta = bytes.TrimSuffix(bytes.TrimPrefix(meta, []byte("data:")), []byte(","))
		meta, b64 := bytes.CutSuffix(meta, []byte(";base64"))
		if !b64 {
			// Percent-encoded bytes are small by nature.
			rest, err := io.ReadAll(io.LimitReader(br, 1<<20))
			if err != nil {
				return endpoints.Blob{}, err
			}
			return DecodeFile(append(append([]byte("data:"), append(meta, ',')...), rest...), mt, spool)
		}
		if t, _, err := mime.ParseMediaType(string(meta)); err == nil {
			mt = t
		}
	}
	// Padding is dropped and the rest read as unpadded base64, so both
	// forms decode without knowing the length first; line breaks the
	// decoder skips itself.
	return spoolFile(spool, base64.NewDecoder(base64.RawStdEncoding, unpadded{br}), mt)
}

// unpadded drops base64 padding ('=') and surrounding blanks as it reads.
type unpadded struct{ r io.Reader }

func (u unpadded) Read(p []byte) (int, error) {
	for {
		n, err := u.r.Read(p)
		k := 0
		for _, c := range p[:n] {
			if c != '=' && c != ' ' && c != '\t' {
				p[k] = c
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}
