package endpoints_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/internal/testkit"
)

// brokenReader yields n bytes, then fails as a connection closed mid-way.
type brokenReader struct{ n int }

func (r *brokenReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'x'
	}
	r.n -= k
	return k, nil
}

// TestSpool: small blobs stay in memory, large ones go to a temporary file,
// anything over the limit or cut off is an error that leaves no file.
func TestSpool(t *testing.T) {
	dir := t.TempDir()
	sp := endpoints.Spool{Dir: dir, InMemory: 1024, Max: 4096}

	b, head, err := sp.Copy(strings.NewReader("small"))
	if err != nil || string(b.Data) != "small" || b.Path != "" || string(head) != "small" {
		t.Fatalf("small: %+v %q %v", b, head, err)
	}

	big := bytes.Repeat([]byte("0123456789"), 300) // 3000 bytes
	b, head, err = sp.Copy(bytes.NewReader(big))
	if err != nil || b.Data != nil || filepath.Dir(b.Path) != dir || len(head) != endpoints.SniffLen {
		t.Fatalf("large: %+v %d %v", b.Path, len(head), err)
	}
	got, err := b.Bytes(1 << 20)
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("large read back: %d bytes, %v", len(got), err)
	}
	if n, err := b.Size(); n != 3000 || err != nil {
		t.Errorf("Size = %d, %v", n, err)
	}
	if _, err := b.Bytes(100); !errors.Is(err, endpoints.ErrTooLarge) {
		t.Errorf("Bytes under its size: %v", err)
	}
	b.Remove()

	for name, r := range map[string]io.Reader{
		"over the limit": bytes.NewReader(make([]byte, 5000)),
		"cut off":        &brokenReader{n: 2000},
		"cut off early":  &brokenReader{n: 10},
	} {
		b, _, err := sp.Copy(r)
		if err == nil || b.Path != "" || b.Data != nil {
			t.Errorf("%s: %+v, %v; want an error", name, b, err)
		}
		if name == "over the limit" && !errors.Is(err, endpoints.ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
		if name != "over the limit" && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v, want the read error", name, err)
		}
	}
	if left := testkit.DirNames(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestBlobSaveAs: a spooled blob is moved into place; a blob that cannot
// be written leaves nothing at the destination and no temporary file.
func TestBlobSaveAs(t *testing.T) {
	tmp, out := t.TempDir(), t.TempDir()
	sp := endpoints.Spool{Dir: tmp, InMemory: 16}
	b, _, err := sp.Copy(strings.NewReader(strings.Repeat("a", 100)))
	if err != nil || b.Path == "" {
		t.Fatalf("%+v %v", b, err)
	}
	dst := filepath.Join(out, "result.bin")
	if err := os.WriteFile(dst, nil, 0o644); err != nil { // a reserved name
		t.Fatal(err)
	}
	if err := b.SaveAs(dst); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(dst); err != nil || len(data) != 100 {
		t.Fatalf("saved %d bytes, %v", len(data), err)
	}
	if left := testkit.DirNames(t, tmp); len(left) != 0 {
		t.Errorf("the temporary file stayed: %v", left)
	}

	mem := endpoints.Blob{MIME: "text/plain", Data: []byte("hi")}
	if err := mem.SaveAs(filepath.Join(out, "mem.txt")); err != nil {
		t.Fatal(err)
	}

	// A temporary file that cannot be read (here a directory) fails the
	// save; nothing is left at the destination.
	bad := filepath.Join(tmp, "notafile")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	dst = filepath.Join(out, "other", "x.bin") // a directory that does not exist: rename and copy both fail
	if err := (endpoints.Blob{Path: bad}).SaveAs(dst); err == nil {
		t.Fatal("saving an unreadable blob succeeded")
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed save left %s", dst)
	}
	dst = filepath.Join(out, "partial.bin")
	os.WriteFile(dst, nil, 0o644)
	if err := (endpoints.Blob{Path: filepath.Join(tmp, "missing")}).SaveAs(dst); err == nil {
		t.Fatal("saving a missing blob succeeded")
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed save left an empty %s", dst)
	}
}

// TestResultDiscard removes a result's temporary files and nothing else.
func TestResultDiscard(t *testing.T) {
	tmp := t.TempDir()
	sp := endpoints.Spool{Dir: tmp, InMemory: 4}
	a, _, _ := sp.Copy(strings.NewReader("aaaaaaaa"))
	b, _, _ := sp.Copy(strings.NewReader("bb"))
	endpoints.Result{Blobs: []endpoints.Blob{a, b}}.Discard()
	if left := testkit.DirNames(t, tmp); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}
