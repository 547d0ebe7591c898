package demogif

import (
	"context"
	"image"
	"image/draw"
	"image/gif"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
}

func parse(t *testing.T, src string) *Tape {
	t.Helper()
	tape, err := ParseTape("test.tape", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return tape
}

// TestPlayRendersAGIF plays a tiny tape in a real shell and decodes the
// GIF: it has the tape's size, more than one frame (the typing shows), and
// the cell where the program printed H is drawn while a cell nothing
// printed to is plain background.
func TestPlayRendersAGIF(t *testing.T) {
	needBash(t)
	out := filepath.Join(t.TempDir(), "t.gif")
	tape := parse(t, `Output ignored.gif
Set FontSize 16
Set Width 420
Set Height 200
Set Padding 10
Set TypingSpeed 5ms
Hide
Type "clear"
Enter
Show
Type "printf 'HELLO'"
Enter
Wait /HELLO>$/
Sleep 200ms
`)
	res, err := Play(context.Background(), tape, Options{Output: out, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("the GIF does not decode: %v", err)
	}
	if g.Config.Width != 420 || g.Config.Height != 200 {
		t.Errorf("GIF is %d×%d, want the tape's 420×200", g.Config.Width, g.Config.Height)
	}
	if len(g.Image) < 2 || len(g.Image) != res.Frames {
		t.Errorf("%d frames (result says %d), want more than one", len(g.Image), res.Frames)
	}
	var total int
	for _, d := range g.Delay {
		total += d
	}
	if total < 20 || time.Duration(total)*10*time.Millisecond > res.Duration+100*time.Millisecond {
		t.Errorf("frames last %d cs, the recording %s", total, res.Duration)
	}

	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for _, fr := range g.Image {
		draw.Draw(canvas, fr.Bounds(), fr, fr.Bounds().Min, draw.Src)
	}
	fonts, err := newGlyphs(16, 1)
	if err != nil {
		t.Fatal(err)
	}
	cell := func(col, row int) image.Rectangle {
		x, y := 10+col*fonts.cw, 10+row*fonts.ch
		return image.Rect(x, y, x+fonts.cw, y+fonts.ch)
	}
	bg := themes[""].Background
	differs := func(r image.Rectangle) int {
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				c := canvas.RGBAAt(x, y)
				if c.R != bg.R || c.G != bg.G || c.B != bg.B {
					n++
				}
			}
		}
		return n
	}
	// Row 0 is the typed command; row 1 starts with the program's HELLO.
	if n := differs(cell(0, 1)); n < 10 {
		t.Errorf("the cell of H has %d non-background pixels, want a glyph", n)
	}
	if n := differs(cell(res.Cols-1, 1)); n != 0 {
		t.Errorf("an untouched cell has %d non-background pixels", n)
	}
	if res.Cols != (420-20)/fonts.cw || res.Rows != (200-20)/fonts.ch {
		t.Errorf("terminal %d×%d, want what fits in 400×180 px", res.Cols, res.Rows)
	}
}

func TestPlayWaitTimesOut(t *testing.T) {
	needBash(t)
	tape := parse(t, "Output x.gif\nType \"echo hi\"\nEnter\nWait+Screen@300ms /never/\n")
	out := filepath.Join(t.TempDir(), "x.gif")
	_, err := Play(context.Background(), tape, Options{Output: out})
	if err == nil || !strings.Contains(err.Error(), "line 4: /never/ did not appear") || !strings.Contains(err.Error(), "echo hi") {
		t.Errorf("error %v, want the wait's line and the screen", err)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Error("a failed tape left a GIF behind")
	}
}

func TestPlayNeedsRequiredPrograms(t *testing.T) {
	tape := parse(t, "Output x.gif\nRequire no-such-program-chorus-demo\n")
	_, err := Play(context.Background(), tape, Options{Output: filepath.Join(t.TempDir(), "x.gif")})
	if err == nil || !strings.Contains(err.Error(), "no-such-program-chorus-demo, which is not on PATH") {
		t.Errorf("error %v, want one naming the missing program", err)
	}
}
