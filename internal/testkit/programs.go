package testkit

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/draw"
	"image/png"
	"os/exec"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// NeedProgram skips the test when the program name is not installed,
// naming the Debian package that has it.
func NeedProgram(t testing.TB, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (apt-get install %s); skipping the test that runs it", name, pkg)
	}
}

// TextImage renders text large and black on white — the 7×13 bitmap font
// scaled up by nearest neighbour, which OCR reads reliably — into a PNG
// in a temporary directory and returns its path.
func TextImage(t testing.TB, text string, scale int) string {
	t.Helper()
	face := basicfont.Face7x13
	w := font.MeasureString(face, text).Ceil()
	small := image.NewGray(image.Rect(0, 0, w+8, 21))
	draw.Draw(small, small.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: small, Src: image.Black, Face: face, Dot: fixed.P(4, 15)}
	d.DrawString(text)
	big := image.NewGray(image.Rect(0, 0, small.Bounds().Dx()*scale, small.Bounds().Dy()*scale))
	for y := range big.Bounds().Dy() {
		for x := range big.Bounds().Dx() {
			big.SetGray(x, y, small.GrayAt(x/scale, y/scale))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, big); err != nil {
		t.Fatal(err)
	}
	return WriteFile(t, t.TempDir(), "sign.png", buf.Bytes())
}

// CheckWAV asserts b is a RIFF/WAVE file with a fmt and a data chunk of
// at least minSeconds.
func CheckWAV(t testing.TB, b []byte, minSeconds float64) {
	t.Helper()
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" || string(b[12:16]) != "fmt " {
		t.Fatalf("not a RIFF/WAVE file: % x", b[:min(len(b), 16)])
	}
	byteRate := binary.LittleEndian.Uint32(b[28:32])
	if byteRate == 0 {
		t.Fatal("zero byte rate")
	}
	if secs := float64(len(b)-44) / float64(byteRate); secs < minSeconds {
		t.Errorf("only %.2f s of audio, want at least %.1f", secs, minSeconds)
	}
}
