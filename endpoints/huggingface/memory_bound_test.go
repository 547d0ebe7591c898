package huggingface

import (
	"context"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
)

// TestAnswersAreBounded (issue 17, 8): every kind of answer Hugging Face's
// protocol brings — a file, a JSON answer with the file as base64 — is
// read in bounded memory, peak heap under twice the configured limit:
// refused at 2 GB, chunked, and accepted just under the limit.
func TestAnswersAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams hundreds of megabytes")
	}
	const mb = 1 << 20
	const limit = 48 * mb
	for _, tc := range []struct {
		name    string
		setup   func(*fakehf.ModelBehaviour)
		refused bool
	}{
		{"file 2GB chunked, refused", func(m *fakehf.ModelBehaviour) { m.LargeBody("image/png", 2<<30, true) }, true},
		{"JSON 2GB chunked, refused", func(m *fakehf.ModelBehaviour) { m.LargeJSONImage(2 << 30).Chunked() }, true},
		{"file 40MB, accepted", func(m *fakehf.ModelBehaviour) { m.LargeBody("image/png", 40*mb, true) }, false},
		{"JSON 30MB image, accepted", func(m *fakehf.ModelBehaviour) { m.LargeJSONImage(30 * mb).Chunked() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakehf.New(t)
			tc.setup(srv.Model("m/big", "text-to-image"))
			ep := newTestHF(srv, Options{MaxBodyBytes: limit, TempDir: t.TempDir()})
			var res endpoints.Result
			var err error
			peak, _ := testkit.PeakHeap(func() {
				res, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/big", Args: map[string]string{"text": "big"}})
			})
			defer res.Discard()
			t.Logf("peak heap %d MB (limit %d MB)", peak/mb, limit/mb)
			if (err != nil) != tc.refused {
				t.Fatalf("err = %v, refused %v", err, tc.refused)
			}
			if peak >= 2*limit {
				t.Fatalf("peak heap %d MB, want under twice the %d MB limit", peak/mb, limit/mb)
			}
		})
	}
}
