package testkit

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/chorusai/chorus/internal/fakehf"
)

// WriteFile writes data into dir and returns the path.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// SameFile fails the test unless body holds exactly the bytes of the file
// at path: what a server should receive when a file is sent raw.
func SameFile(t testing.TB, body []byte, path string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("request body is not the raw bytes of %s (%d vs %d bytes)", path, len(body), len(want))
	}
}

// Inputs are sample input files of each kind, in a test's temporary
// directory.
type Inputs struct{ PNG, WAV, MP4, Text string }

// WriteInputs writes a 40×30 PNG, half a second of 16 kHz WAV, a small MP4 and
// a text file, as the fake Hugging Face servers expect them.
func WriteInputs(t testing.TB) Inputs {
	t.Helper()
	dir := t.TempDir()
	return Inputs{
		PNG:  WriteFile(t, dir, "cat.png", fakehf.PNG(40, 30)),
		WAV:  WriteFile(t, dir, "hello.wav", fakehf.WAV(8000, 16000)),
		MP4:  WriteFile(t, dir, "clip.mp4", fakehf.MP4("clip")),
		Text: WriteFile(t, dir, "notes.txt", []byte("just some words, not a picture\n")),
	}
}

// ImageSize checks that an image file is w×h.
func ImageSize(w, h int) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		t.Helper()
		gw, gh, err := fakehf.ImageSize(data)
		if err != nil || gw != w || gh != h {
			t.Errorf("image is %dx%d (%v), want %dx%d", gw, gh, err, w, h)
		}
	}
}

// DirNames lists the names in dir: the files a test expects there, or the
// temporary files a failed or refused answer must not leave.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// BytesUnder is the bytes of the regular files under dir, at any depth:
// what a server's folder holds, for a test of its quota or its clean-up.
func BytesUnder(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
