package demogif

import (
	"bytes"
	"image/gif"
	"testing"
	"time"
)

// TestFramesKeepOnlyWhatChanged: a frame holds the cells that changed, an
// unchanged screen adds no frame but lengthens the last one, and the GIF
// decodes with one palette.
func TestFramesKeepOnlyWhatChanged(t *testing.T) {
	set := DefaultSettings()
	set.FontSize, set.Width, set.Height, set.Padding = 16, 300, 120, 5
	f, err := NewFrames(set)
	if err != nil {
		t.Fatal(err)
	}
	cols, rows := f.Size()
	s := NewScreen(cols, rows, nil)
	_, _ = s.Write([]byte("\x1b[?25lhello"))
	f.Add(s.Snapshot(), 0, 0, false, 0)
	f.Add(s.Snapshot(), 0, 0, false, 100*time.Millisecond) // no change
	_, _ = s.Write([]byte("\x1b[2;3H\x1b[38;2;200;10;10mX"))
	f.Add(s.Snapshot(), 0, 0, false, 300*time.Millisecond)
	if f.Len() != 2 {
		t.Fatalf("%d frames, want 2", f.Len())
	}
	if got, want := f.frames[1].Bounds(), f.cellRect(2, 1); got != want {
		t.Errorf("second frame covers %v, want only the changed cell %v", got, want)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf, time.Second); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Delay) != 2 || g.Delay[0] != 30 || g.Delay[1] != 70 {
		t.Errorf("delays %v, want [30 70] hundredths", g.Delay)
	}
	red := false
	for _, c := range g.Image[1].Palette {
		r, gr, b, _ := c.RGBA()
		if r>>8 == 200 && gr>>8 == 10 && b>>8 == 10 {
			red = true
		}
	}
	if !red {
		t.Error("the palette lacks the X's colour")
	}
}

// TestBoxLinesJoin: a horizontal line reaches both edges of its cell and
// a vertical one the top and bottom, so borders draw unbroken.
func TestBoxLinesJoin(t *testing.T) {
	g, err := newGlyphs(15, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := g.mask('─', 0, false)
	v := g.mask('│', 0, false)
	row := func(y int) (n int) {
		for x := range g.cw {
			if h.AlphaAt(x, y).A == 0xff {
				n++
			}
		}
		return n
	}
	full := false
	for y := range g.ch {
		full = full || row(y) == g.cw
	}
	if !full {
		t.Error("─ does not span its cell")
	}
	col := 0
	for x := range g.cw {
		n := 0
		for y := range g.ch {
			if v.AlphaAt(x, y).A == 0xff {
				n++
			}
		}
		col = max(col, n)
	}
	if col != g.ch {
		t.Errorf("│ covers %d of %d rows", col, g.ch)
	}
	if m := g.mask('✓', 0, false); m.Bounds().Empty() || sum(m.Pix) == 0 {
		t.Error("✓, which Go Mono lacks, draws nothing")
	}
	if len(g.missing) != 0 {
		t.Errorf("drawn as boxes: %v", g.missing)
	}
}

func sum(p []uint8) (n int) {
	for _, v := range p {
		n += int(v)
	}
	return n
}
