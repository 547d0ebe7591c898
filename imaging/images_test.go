package imaging

import (
	"encoding/base64"
	"encoding/json"
	"image"
	"testing"
)

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pngBase64(t *testing.T, img image.Image) string {
	t.Helper()
	b, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Data)
}
