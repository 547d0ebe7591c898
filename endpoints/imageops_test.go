package endpoints

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rectImage returns a w×h image of bg with r filled with fg.
func rectImage(w, h int, r image.Rectangle, fg, bg color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	draw.Draw(img, r, image.NewUniform(fg), image.Point{}, draw.Src)
	return img
}

// gradientImage returns a w×h image whose every pixel differs from its
// neighbours, so any change a tool makes is visible.
func gradientImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / max(w-1, 1)), uint8(y * 255 / max(h-1, 1)), 90, 255})
		}
	}
	return img
}

// writeImage encodes img as format into dir and returns the path.
func writeImage(t testing.TB, dir, name string, img image.Image, format string) string {
	t.Helper()
	blob, err := EncodeImage(img, format)
	if err != nil {
		t.Fatalf("encode %s: %v", format, err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, blob.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile writes data into dir and returns the path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pngWithSize returns a valid PNG whose header claims w×h, with the header
// checksum fixed, so the decoder reads the dimensions the test wants.
func pngWithSize(t testing.TB, w, h uint32) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	// Signature (8) + length (4) + "IHDR" (4), then width and height.
	binary.BigEndian.PutUint32(data[16:], w)
	binary.BigEndian.PutUint32(data[20:], h)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	return data
}

// rectDist is how far (x, y) is from the outline of r, in pixels
// (Chebyshev), counting the first and last rows and columns of r as the
// outline.
func rectDist(x, y int, r image.Rectangle) int {
	in := image.Pt(x, y).In(r)
	if in {
		return min(x-r.Min.X, r.Max.X-1-x, y-r.Min.Y, r.Max.Y-1-y)
	}
	dx := max(r.Min.X-x, x-(r.Max.X-1), 0)
	dy := max(r.Min.Y-y, y-(r.Max.Y-1), 0)
	return max(dx, dy)
}

func TestCannyFindsRectangleEdges(t *testing.T) {
	r := image.Rect(50, 40, 150, 110)
	img := rectImage(200, 150, r, color.White, color.Black)
	edges := Canny(img, CannyLow, CannyHigh)
	if edges.Bounds() != img.Bounds() {
		t.Fatalf("edge map is %v, want the input's %v", edges.Bounds(), img.Bounds())
	}
	count := 0
	for y := range 150 {
		for x := range 200 {
			v := edges.GrayAt(x, y).Y
			if v != 0 && v != 255 {
				t.Fatalf("pixel (%d,%d) = %d; an edge map is black and white only", x, y, v)
			}
			if v == 255 {
				count++
				if d := rectDist(x, y, r); d > 2 {
					t.Errorf("edge at (%d,%d), %d px from the rectangle's border, in a flat region", x, y, d)
				}
			}
		}
	}
	// Every point of the border must have an edge pixel next to it.
	missed, perimeter := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if rectDist(x, y, r) != 0 {
				continue
			}
			perimeter++
			found := false
			for dy := -2; dy <= 2 && !found; dy++ {
				for dx := -2; dx <= 2 && !found; dx++ {
					found = edges.GrayAt(x+dx, y+dy).Y == 255
				}
			}
			if !found {
				missed++
			}
		}
	}
	if missed*100 > perimeter*3 {
		t.Errorf("%d of %d border pixels have no edge nearby", missed, perimeter)
	}
	// Non-maximum suppression keeps the edges thin: about one pixel per
	// border pixel, not a thick band.
	if count > perimeter*3/2 || count < perimeter*3/4 {
		t.Errorf("%d edge pixels for a %d-pixel border; want a thin, closed outline", count, perimeter)
	}
}

func TestCannyFlatAndThresholds(t *testing.T) {
	flat := rectImage(64, 48, image.Rectangle{}, color.White, color.Gray{0x80})
	if n := countNonZero(Canny(flat, CannyLow, CannyHigh).Pix); n != 0 {
		t.Errorf("flat image gave %d edge pixels", n)
	}
	img := rectImage(64, 48, image.Rect(16, 12, 48, 36), color.Gray{0x90}, color.Gray{0x70})
	// A faint step: the gradient is below the default thresholds but well
	// above lower ones.
	if n := countNonZero(Canny(img, CannyLow, CannyHigh).Pix); n != 0 {
		t.Errorf("faint step gave %d edge pixels at 100/200; want none", n)
	}
	if n := countNonZero(Canny(img, 20, 40).Pix); n < 80 {
		t.Errorf("faint step gave %d edge pixels at 20/40; want its outline", n)
	}
	// Reversed thresholds are put in order rather than finding nothing.
	if a, b := countNonZero(Canny(img, 40, 20).Pix), countNonZero(Canny(img, 20, 40).Pix); a != b {
		t.Errorf("thresholds 40/20 gave %d edge pixels, 20/40 gave %d", a, b)
	}
}

func TestCannyHysteresisFollowsWeakEdges(t *testing.T) {
	// Left half of the step is strong, right half weak: hysteresis carries
	// the edge from the strong part along the weak part, but a weak edge
	// with no strong part is dropped.
	img := image.NewGray(image.Rect(0, 0, 120, 60))
	for y := range 60 {
		for x := range 120 {
			v := uint8(0)
			if y >= 30 {
				v = 120 // weak step
				if x < 60 {
					v = 255 // strong step
				}
			}
			img.SetGray(x, y, color.Gray{v})
		}
	}
	weakOnly := image.NewGray(image.Rect(0, 0, 120, 60))
	for y := 30; y < 60; y++ {
		for x := range 120 {
			weakOnly.SetGray(x, y, color.Gray{120})
		}
	}
	low, high := 150.0, 600.0
	edges := Canny(img, low, high)
	rowHas := func(g *image.Gray, x0, x1 int) bool {
		for x := x0; x < x1; x++ {
			for y := 27; y <= 32; y++ {
				if g.GrayAt(x, y).Y == 255 {
					return true
				}
			}
		}
		return false
	}
	if !rowHas(edges, 80, 110) {
		t.Error("weak edge connected to a strong one was dropped")
	}
	if rowHas(Canny(weakOnly, low, high), 10, 110) {
		t.Error("weak edge with no strong part was kept")
	}
}

func countNonZero(p []uint8) int {
	n := 0
	for _, v := range p {
		if v != 0 {
			n++
		}
	}
	return n
}

func TestCannySameForEveryPixelLayout(t *testing.T) {
	src := rectImage(80, 60, image.Rect(20, 15, 60, 45), color.RGBA{200, 200, 200, 255}, color.RGBA{10, 10, 10, 255})
	gray := image.NewGray(src.Bounds())
	draw.Draw(gray, gray.Bounds(), src, image.Point{}, draw.Src)
	nrgba := image.NewNRGBA(src.Bounds())
	draw.Draw(nrgba, nrgba.Bounds(), src, image.Point{}, draw.Src)
	ycc := image.NewYCbCr(src.Bounds(), image.YCbCrSubsampleRatio444)
	for y := range 60 {
		for x := range 80 {
			c := src.RGBAAt(x, y)
			yy, cb, cr := color.RGBToYCbCr(c.R, c.G, c.B)
			ycc.Y[ycc.YOffset(x, y)], ycc.Cb[ycc.COffset(x, y)], ycc.Cr[ycc.COffset(x, y)] = yy, cb, cr
		}
	}
	// A sub-image has a non-zero origin.
	big := image.NewRGBA(image.Rect(0, 0, 100, 80))
	draw.Draw(big, image.Rect(10, 10, 90, 70), src, image.Point{}, draw.Src)
	sub := big.SubImage(image.Rect(10, 10, 90, 70))
	want := Canny(src, CannyLow, CannyHigh)
	for name, img := range map[string]image.Image{"gray": gray, "nrgba": nrgba, "ycbcr": ycc, "subimage": sub, "paletted": toPaletted(src)} {
		got := Canny(img, CannyLow, CannyHigh)
		if got.Bounds() != want.Bounds() {
			t.Errorf("%s: bounds %v, want %v", name, got.Bounds(), want.Bounds())
			continue
		}
		if diff := diffCount(got.Pix, want.Pix); diff > 4 {
			t.Errorf("%s: %d pixels differ from the RGBA result", name, diff)
		}
	}
}

func toPaletted(img image.Image) *image.Paletted {
	p := image.NewPaletted(img.Bounds(), color.Palette{color.Black, color.RGBA{10, 10, 10, 255}, color.RGBA{200, 200, 200, 255}, color.White})
	draw.Draw(p, p.Bounds(), img, img.Bounds().Min, draw.Src)
	return p
}

func diffCount(a, b []uint8) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

func TestDecodeEveryFormat(t *testing.T) {
	src := rectImage(48, 32, image.Rect(10, 8, 30, 20), color.RGBA{255, 220, 0, 255}, color.RGBA{0, 0, 128, 255})
	for _, format := range []string{"png", "jpeg", "gif", "bmp", "tiff"} {
		blob, err := EncodeImage(src, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		img, got, err := DecodeImage(blob.Data)
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
		img, format, err := LoadImage(filepath.Join("testdata", name))
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

func TestDecodeImageRejectsBadFiles(t *testing.T) {
	good := func(format string) []byte {
		b, err := EncodeImage(gradientImage(64, 48), format)
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
		"zero width":      {pngWithSize(t, 0, 10), "png"},
		"zero height":     {pngWithSize(t, 10, 0), "png"},
		"gigantic":        {pngWithSize(t, 20000, 20000), "megapixels"},
		"too wide":        {pngWithSize(t, 70000, 10), "megapixels"},
		"max uint32":      {pngWithSize(t, 1<<31-1, 1<<31-1), "png"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			img, _, err := DecodeImage(c.data)
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

func TestLoadImageErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	junk := writeFile(t, dir, "junk.png", []byte("GIF89a but not really"))
	for name, path := range map[string]string{
		"missing":   filepath.Join(dir, "nope.png"),
		"directory": dir,
		"junk":      junk,
	} {
		_, _, err := LoadImage(path)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v; want ErrBadInput naming %s", name, err, path)
		}
	}
	if _, _, err := LoadImage("  "); !errors.Is(err, ErrBadInput) {
		t.Errorf("blank path: %v", err)
	}
}

func TestEncodeImage(t *testing.T) {
	src := gradientImage(40, 30)
	for _, c := range []struct{ in, mime string }{
		{"png", "image/png"}, {"PNG", "image/png"}, {"jpg", "image/jpeg"}, {".jpeg", "image/jpeg"},
		{"image/gif", "image/gif"}, {"bmp", "image/bmp"}, {"tif", "image/tiff"}, {"tiff", "image/tiff"},
	} {
		blob, err := EncodeImage(src, c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if blob.MIME != c.mime {
			t.Errorf("%s: MIME %s, want %s", c.in, blob.MIME, c.mime)
		}
		img, _, err := DecodeImage(blob.Data)
		if err != nil || img.Bounds() != src.Bounds() {
			t.Errorf("%s: round trip gave %v, %v", c.in, err, img)
		}
	}
	for _, bad := range []string{"webp", "heic", ""} {
		if _, err := EncodeImage(src, bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("format %q: error %v, want ErrBadInput", bad, err)
		}
	}
	// Transparent areas flatten to white in JPEG, not to black.
	clear := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	blob, err := EncodeImage(clear, "jpeg")
	if err != nil {
		t.Fatal(err)
	}
	img, _, _ := DecodeImage(blob.Data)
	if r, _, _, _ := img.At(8, 8).RGBA(); r>>8 < 240 {
		t.Errorf("transparent pixel became %d in JPEG, want white", r>>8)
	}
}

func TestParseResize(t *testing.T) {
	cases := []struct {
		spec   string
		w, h   int
		ww, wh int
	}{
		{"512x512", 1000, 500, 512, 512},
		{"resize it to 640 x 480 pixels", 100, 100, 640, 480},
		{"320×200", 100, 100, 320, 200},
		{"50%", 1000, 600, 500, 300},
		{"150 percent", 100, 60, 150, 90},
		{"width 800", 1600, 900, 800, 450},
		{"w=400", 1600, 900, 400, 225},
		{"800 wide", 1600, 900, 800, 450},
		{"height 300", 1600, 900, 533, 300},
		{"300px tall", 1600, 900, 533, 300},
		{"width 100 height 50", 1600, 900, 100, 50},
		{"scale 0.25", 400, 200, 100, 50},
		{"2x", 400, 200, 800, 400},
		{"make it half the size", 400, 200, 200, 100},
		{"max 100", 400, 200, 100, 50},
		{"fit in 100", 200, 400, 50, 100},
	}
	for _, c := range cases {
		w, h, err := parseResize(c.spec, c.w, c.h)
		if err != nil || w != c.ww || h != c.wh {
			t.Errorf("parseResize(%q, %d×%d) = %d×%d, %v; want %d×%d", c.spec, c.w, c.h, w, h, err, c.ww, c.wh)
		}
	}
	for _, bad := range []string{"", "bigger please", "0x0", "0%", "100000x100000", "20000x20000", "0.001%", "width 0"} {
		if w, h, err := parseResize(bad, 640, 480); !errors.Is(err, ErrBadInput) {
			t.Errorf("parseResize(%q) = %d×%d, %v; want ErrBadInput", bad, w, h, err)
		}
	}
}

func TestParseBox(t *testing.T) {
	b := image.Rect(0, 0, 200, 100)
	for _, c := range []struct {
		spec string
		want image.Rectangle
	}{
		{"10,20,60,80", image.Rect(10, 20, 60, 80)},
		{"[10, 20, 60, 80]", image.Rect(10, 20, 60, 80)},
		{"(60,80,10,20)", image.Rect(10, 20, 60, 80)},
		{"10.4,20.6,59.5,79.2", image.Rect(10, 20, 60, 80)},
		{"0.1,0.2,0.5,0.8", image.Rect(20, 20, 100, 80)},
		{"-50,-50,20,20", image.Rect(0, 0, 20, 20)},
		{"150,50,400,400", image.Rect(150, 50, 200, 100)},
		{"5,5,5,5", image.Rect(5, 5, 6, 6)},
	} {
		got, err := parseBox(c.spec, b)
		if err != nil || got != c.want {
			t.Errorf("parseBox(%q) = %v, %v; want %v", c.spec, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "300,300,400,400", "-10,-10,-5,-5", "1e400,0,5,5"} {
		if r, err := parseBox(bad, b); !errors.Is(err, ErrBadInput) {
			t.Errorf("parseBox(%q) = %v, %v; want ErrBadInput", bad, r, err)
		}
	}
}

func BenchmarkCanny1024(b *testing.B) {
	img := gradientImage(1024, 1024)
	draw.Draw(img, image.Rect(200, 300, 800, 700), image.White, image.Point{}, draw.Src)
	b.ReportAllocs()
	b.SetBytes(1024 * 1024)
	for b.Loop() {
		Canny(img, CannyLow, CannyHigh)
	}
}
