package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/testkit"
)

func TestDecodeEveryFormat(t *testing.T) {
	src := testkit.RectImage(48, 32, image.Rect(10, 8, 30, 20), color.RGBA{255, 220, 0, 255}, color.RGBA{0, 0, 128, 255})
	for _, format := range []string{"png", "jpeg", "gif", "bmp", "tiff"} {
		blob, err := Encode(src, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		img, got, err := Decode(blob.Data)
		if err != nil {
			t.Errorf("%s: %v", format, err)
			continue
		}
		if got != format || img.Bounds() != src.Bounds() {
			t.Errorf("%s: decoded as %s %v", format, got, img.Bounds())
		}
		// The yellow rectangle survives every codec.
		r, g, b, _ := img.At(20, 14).RGBA()
		if r>>8 < 200 || g>>8 < 180 || b>>8 > 60 {
			t.Errorf("%s: pixel inside the rectangle is %d,%d,%d, want yellow", format, r>>8, g>>8, b>>8)
		}
	}
	// Go cannot encode WebP; these were made with ffmpeg (libwebp) from the
	// same picture, one lossless (VP8L) and one lossy (VP8).
	for _, name := range []string{"rect-lossless.webp", "rect-lossy.webp"} {
		img, format, err := Load(filepath.Join("testdata", name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if format != "webp" || img.Bounds() != image.Rect(0, 0, 48, 32) {
			t.Errorf("%s: decoded as %s %v", name, format, img.Bounds())
		}
		r, g, b, _ := img.At(20, 14).RGBA()
		if r>>8 < 200 || g>>8 < 180 || b>>8 > 70 {
			t.Errorf("%s: pixel inside the rectangle is %d,%d,%d, want yellow", name, r>>8, g>>8, b>>8)
		}
	}
}

func TestDecodeRejectsBadFiles(t *testing.T) {
	good := func(format string) []byte {
		b, err := Encode(testkit.GradientImage(64, 48), format)
		if err != nil {
			t.Fatal(err)
		}
		return b.Data
	}
	webp, err := os.ReadFile("testdata/rect-lossy.webp")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		data []byte
		want string
	}{
		"empty":           {nil, "empty"},
		"text":            {[]byte("hello, this is not an image"), "not a PNG, JPEG"},
		"png header only": {good("png")[:30], "png"},
		"truncated png":   {good("png")[:len(good("png"))/2], "png"},
		"truncated jpeg":  {good("jpeg")[:len(good("jpeg"))/2], "jpeg"},
		"truncated gif":   {good("gif")[:len(good("gif"))/2], "gif"},
		"truncated bmp":   {good("bmp")[:len(good("bmp"))/2], "bmp"},
		"truncated tiff":  {good("tiff")[:len(good("tiff"))/2], "tiff"},
		"truncated webp":  {webp[:len(webp)/2], "webp"},
		"zero width":      {testkit.PNGWithSize(t, 0, 10), "png"},
		"zero height":     {testkit.PNGWithSize(t, 10, 0), "png"},
		"gigantic":        {testkit.PNGWithSize(t, 20000, 20000), "megapixels"},
		"too wide":        {testkit.PNGWithSize(t, 70000, 10), "megapixels"},
		"max uint32":      {testkit.PNGWithSize(t, 1<<31-1, 1<<31-1), "png"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			img, _, err := Decode(c.data)
			if err == nil {
				t.Fatalf("decoded a %v image; want an error", img.Bounds())
			}
			if !errors.Is(err, ErrBadInput) {
				t.Errorf("error %q does not wrap ErrBadInput", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	junk := testkit.WriteFile(t, dir, "junk.png", []byte("GIF89a but not really"))
	for name, path := range map[string]string{
		"missing":   filepath.Join(dir, "nope.png"),
		"directory": dir,
		"junk":      junk,
	} {
		_, _, err := Load(path)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v; want ErrBadInput naming %s", name, err, path)
		}
	}
	if _, _, err := Load("  "); !errors.Is(err, ErrBadInput) {
		t.Errorf("blank path: %v", err)
	}
}

func TestEncode(t *testing.T) {
	src := testkit.GradientImage(40, 30)
	for _, c := range []struct{ in, mime string }{
		{"png", "image/png"}, {"PNG", "image/png"}, {"jpg", "image/jpeg"}, {".jpeg", "image/jpeg"},
		{"image/gif", "image/gif"}, {"bmp", "image/bmp"}, {"tif", "image/tiff"}, {"tiff", "image/tiff"},
	} {
		blob, err := Encode(src, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if blob.MIME != c.mime {
			t.Errorf("%s: MIME %s, want %s", c.in, blob.MIME, c.mime)
		}
		img, _, err := Decode(blob.Data)
		if err != nil || img.Bounds() != src.Bounds() {
			t.Errorf("%s: round trip gave %v, %v", c.in, err, img)
		}
	}
	for _, bad := range []string{"webp", "heic", ""} {
		if _, err := Encode(src, bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("format %q: error %v, want ErrBadInput", bad, err)
		}
	}
	// Transparent areas flatten to white in JPEG, not to black.
	clear := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	blob, err := Encode(clear, "jpeg")
	if err != nil {
		t.Fatal(err)
	}
	img, _, _ := Decode(blob.Data)
	if r, _, _, _ := img.At(8, 8).RGBA(); r>>8 < 240 {
		t.Errorf("transparent pixel became %d in JPEG, want white", r>>8)
	}
}

// TestLoadRefusesPipes: a FIFO is refused without being opened (opening one
// waits for a writer forever).
func TestLoadRefusesPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.png")
	if err := testkit.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := Load(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrBadInput) {
			t.Errorf("err = %v, want ErrBadInput", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("blocked on a FIFO")
	}
}

// TestReadFromAnOpenedFileOrStream: Read decodes what its caller opened,
// refuses a file that says it is over the limit without reading it, and
// names the file as the caller calls it.
func TestReadFromAnOpenedFileOrStream(t *testing.T) {
	dir := t.TempDir()
	f, err := EncodePNG(testkit.GradientImage(12, 7))
	if err != nil {
		t.Fatal(err)
	}
	p := testkit.WriteFile(t, dir, "g.png", f.Data)
	fh, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, format, err := Read(fh, "g.png")
	if err != nil || format != "png" || img.Bounds().Dx() != 12 || img.Bounds().Dy() != 7 {
		t.Fatalf("Read(file) = %v, %q, %v", img.Bounds(), format, err)
	}
	if img, _, err := Read(strings.NewReader(string(f.Data)), "stream"); err != nil || img.Bounds().Dx() != 12 {
		t.Fatalf("Read(stream) = %v", err)
	}
	if _, _, err := Read(strings.NewReader("not an image"), "notes.txt"); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("junk: %v", err)
	}
	huge := filepath.Join(dir, "huge.png")
	hf, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := hf.Truncate(maxImageFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	defer hf.Close()
	if _, _, err := Read(hf, "huge.png"); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "at most 512 MB") {
		t.Errorf("huge: %v", err)
	}
}

// TestDecodePNGWithABadAncillaryChunk: a PNG whose colour profile chunk
// has a wrong checksum (the MCP reference server's logo) decodes, as in
// libpng and browsers; a damaged image chunk is still refused.
func TestDecodePNGWithABadAncillaryChunk(t *testing.T) {
	data, err := os.ReadFile("testdata/bad-iccp-crc.png")
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := Decode(data)
	if err != nil || format != "png" || img.Bounds().Dx() != 20 {
		t.Fatalf("decode: %v %s %v", img, format, err)
	}
	// Break the IDAT chunk's checksum instead: that is a damaged image.
	i := bytes.Index(data, []byte("IDAT"))
	n := int(binary.BigEndian.Uint32(data[i-4 : i]))
	broken := bytes.Clone(data)
	broken[i+4+n] ^= 0xFF
	if _, _, err := Decode(broken); !errors.Is(err, ErrBadInput) {
		t.Fatalf("a damaged IDAT decoded: %v", err)
	}
}
