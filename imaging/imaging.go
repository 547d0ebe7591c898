// Package imaging is Chorus's image library: decoding and encoding the
// common formats with size limits checked before any pixel is allocated,
// resizing, cropping and format conversion, the Canny edge detector
// ControlNet expects, and drawing detections (boxes with labels) and
// segmentation masks onto an image, as HuggingGPT shows vision results.
//
// The built-in image tools, the Ollama endpoint's image preparation and
// the executor's annotated images all use it. It imports nothing of Chorus
// — only the standard library and golang.org/x/image — so it speaks in its
// own plain types: File for an encoded image, Detection and Mask for what
// is drawn, and ErrBadInput for input it cannot use, which callers map onto
// their own error classes.
package imaging

import (
	"errors"
	"fmt"
)

// ErrBadInput is wrapped by every error about the input: a file that is
// missing, unreadable, not an image, empty or too large, a size, box or
// format that cannot be read. Its text matches the endpoints' bad-input
// class, so messages read the same wherever the error surfaces.
var ErrBadInput = errors.New("bad input")

// File is an encoded image held in memory: its MIME type and bytes. It has
// the fields of an endpoint's Blob, so callers convert between the two.
type File struct {
	MIME string
	Data []byte
}

// MaxPixels is the largest image, in pixels (width × height), the built-in
// image tools decode or produce. A 100-megapixel RGBA image already needs
// 400 MB; anything larger is refused before it is decoded so a hostile or
// mistaken file cannot exhaust memory.
const MaxPixels = 100_000_000

// maxImageFileBytes bounds how much of an image file is read.
const maxImageFileBytes = 512 << 20

// maxSide bounds each side of an image the tools produce; it matches the
// largest dimension the common formats can store.
const maxSide = 65535

// CheckSize refuses a w×h image that is empty or over MaxPixels (or a side
// longer than the common formats can store), so callers check a size read
// from a header or an answer before allocating anything that large.
func CheckSize(w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: the image is %d×%d and has no pixels", ErrBadInput, w, h)
	}
	if w > maxSide || h > maxSide || int64(w)*int64(h) > MaxPixels {
		return fmt.Errorf("%w: the image is %d×%d (%.0f megapixels); the built-in image tools handle at most %d megapixels — downscale it first",
			ErrBadInput, w, h, float64(w)*float64(h)/1e6, MaxPixels/1_000_000)
	}
	return nil
}

// humanFileSize renders a byte count for error messages.
func humanFileSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", n>>10)
}
