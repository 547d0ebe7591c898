package fakehf

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func post(t *testing.T, url, ctype string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func errorField(t *testing.T, b []byte) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("error body %q is not HF's {\"error\": ...}: %v", b, err)
	}
	return e.Error
}

func TestUnknownModelIs404WithHFBody(t *testing.T) {
	s := New(t)
	resp, b := post(t, s.URL+"/models/nobody/nothing", "application/json", []byte(`{"inputs":"x"}`), nil)
	if resp.StatusCode != 404 || errorField(t, b) != "Model nobody/nothing does not exist" {
		t.Fatalf("got %d %s", resp.StatusCode, b)
	}
	if got := s.Requests(); len(got) != 1 || got[0].Model != "nobody/nothing" || got[0].Status != 404 {
		t.Fatalf("request log = %+v", got)
	}
}

func TestRequireToken(t *testing.T) {
	s := New(t)
	s.Model("m/x", "summarization")
	s.RequireToken("hf_good")
	for _, tc := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer hf_bad", 401}, {"Bearer hf_good", 200}} {
		resp, b := post(t, s.URL+"/models/m/x", "application/json", []byte(`{"inputs":"One. Two."}`), map[string]string{"Authorization": tc.auth})
		if resp.StatusCode != tc.want {
			t.Errorf("auth %q: status %d %s, want %d", tc.auth, resp.StatusCode, b, tc.want)
		}
		if tc.want == 401 && errorField(t, b) == "" {
			t.Errorf("auth %q: 401 without an error message", tc.auth)
		}
	}
}

func TestScriptedFailuresThenAnswer(t *testing.T) {
	s := New(t)
	m := s.Model("a/b", "text-classification").RateLimit(1).RetryAfter(3).LoadingFor(1, 12.5)
	resp, b := post(t, s.URL+"/models/a/b", "application/json", []byte(`{"inputs":"I hate this"}`), nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || !strings.Contains(errorField(t, b), "Rate limit") {
		t.Fatalf("first call: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	resp, b = post(t, s.URL+"/models/a/b", "application/json", []byte(`{"inputs":"I hate this"}`), nil)
	var loading struct {
		Error         string  `json:"error"`
		EstimatedTime float64 `json:"estimated_time"`
	}
	_ = json.Unmarshal(b, &loading)
	if resp.StatusCode != 503 || loading.Error != "Model a/b is currently loading" || loading.EstimatedTime != 12.5 {
		t.Fatalf("second call: %d %s", resp.StatusCode, b)
	}
	resp, b = post(t, s.URL+"/models/a/b", "application/json", []byte(`{"inputs":"I hate this"}`), nil)
	var out [][]struct {
		Label string  `json:"label"`
		Score float64 `json:"score"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil || out[0][0].Label != "NEGATIVE" {
		t.Fatalf("third call: %d %s", resp.StatusCode, b)
	}
	if m.Calls() != 3 {
		t.Fatalf("calls = %d", m.Calls())
	}
}

func TestAnswersDeriveFromInput(t *testing.T) {
	s := New(t)
	s.Model("cap", "image-to-text")
	s.Model("tts", "text-to-speech")
	s.Model("vqa", "visual-question-answering")

	resp, b := post(t, s.URL+"/models/cap", "image/png", PNG(40, 30), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "40x30") {
		t.Fatalf("caption: %d %s", resp.StatusCode, b)
	}
	resp, b = post(t, s.URL+"/models/cap", "image/png", []byte("not an image"), nil)
	if resp.StatusCode != 400 {
		t.Fatalf("bad image: %d %s", resp.StatusCode, b)
	}
	resp, b = post(t, s.URL+"/models/tts", "application/json", []byte(`{"inputs":"hello"}`), nil)
	n, rate, err := WAVInfo(b)
	if resp.StatusCode != 200 || err != nil || n != 5*160 || rate != 16000 || resp.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("tts: %d %v n=%d rate=%d", resp.StatusCode, err, n, rate)
	}
	body, _ := json.Marshal(map[string]any{"inputs": map[string]string{"image": base64.StdEncoding.EncodeToString(PNG(7, 9)), "question": "what?"}})
	resp, b = post(t, s.URL+"/models/vqa", "application/json", body, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "7x9") {
		t.Fatalf("vqa: %d %s", resp.StatusCode, b)
	}
	// The wrong shape is refused, as the real API refuses it.
	resp, _ = post(t, s.URL+"/models/vqa", "image/png", PNG(7, 9), nil)
	if resp.StatusCode != 400 {
		t.Fatalf("vqa with raw bytes: %d", resp.StatusCode)
	}
}

func TestHoldProvesOverlap(t *testing.T) {
	s := New(t)
	release := s.Model("slow", "summarization").Hold()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			post(t, s.URL+"/models/slow", "application/json", []byte(`{"inputs":"a. b."}`), nil)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.WaitInFlight(ctx, 2); err != nil {
		t.Fatal(err)
	}
	release()
	wg.Wait()
	reqs := s.Requests()
	if len(reqs) != 2 || !reqs[0].Start.Before(reqs[1].End) || !reqs[1].Start.Before(reqs[0].End) || s.MaxInFlight() != 2 {
		t.Fatalf("requests did not overlap: %+v", reqs)
	}
}

func TestJarvis(t *testing.T) {
	j := NewJarvis(t)
	j.Model("runwayml/stable-diffusion-v1-5", "text-to-image")
	j.Model("microsoft/trocr-base-printed", "image-to-text").Disable()

	get := func(path string) (int, string) {
		resp, err := http.Get(j.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	if code, b := get("/running"); code != 200 || b != `{"running":true}` {
		t.Fatalf("/running: %d %s", code, b)
	}
	for id, want := range map[string]string{
		"runwayml/stable-diffusion-v1-5": `{"loaded":true}`,
		"microsoft/trocr-base-printed":   `{"loaded":false}`,
		"not/there":                      `{"loaded":false}`,
	} {
		if code, b := get("/status/" + id); code != 200 || b != want {
			t.Errorf("/status/%s: %d %s, want %s", id, code, b, want)
		}
	}
	resp, b := post(t, j.URL+"/models/runwayml/stable-diffusion-v1-5", "application/json", []byte(`{"text":"a red fox"}`), nil)
	var out struct {
		Path string `json:"path"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &out) != nil || !strings.HasPrefix(out.Path, "/images/") {
		t.Fatalf("text-to-image: %d %s", resp.StatusCode, b)
	}
	data, err := os.ReadFile(filepath.Join(j.PublicDir(), out.Path))
	if err != nil {
		t.Fatal(err)
	}
	if w, h, err := ImageSize(data); err != nil || w != len("a red fox") || h != 8 {
		t.Fatalf("generated image %dx%d, %v", w, h, err)
	}
	// Not served unless asked, like Flask's models_server.
	if code, _ := get(out.Path); code != 404 {
		t.Fatalf("public file served by default: %d", code)
	}
	j.ServePublic(true)
	if code, _ := get(out.Path); code != 200 {
		t.Fatalf("public file not served: %d", code)
	}
	resp, b = post(t, j.URL+"/models/not/there", "application/json", []byte(`{"text":"x"}`), nil)
	if resp.StatusCode != 500 || !strings.Contains(string(b), "Internal Server Error") {
		t.Fatalf("unknown model: %d %s", resp.StatusCode, b)
	}
	resp, b = post(t, j.URL+"/models/microsoft/trocr-base-printed", "application/json", []byte(`{"img_url":"/does/not/exist.png","text":null}`), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "Error when running the model inference.") {
		t.Fatalf("missing input file: %d %s", resp.StatusCode, b)
	}
}

func TestMediaHelpers(t *testing.T) {
	if w, h, err := ImageSize(JPEG(12, 5)); err != nil || w != 12 || h != 5 {
		t.Fatalf("JPEG: %dx%d %v", w, h, err)
	}
	if http.DetectContentType(MP4("x")) != "video/mp4" {
		t.Fatalf("MP4 sniffs as %s", http.DetectContentType(MP4("x")))
	}
	if _, _, err := WAVInfo([]byte("RIFFxxxxWAVE")); err == nil {
		t.Fatal("WAVInfo accepted a file without chunks")
	}
}

func TestDelayAndFail(t *testing.T) {
	s := New(t)
	s.Model("slow", "summarization").Delay(30 * time.Millisecond)
	s.Model("flaky", "summarization").Fail(1, 502, "Bad Gateway")
	resp, _ := post(t, s.URL+"/models/slow", "application/json", []byte(`{"inputs":"a. b."}`), nil)
	r := s.RequestsFor("slow")[0]
	if resp.StatusCode != 200 || r.End.Sub(r.Start) < 30*time.Millisecond {
		t.Fatalf("delay: %d after %v", resp.StatusCode, r.End.Sub(r.Start))
	}
	// A client that gives up ends the delay early.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	s.Model("slower", "summarization").Delay(time.Hour)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/models/slower", strings.NewReader(`{"inputs":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("a one-hour delay answered within 20ms")
	}
	for i, want := range []int{502, 200} {
		resp, b := post(t, s.URL+"/models/flaky", "application/json", []byte(`{"inputs":"a. b."}`), nil)
		if resp.StatusCode != want {
			t.Fatalf("call %d: %d %s, want %d", i, resp.StatusCode, b, want)
		}
	}
	s.Model("custom", "summarization").Respond(func(r *http.Request, body []byte) (int, string, []byte) {
		return 201, "text/plain", append([]byte("echo:"), body...)
	})
	resp, b := post(t, s.URL+"/models/custom", "application/json", []byte(`{"inputs":"x"}`), nil)
	if resp.StatusCode != 201 || string(b) != `echo:{"inputs":"x"}` {
		t.Fatalf("Respond: %d %s", resp.StatusCode, b)
	}
}
