package media

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
)

// Options size a rendering.
type Options struct {
	// Cols and Rows are the box, in terminal cells, the image must fit in.
	Cols, Rows int
	// CellWidth and CellHeight are the size of a cell in pixels, which only
	// sixel needs (the other protocols are told the size in cells). Zero
	// means DefaultCellWidth×DefaultCellHeight.
	CellWidth, CellHeight int
}

func (o Options) cell() (w, h int) {
	w, h = o.CellWidth, o.CellHeight
	if w <= 0 || h <= 0 || w > 1000 || h > 1000 {
		return DefaultCellWidth, DefaultCellHeight
	}
	return w, h
}

// Render returns what to print to show the image at path in a box of
// cols×rows cells using protocol p: a kitty or iTerm2 escape sequence, a
// sixel DCS sequence, lines of half-block cells, or for None a one-line label
// naming the file. Unreadable, unknown and oversized images give an error
// (with None, only an unreadable file does: the label needs no pixels).
//
// Graphics sequences draw at the cursor and take Fit's c×r cells; print a
// newline after them. Half-blocks are plain lines, each at most cols wide
// (see FitBlocks for their size).
func Render(path string, p Protocol, cols, rows int) (string, error) {
	return RenderFile(path, p, Options{Cols: cols, Rows: rows})
}

// RenderFile is Render with a known cell size.
func RenderFile(path string, p Protocol, o Options) (string, error) {
	if o.Cols < 1 || o.Rows < 1 {
		return "", fmt.Errorf("cannot preview %s: no room to draw it (%d×%d cells)", path, o.Cols, o.Rows)
	}
	if p == None {
		return labelFile(path)
	}
	img, err := Load(path)
	if err != nil {
		return "", err
	}
	return RenderImage(img, p, o)
}

// RenderImage renders a decoded image; see Render. With None it returns a
// label without a file name.
func RenderImage(img image.Image, p Protocol, o Options) (string, error) {
	if img == nil || img.Bounds().Empty() {
		return "", fmt.Errorf("cannot preview an empty image")
	}
	if o.Cols < 1 || o.Rows < 1 {
		return "", fmt.Errorf("cannot preview the image: no room to draw it (%d×%d cells)", o.Cols, o.Rows)
	}
	b := img.Bounds()
	cw, ch := o.cell()
	c, r, pw, ph := fit(b.Dx(), b.Dy(), o.Cols, o.Rows, cw, ch)
	switch p {
	case None:
		return Label("", b.Dx(), b.Dy()), nil
	case HalfBlocks:
		return RenderBlocks(img, o.Cols, o.Rows), nil
	case Kitty:
		return kittySequence(scale(img, pw, ph), c, r)
	case ITerm2:
		data, err := encodePNG(scale(img, pw, ph))
		if err != nil {
			return "", err
		}
		return iterm2Sequence(data, c, r), nil
	case Sixel:
		return encodeSixel(scale(img, pw, ph)), nil
	}
	return "", fmt.Errorf("unknown graphics protocol %v", p)
}

func encodePNG(m image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, m); err != nil {
		return nil, fmt.Errorf("encoding the preview: %w", err)
	}
	return buf.Bytes(), nil
}

// Label is the text shown instead of an image: its size when known
// (w, h > 0) and its path, so the reader can open it.
func Label(path string, w, h int) string {
	s := "[image"
	if w > 0 && h > 0 {
		s += fmt.Sprintf(" %d×%d", w, h)
	}
	s += "]"
	if path != "" {
		s += " " + path
	}
	return s
}

// labelFile labels the file at path, reading only its header for the size.
func labelFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot preview %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("cannot preview %s: it is a directory", path)
	}
	cfg, _, err := decodeConfig(f)
	if err != nil {
		return Label(path, 0, 0), nil
	}
	return Label(path, cfg.Width, cfg.Height), nil
}
