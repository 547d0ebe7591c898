package fakeopenai

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/fakehf"
)

func form(t *testing.T, fields map[string]string, files map[string][]byte) (*bytes.Buffer, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	for k, v := range files {
		f, _ := w.CreateFormFile(k, k+".bin")
		_, _ = f.Write(v)
	}
	_ = w.Close()
	return &b, w.FormDataContentType()
}

func errorOf(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	var e struct {
		Error struct {
			Message, Type, Code string
		} `json:"error"`
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 && (json.Unmarshal(body, &e) != nil || e.Error.Message == "" || e.Error.Type == "") {
		t.Fatalf("error body %s is not OpenAI's shape", body)
	}
	return resp.StatusCode, e.Error.Code
}

// TestFakeRefusesWhatServersRefuse: the fake parses the multipart forms
// and JSON bodies and refuses missing fields, wrong content types,
// unknown models and keys with OpenAI's status codes and error bodies.
func TestFakeRefusesWhatServersRefuse(t *testing.T) {
	s := New(t, "m")
	s.RequireKey("k")
	do := func(path, ctype string, body io.Reader, key string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, s.URL+path, body)
		req.Header.Set("Content-Type", ctype)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	png := fakehf.PNG(4, 4)
	cases := []struct {
		name, path string
		body       func() (io.Reader, string)
		key        string
		status     int
		code       string
	}{
		{"no key", "/v1/images/generations", func() (io.Reader, string) { return strings.NewReader(`{"model":"m","prompt":"x"}`), "application/json" }, "", 401, "invalid_api_key"},
		{"unknown model", "/v1/images/generations", func() (io.Reader, string) { return strings.NewReader(`{"model":"z","prompt":"x"}`), "application/json" }, "k", 404, "model_not_found"},
		{"edit as JSON", "/v1/images/edits", func() (io.Reader, string) { return strings.NewReader(`{"model":"m","prompt":"x"}`), "application/json" }, "k", 400, "invalid_form"},
		{"edit without image", "/v1/images/edits", func() (io.Reader, string) {
			b, ct := form(t, map[string]string{"model": "m", "prompt": "x"}, nil)
			return b, ct
		}, "k", 400, "missing_required_parameter"},
		{"edit of a non-image", "/v1/images/edits", func() (io.Reader, string) {
			b, ct := form(t, map[string]string{"model": "m", "prompt": "x"}, map[string][]byte{"image": []byte("text")})
			return b, ct
		}, "k", 400, "invalid_image"},
		{"edit without prompt", "/v1/images/edits", func() (io.Reader, string) {
			b, ct := form(t, map[string]string{"model": "m"}, map[string][]byte{"image": png})
			return b, ct
		}, "k", 400, "missing_required_parameter"},
		{"transcription without file", "/v1/audio/transcriptions", func() (io.Reader, string) {
			b, ct := form(t, map[string]string{"model": "m"}, map[string][]byte{"audio": []byte("x")})
			return b, ct
		}, "k", 400, "missing_required_parameter"},
		{"transcription without model", "/v1/audio/transcriptions", func() (io.Reader, string) {
			b, ct := form(t, nil, map[string][]byte{"file": []byte("x")})
			return b, ct
		}, "k", 400, "missing_required_parameter"},
		{"speech with an unknown voice", "/v1/audio/speech", func() (io.Reader, string) {
			return strings.NewReader(`{"model":"m","input":"hi","voice":"nobody"}`), "application/json"
		}, "k", 400, "invalid_value"},
		{"chat image that is a URL", "/v1/chat/completions", func() (io.Reader, string) {
			return strings.NewReader(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"http://x/a.png"}}]}]}`), "application/json"
		}, "k", 400, "invalid_image_url"},
		{"edit", "/v1/images/edits", func() (io.Reader, string) {
			b, ct := form(t, map[string]string{"model": "m", "prompt": "x"}, map[string][]byte{"image": png})
			return b, ct
		}, "k", 200, ""},
	}
	for _, c := range cases {
		body, ct := c.body()
		status, code := errorOf(t, do(c.path, ct, body, c.key))
		if status != c.status || code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.name, status, code, c.status, c.code)
		}
	}
}
