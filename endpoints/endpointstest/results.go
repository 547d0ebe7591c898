package endpointstest

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/chorusai/chorus/endpoints"
)

// WantText checks that a Result's text is want and that it keeps the raw
// JSON answer in Data.
func WantText(want string) func(*testing.T, endpoints.Result) {
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

// WantBlob checks that a Result holds one file of type mime, and then its
// bytes with check (when not nil).
func WantBlob(mime string, check func(*testing.T, []byte)) func(*testing.T, endpoints.Result) {
	return func(t *testing.T, r endpoints.Result) {
		t.Helper()
		if len(r.Blobs) != 1 || r.Blobs[0].MIME != mime {
			t.Fatalf("Blobs = %d (%v), want one %s", len(r.Blobs), BlobTypes(r), mime)
		}
		if check != nil {
			check(t, r.Blobs[0].Data)
		}
	}
}

// BlobTypes lists the types of a Result's files, for messages.
func BlobTypes(r endpoints.Result) []string {
	types := make([]string, len(r.Blobs))
	for i, b := range r.Blobs {
		types[i] = b.MIME
	}
	return types
}

// ProgressLog collects the progress an endpoint reports, from any
// goroutine: pass its Add as Request.Progress.
type ProgressLog struct {
	mu   sync.Mutex
	list []endpoints.Progress
}

// Add records one report.
func (p *ProgressLog) Add(x endpoints.Progress) {
	p.mu.Lock()
	p.list = append(p.list, x)
	p.mu.Unlock()
}

// All returns the reports so far, in order.
func (p *ProgressLog) All() []endpoints.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.list)
}

// Summarize is a summarization request of model with a two-sentence text,
// reporting progress to progress (which may be nil).
func Summarize(model string, progress func(endpoints.Progress)) endpoints.Request {
	return endpoints.Request{Task: "summarization", Model: model, Args: map[string]string{"text": "One. Two."}, Progress: progress}
}
