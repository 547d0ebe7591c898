package command_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
)

func TestCommandTesseractReadsText(t *testing.T) {
	testkit.NeedProgram(t, "tesseract", "tesseract-ocr")
	ep := command.New(command.Options{})
	img := testkit.TextImage(t, "HELLO CHORUS 42", 6)
	if err := ep.Check(context.Background(), "ocr", "tesseract"); err != nil {
		t.Fatalf("check: %v", err)
	}
	res, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "ocr", Model: "tesseract", Args: map[string]string{"image": img}}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "HELLO") || !strings.Contains(res.Text, "CHORUS") {
		t.Errorf("tesseract read %q, want HELLO CHORUS", res.Text)
	}
	// Reading text is no caption of a scene.
	if err := ep.Check(context.Background(), "image-to-text", "tesseract"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("tesseract for image-to-text: %v", err)
	}
	// The catalog's command with fixed arguments (a page segmentation mode).
	res, err = ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "ocr", Model: "tesseract",
		Command: []string{"tesseract", "--psm", "7"}, Args: map[string]string{"image": img}}))
	if err != nil || !strings.Contains(res.Text, "CHORUS") {
		t.Errorf("with --psm 7: %q, %v", res.Text, err)
	}
}

func TestCommandTesseractBadInput(t *testing.T) {
	testkit.NeedProgram(t, "tesseract", "tesseract-ocr")
	ep := command.New(command.Options{})
	notImage := filepath.Join(t.TempDir(), "-notes.png") // a name that looks like an option
	os.WriteFile(notImage, []byte("plain text"), 0o644)
	_, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "ocr", Model: "tesseract", Args: map[string]string{"image": notImage}}))
	if !errors.Is(err, endpoints.ErrBadInput) || endpoints.Retryable(err) {
		t.Errorf("not an image: %v", err)
	}
	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "ocr", Model: "tesseract", Args: map[string]string{"image": "/no/such/file.png"}})
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), "/no/such/file.png") {
		t.Errorf("missing file: %v", err)
	}
	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "ocr", Model: "tesseract", Args: map[string]string{}})
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), `"image"`) {
		t.Errorf("no image argument: %v", err)
	}
}

func TestCommandEspeakSpeaks(t *testing.T) {
	testkit.NeedProgram(t, "espeak-ng", "espeak-ng")
	ep := command.New(command.Options{})
	// Leading dashes, quotes and shell metacharacters must be spoken, not
	// taken as options or run.
	text := `--help "quoted" $(touch /tmp/pwned) & the quick brown fox jumps over the lazy dog`
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "espeak-ng", Args: map[string]string{"text": text}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Blobs) != 1 || res.Blobs[0].MIME != "audio/wav" {
		t.Fatalf("blobs = %d, want one audio/wav", len(res.Blobs))
	}
	testkit.CheckWAV(t, res.Blobs[0].Data, 2)
	if !strings.Contains(res.Text, "s of audio (WAV, 22.05 kHz mono)") {
		t.Errorf("text = %q", res.Text)
	}
	// The catalog's fixed arguments come first: a voice and a slow speed
	// make the same words longer.
	slow, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "espeak-ng",
		Command: []string{"espeak-ng", "-v", "en-us", "-s", "80"}, Args: map[string]string{"text": "the quick brown fox"}})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "espeak-ng",
		Command: []string{"espeak-ng", "-s", "300"}, Args: map[string]string{"text": "the quick brown fox"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(slow.Blobs[0].Data) <= len(fast.Blobs[0].Data) {
		t.Errorf("-s 80 gave %d bytes, -s 300 gave %d; the fixed arguments were not passed", len(slow.Blobs[0].Data), len(fast.Blobs[0].Data))
	}

	long := strings.Repeat("word ", 5000)
	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "espeak-ng", Args: map[string]string{"text": long}})
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), "summarise") {
		t.Errorf("over-long text: %v", err)
	}
}

func TestCommandOutputBound(t *testing.T) {
	testkit.NeedProgram(t, "espeak-ng", "espeak-ng")
	ep := command.New(command.Options{MaxOutputBytes: 100_000})
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-speech", Model: "espeak-ng",
		Args: map[string]string{"text": strings.Repeat("a long sentence to read aloud. ", 200)}})
	if err == nil || !strings.Contains(err.Error(), "output too large") {
		t.Errorf("a WAV over the limit should fail: %v", err)
	}
}

func TestCommandCancelKillsProgram(t *testing.T) {
	testkit.NeedProgram(t, "espeak-ng", "espeak-ng")
	pids := make(chan int, 1)
	ep := command.New(command.Options{
		MaxTextBytes: 1 << 20, MaxOutputBytes: 4 << 30,
		Started: func(_ string, pid int) { pids <- pid },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// About a minute of synthesis if nothing stopped it.
		_, err := ep.Infer(ctx, endpoints.Request{Task: "text-to-speech", Model: "espeak-ng",
			Args: map[string]string{"text": strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20000)}})
		done <- err
	}()
	var pid int
	select {
	case pid = <-pids:
	case err := <-done:
		t.Fatalf("ended before starting: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not stop espeak-ng")
	}
	// Infer has waited for the process, so it is gone, not left running.
	if alive, err := testkit.ProcessExists(pid); alive || err != nil {
		t.Errorf("espeak-ng (pid %d) still exists after cancel (%v)", pid, err)
	}
}

func TestCommandFFmpegVideoToAudio(t *testing.T) {
	testkit.NeedProgram(t, "ffmpeg", "ffmpeg")
	dir := t.TempDir()
	video := filepath.Join(dir, "clip.mkv")
	gen := exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=2",
		"-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-shortest", "-c:v", "ffv1", "-c:a", "pcm_s16le", video)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("make test video: %v\n%s", err, out)
	}
	ep := command.New(command.Options{})
	res, err := ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "video-to-audio", Model: "ffmpeg", Args: map[string]string{"video": video}}))
	if err != nil {
		t.Fatal(err)
	}
	testkit.CheckWAV(t, res.Blobs[0].Data, 1.5)
	if rate := binary.LittleEndian.Uint32(res.Blobs[0].Data[24:28]); rate != 16000 {
		t.Errorf("sample rate %d, want 16000", rate)
	}

	silent := filepath.Join(dir, "silent.mkv")
	gen = exec.Command("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-c:v", "ffv1", silent)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("make silent video: %v\n%s", err, out)
	}
	_, err = ep.Infer(context.Background(), endpointstest.WithFiles(t, endpoints.Request{Task: "video-to-audio", Model: "ffmpeg", Args: map[string]string{"video": silent}}))
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), "no sound track") {
		t.Errorf("video without sound: %v", err)
	}
}

func TestCommandCheckAndDiscover(t *testing.T) {
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	ep := command.New(command.Options{LookPath: missing})
	ctx := context.Background()
	err := ep.Check(ctx, "ocr", "tesseract")
	if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), "missing: tesseract is not installed (not on PATH) — apt-get install tesseract-ocr") {
		t.Errorf("missing tesseract: %v", err)
	}
	if err := ep.Check(ctx, "text-to-speech", "espeak-ng"); err == nil || !strings.Contains(err.Error(), "apt-get install espeak-ng") {
		t.Errorf("missing espeak-ng: %v", err)
	}
	if err := ep.Check(ctx, "automatic-speech-recognition", "pocketsphinx"); err == nil ||
		!strings.Contains(err.Error(), "pocketsphinx_continuous is not installed (not on PATH) — apt-get install pocketsphinx pocketsphinx-en-us") {
		t.Errorf("missing pocketsphinx: %v", err)
	}
	// A program not installed is still offered, so that a listing says
	// what to install; Check rules it out.
	if offers, _ := ep.Discover(ctx, "ocr"); len(offers) != 1 || offers[0].ID != "tesseract" {
		t.Errorf("ocr offers %v, want tesseract (to be excluded by its check)", offers)
	}
	if err := ep.Check(ctx, "automatic-speech-recognition", "whisper"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("an unknown program must be unsupported: %v", err)
	}
	if err := ep.Check(ctx, "text-to-speech", "tesseract"); !errors.Is(err, endpoints.ErrUnsupported) {
		t.Errorf("tesseract cannot speak: %v", err)
	}

	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	ep = command.New(command.Options{LookPath: found})
	offers, err := ep.Discover(ctx, "text-to-speech")
	if err != nil || len(offers) != 1 || offers[0].ID != "espeak-ng" || offers[0].License == "" {
		t.Errorf("tts offers = %+v, %v", offers, err)
	}
	if offers, _ := ep.Discover(ctx, "automatic-speech-recognition"); len(offers) != 1 || offers[0].ID != "pocketsphinx" || offers[0].Niche == "" || offers[0].Configured {
		t.Errorf("ASR offers %+v, want the pocketsphinx preset, niche, not configured", offers)
	}
}
