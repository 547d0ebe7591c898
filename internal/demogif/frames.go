package demogif

import (
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"slices"
	"time"
)

func alphaOf(a uint8) color.Alpha { return color.Alpha{A: a} }

// levels is how many steps of coverage an antialiased glyph edge gets: with
// four, each foreground/background pair adds at most three blends to the
// GIF's 256 colours.
const levels = 4

// Frames rasterises terminal screens and collects them as the frames of an
// animated GIF. Each frame holds only the rectangle that changed since the
// previous one, over a palette that grows as colours appear and is shared
// by all frames, so a mostly still terminal makes a small file.
type Frames struct {
	theme   Theme
	g       *glyphs
	padding int
	cols    int
	rows    int
	canvas  *image.Paletted
	pal     color.Palette
	index   map[color.RGBA]uint8
	prev    [][]Cell
	prevCur cursorState
	frames  []*image.Paletted
	times   []time.Duration
}

type cursorState struct {
	x, y    int
	visible bool
}

// NewFrames returns a renderer for a terminal of the tape's size: the grid
// is as many cells of Go Mono at the tape's font size as fit in its width
// and height inside the padding.
func NewFrames(s Settings) (*Frames, error) {
	th, ok := themes[s.Theme]
	if !ok {
		return nil, fmt.Errorf("unknown theme %q", s.Theme)
	}
	g, err := newGlyphs(float64(s.FontSize), s.LineHeight)
	if err != nil {
		return nil, err
	}
	cols, rows := (s.Width-2*s.Padding)/g.cw, (s.Height-2*s.Padding)/g.ch
	if cols < 10 || rows < 3 {
		return nil, fmt.Errorf("a %d×%d picture with padding %d holds only %d×%d cells of a %d px font — make it larger or the font smaller",
			s.Width, s.Height, s.Padding, cols, rows, s.FontSize)
	}
	f := &Frames{theme: th, g: g, padding: s.Padding, cols: cols, rows: rows, index: map[color.RGBA]uint8{}}
	f.colorIndex(th.Background) // index 0: the GIF's background
	f.canvas = image.NewPaletted(image.Rect(0, 0, s.Width, s.Height), nil)
	return f, nil
}

// Size returns the terminal's columns and rows.
func (f *Frames) Size() (cols, rows int) { return f.cols, f.rows }

// Missing returns the runes the fonts lack, drawn as hollow boxes.
func (f *Frames) Missing() []rune {
	var rs []rune
	for r := range f.g.missing {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// Len returns the number of frames so far.
func (f *Frames) Len() int { return len(f.frames) }

// colorIndex returns c's palette index, adding c while there is room and
// falling back to the nearest colour after.
func (f *Frames) colorIndex(c color.RGBA) uint8 {
	if i, ok := f.index[c]; ok {
		return i
	}
	var i uint8
	if len(f.pal) < 256 {
		i = uint8(len(f.pal))
		f.pal = append(f.pal, c)
	} else {
		i = uint8(f.pal.Index(c))
	}
	f.index[c] = i
	return i
}

func blend(bg, fg color.RGBA, num, den int) color.RGBA {
	mix := func(a, b uint8) uint8 { return uint8((int(a)*(den-num) + int(b)*num + den/2) / den) }
	return color.RGBA{mix(bg.R, fg.R), mix(bg.G, fg.G), mix(bg.B, fg.B), 0xff}
}

// colors resolves a cell's drawn foreground and background.
func (f *Frames) colors(c Cell, cursor bool) (fg, bg color.RGBA) {
	fgc := c.FG
	if c.Attr&AttrBold != 0 && fgc&0xff000000 == colorIndexed && fgc&0xff < 8 {
		// Bold in one of the eight base colours shows its bright twin,
		// as xterm.js does by default.
		fgc += 8
	}
	fg, bg = f.theme.RGBA(fgc, true), f.theme.RGBA(c.BG, false)
	if c.Attr&AttrReverse != 0 {
		fg, bg = bg, fg
	}
	if c.Attr&AttrFaint != 0 {
		fg = blend(bg, fg, 1, 2)
	}
	if c.Attr&AttrInvisible != 0 {
		fg = bg
	}
	if cursor {
		fg, bg = f.theme.Background, f.theme.Cursor
	}
	return fg, bg
}

// cellRect returns the pixels of cell (x, y).
func (f *Frames) cellRect(x, y int) image.Rectangle {
	x0, y0 := f.padding+x*f.g.cw, f.padding+y*f.g.ch
	return image.Rect(x0, y0, x0+f.g.cw, y0+f.g.ch)
}

// drawCell paints cell (x, y) onto the canvas and returns the pixels it
// covered.
func (f *Frames) drawCell(x, y int, c Cell, cursor bool) image.Rectangle {
	cw, ch := f.g.cw, f.g.ch
	r := f.cellRect(x, y)
	if c.Wide && x+1 < f.cols {
		r.Max.X += cw
	}
	w := r.Dx()
	fg, bg := f.colors(c, cursor)
	var ramp [levels + 1]uint8
	for i := range ramp {
		ramp[i] = f.colorIndex(blend(bg, fg, i, levels))
	}
	cv := f.canvas
	for py := r.Min.Y; py < r.Max.Y; py++ {
		row := cv.Pix[cv.PixOffset(r.Min.X, py):]
		for px := range w {
			row[px] = ramp[0]
		}
	}
	if c.Rune != 0 && c.Rune != ' ' {
		var style uint8
		if c.Attr&AttrBold != 0 {
			style |= 1
		}
		if c.Attr&AttrItalic != 0 {
			style |= 2
		}
		m := f.g.mask(c.Rune, style, w > cw)
		for py := range ch {
			row := cv.Pix[cv.PixOffset(r.Min.X, r.Min.Y+py):]
			mrow := m.Pix[py*m.Stride:]
			for px := range w {
				if a := mrow[px]; a != 0 {
					row[px] = ramp[(int(a)*levels+127)/255]
				}
			}
		}
	}
	line := func(py, thick int) {
		for t := range thick {
			if yy := r.Min.Y + py + t; yy < r.Max.Y {
				row := cv.Pix[cv.PixOffset(r.Min.X, yy):]
				for px := range w {
					row[px] = ramp[levels]
				}
			}
		}
	}
	thick := max(1, ch/18)
	if c.Attr&AttrUnderline != 0 {
		line(min(f.g.ascent+thick+1, ch-thick), thick)
	}
	if c.Attr&AttrStrike != 0 {
		line(ch/2, thick)
	}
	return r
}

// Add renders a screen taken at time at (on the recording's clock) and
// keeps it as a frame if anything changed since the last one; an
// unchanged screen only lengthens the last frame.
func (f *Frames) Add(lines [][]Cell, curX, curY int, curVisible bool, at time.Duration) {
	cur := cursorState{curX, curY, curVisible}
	first := f.prev == nil
	var dirty image.Rectangle
	if first {
		for i := range f.canvas.Pix {
			f.canvas.Pix[i] = 0
		}
		dirty = f.canvas.Bounds()
	}
	isCursor := func(x, y int) bool { return cur.visible && cur.x == x && cur.y == y }
	for y := 0; y < f.rows && y < len(lines); y++ {
		for x := 0; x < f.cols && x < len(lines[y]); x++ {
			c := lines[y][x]
			if c.Cont {
				continue
			}
			wasCursor := f.prevCur.visible && f.prevCur.x == x && f.prevCur.y == y
			changed := first || c != f.prev[y][x] || isCursor(x, y) != wasCursor
			if c.Wide && !first && x+1 < len(lines[y]) && lines[y][x+1] != f.prev[y][x+1] {
				changed = true
			}
			if !changed {
				continue
			}
			dirty = dirty.Union(f.drawCell(x, y, c, isCursor(x, y)))
		}
	}
	f.prev, f.prevCur = lines, cur
	if dirty.Empty() {
		return
	}
	frame := image.NewPaletted(dirty, nil)
	for y := dirty.Min.Y; y < dirty.Max.Y; y++ {
		copy(frame.Pix[frame.PixOffset(dirty.Min.X, y):frame.PixOffset(dirty.Max.X, y)],
			f.canvas.Pix[f.canvas.PixOffset(dirty.Min.X, y):])
	}
	f.frames = append(f.frames, frame)
	f.times = append(f.times, at)
}

// Encode writes the frames as a looping GIF; end is when the last frame
// stops showing, on the same clock as Add's.
func (f *Frames) Encode(w io.Writer, end time.Duration) error {
	if len(f.frames) == 0 {
		return fmt.Errorf("no frames to write: nothing was shown (is the whole tape between Hide and Show?)")
	}
	pal := append(color.Palette(nil), f.pal...)
	out := &gif.GIF{
		Config: image.Config{ColorModel: pal, Width: f.canvas.Bounds().Dx(), Height: f.canvas.Bounds().Dy()},
	}
	// Delays are in hundredths of a second; rounding each frame's start
	// keeps the rounding errors from adding up.
	cs := func(d time.Duration) int { return int((d + 5*time.Millisecond) / (10 * time.Millisecond)) }
	for i, fr := range f.frames {
		fr.Palette = pal
		next := end
		if i+1 < len(f.times) {
			next = f.times[i+1]
		}
		out.Image = append(out.Image, fr)
		out.Delay = append(out.Delay, max(2, cs(next)-cs(f.times[i])))
		out.Disposal = append(out.Disposal, gif.DisposalNone)
	}
	return gif.EncodeAll(w, out)
}
