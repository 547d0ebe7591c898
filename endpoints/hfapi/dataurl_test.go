package hfapi

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
)

// TestDecodeFileDataURLs: a data: URL's own type wins over the caller's,
// percent-encoded data decodes, and a broken URL or an empty file is an
// error, whatever kind of endpoint met it.
func TestDecodeFileDataURLs(t *testing.T) {
	wav := []byte("RIFF\x24\x00\x00\x00WAVEfmt " + strings.Repeat("\x00", 40))
	b64 := base64.StdEncoding.EncodeToString(wav)
	for _, tc := range []struct{ in, mt, want, data string }{
		{"data:audio/wav;base64," + b64, "image/png", "audio/wav", string(wav)},
		{"  data:audio/wav;base64," + b64 + "\n", "", "audio/wav", string(wav)},
		{"data:;base64," + b64, "audio/wav", "audio/wav", string(wav)},
		{"data:text/plain;charset=utf-8,caf%C3%A9%20au%20lait", "", "text/plain", "café au lait"},
		{"data:,hello", "", "application/octet-stream", "hello"},
		{b64, "", "audio/wav", string(wav)},
	} {
		b, err := DecodeFile([]byte(tc.in), tc.mt, endpoints.Spool{})
		if err != nil || b.MIME != tc.want || !bytes.Equal(b.Data, []byte(tc.data)) {
			t.Errorf("%.40q: %v, %s, %q; want %s, %q", tc.in, err, b.MIME, b.Data, tc.want, tc.data)
		}
	}
	for _, in := range []string{"data:image/png;base64", "data:image/png;base64,", "data:text/plain,100%", "data:image/png;base64,@@@@", ""} {
		if b, err := DecodeFile([]byte(in), "", endpoints.Spool{}); err == nil {
			t.Errorf("%q decoded: %s %q", in, b.MIME, b.Data)
		}
	}
	_, err := DecodeFile([]byte("data:audio/wav;base64,"+b64), "", endpoints.Spool{Dir: t.TempDir(), InMemory: 8, Max: 16})
	if !errors.Is(err, endpoints.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}
