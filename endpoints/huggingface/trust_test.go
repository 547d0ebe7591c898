package huggingface

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/scope"
)

// TestHFReadsOnlyGivenFiles: a media argument that names a file the
// executor did not hand over in Files — a system file, a key under ~, a
// path an expert wrote — is refused: nothing is read, nothing is sent, and
// the error names the argument and how to allow it, never the contents.
func TestHFReadsOnlyGivenFiles(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/cap", "image-to-text")
	srv.Model("m/asr", "automatic-speech-recognition")
	ep := newTestHF(srv, Options{})
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY----- secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ task, model, arg, path string }{
		{"image-to-text", "m/cap", "image", "/etc/passwd"},
		{"image-to-text", "m/cap", "image", "~/.ssh/id_rsa"},
		{"image-to-text", "m/cap", "image", "../../.ssh/id_rsa"},
		{"automatic-speech-recognition", "m/asr", "audio", secret},
	} {
		req := endpoints.Request{Task: tc.task, Model: tc.model, Args: map[string]string{tc.arg: tc.path}}
		_, err := ep.Infer(context.Background(), req)
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) {
			t.Fatalf("%s: err = %v, want a refusal (ErrBadInput, scope.ErrDenied)", tc.path, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "argument "+tc.arg) || !strings.Contains(msg, tc.path) || !strings.Contains(msg, "--attach") || strings.Contains(msg, "PRIVATE KEY") {
			t.Errorf("%s: the refusal should name the argument, the path and the fix, never the contents: %q", tc.path, msg)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}

	// Files decides what is read, whatever Args says: the checked file's
	// bytes are what is sent.
	f := testkit.WriteInputs(t)
	req := endpointstest.Request(t, "image-to-text", "m/cap", map[string]string{"image": f.PNG})
	req.Args["image"] = secret
	if _, err := ep.Infer(context.Background(), req); err != nil {
		t.Fatalf("Infer: %v", err)
	}
	got := srv.RequestsFor("m/cap")
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	testkit.SameFile(t, got[0].Body, f.PNG)

	// A checked file deleted before the call is reported as such.
	gone := filepath.Join(t.TempDir(), "gone.png")
	if err := os.WriteFile(gone, fakehf.PNG(2, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	req = endpointstest.Request(t, "image-to-text", "m/cap", map[string]string{"image": gone})
	os.Remove(gone)
	if _, err := ep.Infer(context.Background(), req); !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), "gone.png does not exist") {
		t.Errorf("deleted file: err = %v", err)
	}
}

// TestHFAnswerOverLimitIsRefusedEarly: an answer whose Content-Length is
// over the limit is refused before its body is read — the fake gets to
// write only what fits in socket buffers — and one without a length is
// refused once the count passes the limit. Neither leaves a file.
func TestHFAnswerOverLimitIsRefusedEarly(t *testing.T) {
	const mb = 1 << 20
	srv := fakehf.New(t)
	declared := srv.Model("m/declared", "text-to-image").LargeBody("image/png", 256*mb, false)
	chunked := srv.Model("m/chunked", "text-to-image").LargeBody("image/png", 256*mb, true)
	tmp := t.TempDir()
	ep := newTestHF(srv, Options{MaxBodyBytes: 32 * mb, TempDir: tmp})

	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/declared", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !errors.Is(err, endpoints.ErrTooLarge) || !strings.Contains(err.Error(), "refused without being read") ||
		!strings.Contains(err.Error(), "256.0 MB") || !strings.Contains(err.Error(), "32.0 MB") {
		t.Fatalf("declared: err = %v, want a refusal naming the size and the limit", err)
	}
	// Wait for the fake's handler to give up on the closed connection.
	deadline := time.Now().Add(10 * time.Second)
	for inFlight(srv) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sent := declared.BytesSent(); sent >= 32*mb {
		t.Errorf("the fake wrote %d MB of a body refused by its Content-Length", sent/mb)
	}

	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/chunked", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !errors.Is(err, endpoints.ErrTooLarge) || !strings.Contains(err.Error(), "once that much had arrived") {
		t.Fatalf("chunked: err = %v, want a refusal once the limit passed", err)
	}
	for inFlight(srv) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if sent := chunked.BytesSent(); sent >= 128*mb {
		t.Errorf("the fake wrote %d MB; reading should stop at the 32 MB limit", sent/mb)
	}
	if left := testkit.DirNames(t, tmp); len(left) != 0 {
		t.Errorf("refused answers left %v", left)
	}
}

// inFlight reports whether the fake is still answering a request.
func inFlight(srv *fakehf.Server) bool {
	for _, r := range srv.Requests() {
		if r.End.IsZero() {
			return true
		}
	}
	return false
}

// TestHFLargeAnswerIsSpooled: a large file answer, as a body or as base64
// in JSON, comes back as a temporary file, not in memory; Discard removes
// it.
func TestHFLargeAnswerIsSpooled(t *testing.T) {
	const size = 12 << 20
	srv := fakehf.New(t)
	srv.Model("m/body", "text-to-image").LargeBody("image/png", size, false)
	srv.Model("m/json", "text-to-image").LargeJSONImage(size)
	tmp := t.TempDir()
	ep := newTestHF(srv, Options{TempDir: tmp})
	for model, want := range map[string]int64{"m/body": size, "m/json": size * 3 / 4} {
		res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: model, Args: map[string]string{"text": "x"}})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if len(res.Blobs) != 1 {
			t.Fatalf("%s: %d blobs", model, len(res.Blobs))
		}
		b := res.Blobs[0]
		if b.Path == "" || b.Data != nil || filepath.Dir(b.Path) != tmp || b.MIME != "image/png" {
			t.Fatalf("%s: blob %s in %q with %d bytes in memory, want an image/png temporary file in %s", model, b.MIME, b.Path, len(b.Data), tmp)
		}
		if n, err := b.Size(); err != nil || n != want {
			t.Errorf("%s: the file has %d bytes (%v), want %d", model, n, err, want)
		}
		res.Discard()
		if left := testkit.DirNames(t, tmp); len(left) != 0 {
			t.Errorf("%s: Discard left %v", model, left)
		}
	}
}

// TestHFCutOffAnswerIsNotUnreachable: a body that ends before its
// Content-Length — the server or a proxy died mid-answer — is reported as
// cut off, not as a server that cannot be reached, and leaves no file.
func TestHFCutOffAnswerIsNotUnreachable(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/small", "text-to-image").LargeBody("image/png", 4000, false).CutOff(2000)
	srv.Model("m/large", "text-to-image").LargeBody("image/png", 16<<20, false).CutOff(8 << 20)
	srv.Model("m/json", "summarization").CutOff(10)
	tmp := t.TempDir()
	ep := newTestHF(srv, Options{TempDir: tmp})
	for model, task := range map[string]string{"m/small": "text-to-image", "m/large": "text-to-image", "m/json": "summarization"} {
		_, err := ep.Infer(context.Background(), endpoints.Request{Task: task, Model: model, Args: map[string]string{"text": "One. Two."}})
		if err == nil || errors.Is(err, endpoints.ErrUnreachable) || !errors.Is(err, endpoints.ErrUnavailable) {
			t.Fatalf("%s: err = %v, want ErrUnavailable and not ErrUnreachable", model, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "cut off") || strings.Contains(msg, "not reachable") || !strings.Contains(msg, "closed the connection") {
			t.Errorf("%s: err = %q, want it to say the answer was cut off", model, msg)
		}
	}
	if left := testkit.DirNames(t, tmp); len(left) != 0 {
		t.Errorf("cut-off answers left %v", left)
	}
}

// TestHFLoadingLongerThanMaxWait: when Hugging Face estimates a load
// longer than max_wait, the call gives up at once with the estimate rather
// than waiting max_wait for nothing.
func TestHFLoadingLongerThanMaxWait(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/slow", "summarization").LoadingFor(5, 340)
	start := time.Now()
	_, err := newTestHF(srv, Options{MaxWait: time.Minute}).Infer(context.Background(), endpointstest.Summarize("m/slow", nil))
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("gave up after %v, want at once", elapsed)
	}
	if !errors.Is(err, endpoints.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"m/slow is loading on Hugging Face", "about 5m40s", "longer than huggingface.max_wait (1m0s)", "try again later or raise it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want %q", err, want)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
