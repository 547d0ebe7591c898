package media

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"io"
	"os"

	// Decoders registered with image.Decode.
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// Preview limits. A preview never needs more: anything larger is almost
// certainly not a picture someone wants drawn in a terminal, and decoding it
// could take seconds and gigabytes.
const (
	// MaxFileBytes bounds the size of an image file.
	MaxFileBytes = 64 << 20
	// MaxPixels bounds width×height of a decoded image.
	MaxPixels = 40_000_000
)

var (
	// ErrTooLarge is returned (wrapped) for images beyond the preview limits.
	ErrTooLarge = errors.New("image too large to preview")
	// ErrUnsupported is returned (wrapped) for files that are not an image
	// in a format this package decodes.
	ErrUnsupported = errors.New("not a png, jpeg, gif, webp, bmp or tiff image")
)

// Load decodes the image at path (png, jpeg, gif — first frame — webp, bmp
// or tiff) after checking that it is within the preview limits.
func Load(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot preview %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot preview %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("cannot preview %s: it is a directory", path)
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("cannot preview %s: %w (%d MiB; the limit is %d MiB) — open it in an image viewer", path, ErrTooLarge, st.Size()>>20, MaxFileBytes>>20)
	}
	cfg, format, err := decodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("cannot preview %s: %w", path, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("cannot preview %s: the %s header says %d×%d pixels", path, format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return nil, fmt.Errorf("cannot preview %s: %w (%d×%d pixels; the limit is %d megapixels) — open it in an image viewer",
			path, ErrTooLarge, cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("cannot preview %s: %w", path, err)
	}
	img, err := decode(f)
	if err != nil {
		return nil, fmt.Errorf("cannot preview %s: the %s data is damaged: %w", path, format, err)
	}
	return img, nil
}

// decodeConfig reads the header only.
func decodeConfig(r io.Reader) (cfg image.Config, format string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w (the decoder failed: %v)", ErrUnsupported, v)
		}
	}()
	cfg, format, err = image.DecodeConfig(bufio.NewReader(r))
	if errors.Is(err, image.ErrFormat) {
		return cfg, format, ErrUnsupported
	}
	return cfg, format, err
}

// decode decodes the whole image. The standard decoders return errors for
// bad input, but a preview is never worth crashing the app over, so a panic
// in a decoder becomes an error too.
func decode(r io.Reader) (img image.Image, err error) {
	defer func() {
		if v := recover(); v != nil {
			img, err = nil, fmt.Errorf("decoder failed: %v", v)
		}
	}()
	img, _, err = image.Decode(bufio.NewReader(r))
	return img, err
}
