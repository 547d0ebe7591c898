package local

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakehf"
)

// hfFiles writes sample inputs and returns their paths.
type hfFiles struct{ png, wav, mp4, txt string }

func writeHFFiles(t *testing.T) hfFiles {
	t.Helper()
	dir := t.TempDir()
	f := hfFiles{
		png: filepath.Join(dir, "cat.png"),
		wav: filepath.Join(dir, "hello.wav"),
		mp4: filepath.Join(dir, "clip.mp4"),
		txt: filepath.Join(dir, "notes.txt"),
	}
	for p, data := range map[string][]byte{
		f.png: fakehf.PNG(40, 30),
		f.wav: fakehf.WAV(8000, 16000),
		f.mp4: fakehf.MP4("clip"),
		f.txt: []byte("just some words, not a picture\n"),
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func hfSameFile(t *testing.T, body []byte, path string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("request body is not the raw bytes of %s (%d vs %d bytes)", path, len(body), len(want))
	}
}

func hfWantText(want string) func(*testing.T, endpoints.Result) {
	return func(t *testing.T, r endpoints.Result) {
		t.Helper()
		if r.Text != want {
			t.Errorf("Text = %q, want %q", r.Text, want)
		}
		if len(r.Data) == 0 || !json.Valid(r.Data) {
			t.Errorf("Data = %q, want the raw JSON", r.Data)
		}
	}
}

func hfWantBlob(mime string, check func(*testing.T, []byte)) func(*testing.T, endpoints.Result) {
	return func(t *testing.T, r endpoints.Result) {
		t.Helper()
		if len(r.Blobs) != 1 || r.Blobs[0].MIME != mime {
			t.Fatalf("Blobs = %d (%v), want one %s", len(r.Blobs), hfBlobTypes(r), mime)
		}
		if check != nil {
			check(t, r.Blobs[0].Data)
		}
	}
}

func hfBlobTypes(r endpoints.Result) []string {
	var out []string
	for _, b := range r.Blobs {
		out = append(out, b.MIME)
	}
	return out
}

func hfImageSize(w, h int) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		t.Helper()
		gw, gh, err := fakehf.ImageSize(data)
		if err != nil || gw != w || gh != h {
			t.Errorf("image is %dx%d (%v), want %dx%d", gw, gh, err, w, h)
		}
	}
}

// hfProgressLog collects progress reports from any goroutine.
type hfProgressLog struct {
	mu   sync.Mutex
	list []endpoints.Progress
}

func (p *hfProgressLog) add(x endpoints.Progress) {
	p.mu.Lock()
	p.list = append(p.list, x)
	p.mu.Unlock()
}

func (p *hfProgressLog) all() []endpoints.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]endpoints.Progress(nil), p.list...)
}

func hfSummarize(model string, progress func(endpoints.Progress)) endpoints.Request {
	return endpoints.Request{Task: "summarization", Model: model, Args: map[string]string{"text": "One. Two."}, Progress: progress}
}
