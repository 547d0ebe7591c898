package media

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

func TestFit(t *testing.T) {
	cases := []struct {
		w, h, cols, rows int
		c, r             int
	}{
		{1200, 600, 40, 20, 40, 10},    // width-bound: 400×200 px
		{600, 1200, 80, 10, 10, 10},    // height-bound: 100×200 px
		{512, 512, 80, 24, 48, 24},     // a square is twice as wide in cells
		{300, 200, 80, 24, 30, 10},     // small images keep their natural size
		{4, 4, 80, 24, 1, 1},           // never below one cell
		{100000, 10, 80, 24, 80, 1},    // extreme panorama
		{10, 100000, 80, 24, 1, 24},    // extreme column
		{800, 400, 0, -3, 1, 1},        // no room still gives a valid size
		{800, 400, 5000, 5000, 80, 20}, // huge boxes are clamped, natural size wins
	}
	for _, c := range cases {
		gc, gr := Fit(c.w, c.h, c.cols, c.rows)
		if gc != c.c || gr != c.r {
			t.Errorf("Fit(%d×%d in %d×%d) = %d×%d, want %d×%d", c.w, c.h, c.cols, c.rows, gc, gr, c.c, c.r)
		}
		if gc > max(c.cols, 1) || gr > max(c.rows, 1) {
			t.Errorf("Fit(%d×%d in %d×%d) = %d×%d overflows the box", c.w, c.h, c.cols, c.rows, gc, gr)
		}
	}
}

var kittyChunkRE = regexp.MustCompile(`^\x1b_G([a-zA-Z0-9=,]*);([A-Za-z0-9+/=]*)\x1b\\`)

func parseKeys(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestRenderKitty(t *testing.T) {
	path := writePNG(t, halves(800, 400))
	out, err := Render(path, Kitty, 40, 20)
	if err != nil {
		t.Fatal(err)
	}
	var payload strings.Builder
	rest := out
	n := 0
	for rest != "" {
		m := kittyChunkRE.FindStringSubmatch(rest)
		if m == nil {
			t.Fatalf("chunk %d is not a kitty graphics escape: %.60q", n, rest)
		}
		keys, data := parseKeys(m[1]), m[2]
		rest = rest[len(m[0]):]
		last := rest == ""
		if len(data) > 4096 {
			t.Errorf("chunk %d carries %d bytes, more than 4096", n, len(data))
		}
		if !last && len(data)%4 != 0 {
			t.Errorf("chunk %d carries %d bytes, not a multiple of 4", n, len(data))
		}
		if want := map[bool]string{true: "0", false: "1"}[last]; keys["m"] != want {
			t.Errorf("chunk %d: m=%s, want %s", n, keys["m"], want)
		}
		if keys["q"] != "2" {
			t.Errorf("chunk %d: q=%q, want 2 so the terminal sends no replies", n, keys["q"])
		}
		if n == 0 {
			for k, v := range map[string]string{"a": "T", "f": "100", "c": "40", "r": "10"} {
				if keys[k] != v {
					t.Errorf("first chunk: %s=%q, want %q (keys %v)", k, keys[k], v, keys)
				}
			}
		} else if keys["a"] != "" || keys["f"] != "" {
			t.Errorf("chunk %d repeats the control keys: %v", n, keys)
		}
		payload.WriteString(data)
		n++
	}
	if n < 2 {
		t.Fatalf("payload came in %d chunk(s); this image should need several", n)
	}
	img := decodePayload(t, payload.String())
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 200 {
		t.Fatalf("payload is %v, want 400×200 (fitted to 40×10 cells of 10×20)", b)
	}
	checkHalves(t, img)
}

func decodePayload(t *testing.T, b64 string) image.Image {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("payload is not base64: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("payload is not a PNG: %v", err)
	}
	return img
}

// checkHalves checks a scaled halves() image: red on the left, blue on the right.
func checkHalves(t *testing.T, img image.Image) {
	t.Helper()
	b := img.Bounds()
	l := color.RGBAModel.Convert(img.At(b.Dx()/4, b.Dy()/2)).(color.RGBA)
	r := color.RGBAModel.Convert(img.At(3*b.Dx()/4, b.Dy()/2)).(color.RGBA)
	if !near(l.R, 247, 8) || !near(l.B, 3, 8) || !near(r.B, 247, 8) || !near(r.R, 3, 8) {
		t.Errorf("colours lost in scaling: left %v, right %v", l, r)
	}
}

func TestRenderITerm2(t *testing.T) {
	path := writePNG(t, halves(800, 400))
	out, err := Render(path, ITerm2, 40, 20)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\x1b\]1337;File=([^:]*):([A-Za-z0-9+/=]+)\x07$`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("not an OSC 1337 inline image: %.80q", out)
	}
	args := map[string]string{}
	for _, kv := range strings.Split(m[1], ";") {
		k, v, _ := strings.Cut(kv, "=")
		args[k] = v
	}
	for k, v := range map[string]string{"inline": "1", "width": "40", "height": "10"} {
		if args[k] != v {
			t.Errorf("%s=%q, want %q", k, args[k], v)
		}
	}
	// The aspect ratio is kept: preserveAspectRatio is 1 by default.
	if v, ok := args["preserveAspectRatio"]; ok && v != "1" {
		t.Errorf("preserveAspectRatio=%q stretches the image", v)
	}
	raw, _ := base64.StdEncoding.DecodeString(m[2])
	if strconv.Itoa(len(raw)) != args["size"] {
		t.Errorf("size=%s but the payload is %d bytes", args["size"], len(raw))
	}
	img := decodePayload(t, m[2])
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 200 {
		t.Fatalf("payload is %v, want 400×200", b)
	}
	checkHalves(t, img)
}

func TestRenderFormats(t *testing.T) {
	src := halves(64, 32)
	enc := map[string]func(*bytes.Buffer) error{
		"png":  func(b *bytes.Buffer) error { return png.Encode(b, src) },
		"jpeg": func(b *bytes.Buffer) error { return jpeg.Encode(b, src, &jpeg.Options{Quality: 95}) },
		"gif": func(b *bytes.Buffer) error {
			// GIF needs a palette; give it the two colours exactly.
			pm := image.NewPaletted(src.Bounds(), color.Palette{color.RGBA{248, 2, 2, 255}, color.RGBA{2, 2, 248, 255}})
			draw.Draw(pm, pm.Bounds(), src, image.Point{}, draw.Src)
			return gif.Encode(b, pm, nil)
		},
		"bmp":  func(b *bytes.Buffer) error { return bmp.Encode(b, src) },
		"tiff": func(b *bytes.Buffer) error { return tiff.Encode(b, src, nil) },
	}
	for name, f := range enc {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := f(&buf); err != nil {
				t.Fatal(err)
			}
			img, err := Load(writeFile(t, "img."+name, buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 32 {
				t.Fatalf("decoded %v", b)
			}
			checkHalves(t, img)
		})
	}
	t.Run("webp", func(t *testing.T) {
		// testdata/quadrants.webp: 8×6 lossless, red/green over blue/white.
		out, err := Render("testdata/quadrants.webp", HalfBlocks, 8, 3)
		if err != nil {
			t.Fatal(err)
		}
		g := parseBlocks(t, out)
		if len(g) != 3 || len(g[0]) != 8 {
			t.Fatalf("got %d lines of %d cells, want 3 of 8", len(g), len(g[0]))
		}
		want := map[[2]int][2]int32{
			{0, 0}: {0xff0000, 0xff0000}, {7, 0}: {0x00ff00, 0x00ff00},
			{0, 1}: {0xff0000, 0x0000ff}, {7, 1}: {0x00ff00, 0xffffff},
			{0, 2}: {0x0000ff, 0x0000ff}, {7, 2}: {0xffffff, 0xffffff},
		}
		for at, w := range want {
			if c := g[at[1]][at[0]]; c.fg != w[0] || c.bg != w[1] {
				t.Errorf("cell %v = %06x/%06x, want %06x/%06x", at, c.fg, c.bg, w[0], w[1])
			}
		}
	})
}

func TestRenderErrors(t *testing.T) {
	var good bytes.Buffer
	png.Encode(&good, halves(40, 40))
	truncated := writeFile(t, "cut.png", good.Bytes()[:len(good.Bytes())/2])
	notImage := writeFile(t, "notes.png", []byte("these are my notes, not a picture\n"))
	huge := writeFile(t, "huge.png", pngHeader(20000, 20000))

	for _, p := range []Protocol{HalfBlocks, Kitty, ITerm2, Sixel} {
		_, err := Render(t.TempDir()+"/missing.png", p, 80, 24)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.png") {
			t.Errorf("%v, missing file: %v; want a not-exist error naming the file", p, err)
		}
		_, err = Render(notImage, p, 80, 24)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "notes.png") {
			t.Errorf("%v, text file: %v; want ErrUnsupported naming the file", p, err)
		}
		_, err = Render(huge, p, 80, 24)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "20000×20000") {
			t.Errorf("%v, 400-megapixel header: %v; want ErrTooLarge with the size", p, err)
		}
		_, err = Render(truncated, p, 80, 24)
		if err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%v, truncated file: %v; want a damaged-data error", p, err)
		}
		_, err = Render(t.TempDir(), p, 80, 24)
		if err == nil || !strings.Contains(err.Error(), "directory") {
			t.Errorf("%v, directory: %v; want an error", p, err)
		}
		if _, err = Render(writePNG(t, halves(8, 8)), p, 0, 24); err == nil {
			t.Errorf("%v, zero columns: no error", p)
		}
	}
}

// pngHeader returns a PNG signature and IHDR claiming w×h pixels, and
// nothing else: enough for the size check, which must come before decoding.
func pngHeader(w, h uint32) []byte {
	var ihdr bytes.Buffer
	ihdr.WriteString("IHDR")
	binary.Write(&ihdr, binary.BigEndian, w)
	binary.Write(&ihdr, binary.BigEndian, h)
	ihdr.Write([]byte{8, 2, 0, 0, 0})
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&out, binary.BigEndian, uint32(13))
	out.Write(ihdr.Bytes())
	binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(ihdr.Bytes()))
	return out.Bytes()
}

func TestRenderNone(t *testing.T) {
	path := writePNG(t, halves(64, 32))
	out, err := Render(path, None, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[image 64×32] " + path; out != want {
		t.Errorf("label %q, want %q", out, want)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("label has escapes: %q", out)
	}
	// The label needs only the header, so a huge image still gets one.
	huge := writeFile(t, "huge.png", pngHeader(20000, 20000))
	if out, err := Render(huge, None, 80, 24); err != nil || !strings.Contains(out, "20000×20000") {
		t.Errorf("label of a huge image: %q, %v", out, err)
	}
	if _, err := Render(t.TempDir()+"/gone.png", None, 80, 24); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("label of a missing file: %v, want a not-exist error", err)
	}
}

func TestPassthrough(t *testing.T) {
	noise := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(i*7919>>3) ^ uint8(i)
	}
	k, err := kittySequence(noise, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	chunks := strings.Count(k, "\x1b_G")
	if chunks < 2 {
		t.Fatalf("the test image fits one kitty chunk (%d bytes); make it bigger", len(k))
	}
	seq := k + "\n" + "\x1b]1337;File=inline=1:AAAA\a"
	if got := Passthrough(seq, env()); got != seq {
		t.Errorf("outside tmux the sequence changed")
	}
	got := Passthrough(seq, env("TMUX", "/tmp/tmux-1000/default,1,0"))
	wrapped := regexp.MustCompile(`\x1bPtmux;((?:\x1b\x1b|[^\x1b])*)\x1b\\`)
	ms := wrapped.FindAllStringSubmatch(got, -1)
	if len(ms) != chunks+1 {
		t.Fatalf("found %d wrapped sequences, want %d (the kitty chunks + 1 iTerm2): %q", len(ms), chunks+1, got)
	}
	var inner strings.Builder
	for _, m := range ms {
		inner.WriteString(strings.ReplaceAll(m[1], "\x1b\x1b", "\x1b"))
	}
	if strings.ReplaceAll(seq, "\n", "") != inner.String() {
		t.Errorf("unwrapping does not give the original sequences back")
	}
	if plain := "\x1b[38;2;1;2;3m▀\x1b[0m"; Passthrough(plain, env("TMUX", "x")) != plain {
		t.Errorf("half-blocks were wrapped")
	}
	// GNU screen: DCS envelopes of at most 768 bytes each.
	sc := Passthrough(seq, env("STY", "1234.pts-0.host"))
	if !strings.HasPrefix(sc, "\x1bP\x1b_G") || strings.Contains(sc, "tmux;") {
		t.Errorf("screen passthrough: %.60q", sc)
	}
}
