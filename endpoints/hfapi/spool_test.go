package hfapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
)

// TestRawTokenIsAView: decodeFile streams a base64 file straight out of
// the answer because encoding/json hands an Unmarshaler a view of its
// input rather than a copy. If that ever changes, large answers are held
// twice again — this test says so.
func TestRawTokenIsAView(t *testing.T) {
	doc := []byte(`{"data":[{"b64_json":"QUJD"}]}`)
	var out struct {
		Data []struct {
			B64 rawToken `json:"b64_json"`
		} `json:"data"`
	}
	if err := json.Unmarshal(doc, &out); err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte("QUJD"))
	doc[i] = 'Z'
	if string(out.Data[0].B64) != `"ZUJD"` {
		t.Fatalf("the token %s is a copy of the answer, not a view of it", out.Data[0].B64)
	}
}

// TestDecodeFile: base64 files in answers decode whatever their dress —
// padded or not, a data: URL, escaped slashes, line breaks — small ones
// into memory and large ones into a temporary file; junk is an error.
func TestDecodeFile(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n" + strings.Repeat("\x00\xff/?", 100))
	std := base64.StdEncoding.EncodeToString(png)
	raw := base64.RawStdEncoding.EncodeToString(png)
	tok := func(s string) rawToken { b, _ := json.Marshal(s); return b }
	escaped := rawToken(`"` + strings.ReplaceAll(std, "/", `\/`) + `"`)
	lined := tok(std[:60] + "\n" + std[60:])
	for name, in := range map[string]rawToken{
		"padded": tok(std), "unpadded": tok(raw), "data URL": tok("data:image/png;base64," + std),
		"escaped slashes": escaped, "line breaks": lined,
	} {
		b, err := decodeFile(in, "", endpoints.Spool{})
		if err != nil || !bytes.Equal(b.Data, png) || b.MIME != "image/png" {
			t.Errorf("%s: %v, %s, %d bytes", name, err, b.MIME, len(b.Data))
		}
	}
	for name, in := range map[string]rawToken{"junk": tok("@@@@"), "a number": rawToken("12"), "empty": tok("")} {
		if _, err := decodeFile(in, "", endpoints.Spool{}); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	dir := t.TempDir()
	b, err := decodeFile(tok(std), "", endpoints.Spool{Dir: dir, InMemory: 64})
	if err != nil || b.Path == "" || b.Data != nil {
		t.Fatalf("large: %+v %v, want a temporary file", b, err)
	}
	defer b.Remove()
	if got, err := b.Bytes(1 << 20); err != nil || !bytes.Equal(got, png) {
		t.Errorf("large read back: %v", err)
	}
	if _, err := decodeFile(tok(std), "", endpoints.Spool{Dir: dir, InMemory: 64, Max: 100}); !errors.Is(err, endpoints.ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
}

// TestReadMediaOnlyFromFiles: a media argument that is not in Files —
// whatever it names — is refused without reading it.
func TestReadMediaOnlyFromFiles(t *testing.T) {
	for _, p := range []string{"/etc/passwd", "~/.ssh/id_rsa", "../../.ssh/id_rsa"} {
		_, _, err := readMedia(endpoints.Request{Task: "image-classification", Args: map[string]string{"image": p}}, "image")
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) || !strings.Contains(err.Error(), "argument image ("+p+")") {
			t.Errorf("%s: err = %v, want a refusal", p, err)
		}
	}
}
