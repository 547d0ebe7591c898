package openai_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/openai"
)

// cdn answers every download with size bytes of a PNG's signature and
// padding, as a provider's CDN would serve a result file.
type cdn struct{ size int }

func (c cdn) RoundTrip(r *http.Request) (*http.Response, error) {
	body := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, c.size)...)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"image/png"}},
		Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
}

// TestResultURLOnACDN: a server that answers with a URL on another
// origin (a CDN) has the file fetched as a task result, into the spool;
// one larger than the bound is refused saying so — as the Hugging Face
// providers' results are (one download for both, hfapi.FetchResult), not
// as a failed download to try again.
func TestResultURLOnACDN(t *testing.T) {
	srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[{"url":"https://cdn.example.com/out/lighthouse.png"}]}`))
	}))
	for _, tc := range []struct {
		name string
		size int
		want string
	}{
		{"fits", 1 << 10, ""},
		{"too large", 2 << 20, "is larger than the 1.0 MB Chorus accepts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep := openai.New(openai.Options{Servers: []openai.Server{{URL: srv, Models: map[string][]string{"text-to-image": {"sd"}}}},
				MaxBodyBytes: 1 << 20, TempDir: t.TempDir(), DownloadTransport: cdn{tc.size}})
			res, err := ep.Infer(context.Background(), endpointstest.Request(t, "text-to-image", "sd", map[string]string{"text": "a lighthouse"}))
			defer res.Discard()
			if tc.want == "" {
				if err != nil || len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" {
					t.Fatalf("res %+v, err %v; want the PNG", res, err)
				}
				return
			}
			if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "cdn.example.com") {
				t.Fatalf("err %v, want ErrUnavailable saying the result %s", err, tc.want)
			}
		})
	}
}
