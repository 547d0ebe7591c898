package openai_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
)

// b64Stream is a JSON images answer, {"data":[{"b64_json": …}]}, whose
// base64 is that of a PNG-signed file of about size bytes, generated as it
// is read: a server's answer of any size without holding it.
func b64Stream(size int64) io.Reader {
	head := fakehf.PNG(2, 2)
	file := io.MultiReader(strings.NewReader(string(head)), io.LimitReader(zeros{}, size-int64(len(head))))
	pr, pw := io.Pipe()
	go func() {
		enc := base64.NewEncoder(base64.StdEncoding, pw)
		_, err := io.Copy(enc, file)
		if err == nil {
			err = enc.Close()
		}
		pw.CloseWithError(err)
	}()
	return io.MultiReader(strings.NewReader(`{"created":1,"data":[{"b64_json":"`), pr, strings.NewReader(`","revised_prompt":"p"}]}`))
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// bigJSONServer answers POST /v1/images/generations with a chunked JSON
// answer whose image is size bytes (its base64 a third more).
func bigJSONServer(t testing.TB, size int64) string {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, b64Stream(size)) // no Content-Length: chunked
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestJSONAnswersAreBounded (issue 17, 8): a JSON answer is read in
// bounded memory — peak heap under twice the configured limit — whether it
// is refused (2 GB, chunked, against a 16 MB limit) or accepted (an image
// of 10 MB as base64, 13 MB of JSON). An answer whose base64 stayed in
// memory peaked at 54 MB; at a 48 MB limit and a 30 MB image the race
// detector took 6 s to stream it (BenchmarkJSONAnswer measures 180 MB).
func TestJSONAnswersAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams hundreds of megabytes")
	}
	const limit = 16 << 20
	for _, tc := range []struct {
		name    string
		size    int64
		refused bool
	}{
		{"2GB chunked, refused", 2 << 30, true},
		{"10MB image, accepted", 10 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := bigJSONServer(t, tc.size)
			ep := openai.New(openai.Options{Servers: []openai.Server{{URL: srv, Models: map[string][]string{"text-to-image": {"sd"}}}},
				MaxBodyBytes: limit, TempDir: t.TempDir()})
			req := endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "big"})
			var res endpoints.Result
			var err error
			peak, _ := testkit.PeakHeap(func() { res, err = ep.Infer(context.Background(), req) })
			defer res.Discard()
			t.Logf("peak heap %d MB (limit %d MB)", peak>>20, limit>>20)
			switch {
			case tc.refused && !errors.Is(err, endpoints.ErrTooLarge) && !strings.Contains(fmt.Sprint(err), "more than"):
				t.Fatalf("err %v, want the answer refused for its size", err)
			case !tc.refused && err != nil:
				t.Fatal(err)
			case !tc.refused:
				if n, _ := res.Blobs[0].Size(); n != tc.size {
					t.Fatalf("image of %d bytes, want %d", n, tc.size)
				}
			}
			if peak >= 2*limit {
				t.Fatalf("peak heap %d MB, want under twice the %d MB limit", peak>>20, limit>>20)
			}
		})
	}
}

// BenchmarkJSONAnswer measures the heap a JSON answer costs at the default
// limits (JSON answers up to 256 MB): a 2 GB chunked answer, refused, and
// a 180 MB image as base64 (240 MB of JSON), accepted.
//
//	go test ./endpoints/openai -run XXX -bench JSONAnswer -benchtime 1x
func BenchmarkJSONAnswer(b *testing.B) {
	for _, tc := range []struct {
		name string
		size int64
	}{{"2GB-chunked-refused", 2 << 30}, {"180MB-image-accepted", 180 << 20}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := bigJSONServer(b, tc.size)
			ep := openai.New(openai.Options{Servers: []openai.Server{{URL: srv, Models: map[string][]string{"text-to-image": {"sd"}}}}, TempDir: b.TempDir()})
			var worst uint64
			for b.Loop() {
				peak, _ := testkit.PeakHeap(func() {
					res, _ := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "sd", Args: map[string]string{"text": "big"}})
					res.Discard()
				})
				worst = max(worst, peak)
			}
			b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
		})
	}
}
