package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"

	// WebP can be read but not written: the Go ecosystem has no encoder.
	_ "golang.org/x/image/webp"
)

// DecodableFormats names the formats Decode reads, as errors about a file
// that is not an image list them.
const DecodableFormats = "PNG, JPEG, GIF, BMP, TIFF or WebP"

// Load reads and decodes the image file at path. It returns the image
// and its format name ("png", "jpeg", "gif", "bmp", "tiff", "webp"). Every
// failure wraps ErrBadInput and names the file.
func Load(path string) (image.Image, string, error) {
	if strings.TrimSpace(path) == "" {
		return nil, "", fmt.Errorf("%w: no image path given", ErrBadInput)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("%w: image file %s does not exist — check the path", ErrBadInput, path)
	case err != nil:
		return nil, "", fmt.Errorf("%w: cannot read image %s: %w", ErrBadInput, path, err)
	case fi.IsDir():
		return nil, "", fmt.Errorf("%w: %s is a directory, not an image file", ErrBadInput, path)
	case !fi.Mode().IsRegular():
		return nil, "", fmt.Errorf("%w: %s is not a regular file (a pipe or device) — give an image file", ErrBadInput, path)
	case fi.Size() > maxImageFileBytes:
		return nil, "", fmt.Errorf("%w: image %s is %s; the built-in tools read at most %d MB", ErrBadInput, path, humanFileSize(fi.Size()), maxImageFileBytes>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("%w: cannot read image %s: %w", ErrBadInput, path, err)
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads and decodes an image from r — an opened file, for callers
// that decide themselves which files may be opened — naming it name in
// messages. It reads at most as much as Load accepts: a file that says it
// is larger (r has a Stat method) is refused before it is read, and a
// stream that runs past the limit once the count passes it. It returns
// the image and its format name; every failure wraps ErrBadInput.
func Read(r io.Reader, name string) (image.Image, string, error) {
	size := int64(-1)
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if size > maxImageFileBytes {
		return nil, "", fmt.Errorf("%w: image %s is %s; the built-in tools read at most %d MB", ErrBadInput, name, humanFileSize(size), maxImageFileBytes>>20)
	}
	var data []byte
	var err error
	if size >= 0 {
		// Sized exactly: the file is held once, not grown by doubling.
		data = make([]byte, size)
		_, err = io.ReadFull(r, data)
	} else {
		data, err = io.ReadAll(io.LimitReader(r, maxImageFileBytes+1))
		if err == nil && int64(len(data)) > maxImageFileBytes {
			return nil, "", fmt.Errorf("%w: image %s is larger than %d MB; the built-in tools read at most that", ErrBadInput, name, maxImageFileBytes>>20)
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: cannot read image %s: %w", ErrBadInput, name, err)
	}
	img, format, err := Decode(data)
	if err != nil {
		return nil, "", fmt.Errorf("image %s: %w", name, err)
	}
	return img, format, nil
}

// Decode decodes an image in any supported format (PNG, JPEG, GIF, BMP,
// TIFF, WebP). It checks the dimensions in the header first and refuses
// empty images and images over MaxPixels without decoding them. The image
// returned always has its origin at (0, 0). Errors wrap ErrBadInput.
func Decode(data []byte) (img image.Image, format string, err error) {
	if len(data) == 0 {
		return nil, "", fmt.Errorf("%w: the image file is empty", ErrBadInput)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return nil, "", fmt.Errorf("%w: not a %s image", ErrBadInput, DecodableFormats)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: unreadable %s header: %w", ErrBadInput, format, err)
	}
	if err := CheckSize(cfg.Width, cfg.Height); err != nil {
		return nil, "", err
	}
	// The decoders outside the standard library have panicked on crafted
	// input in the past; a bad file must fail the task, not the program.
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("%w: corrupt %s image (decoder failed: %v)", ErrBadInput, format, r)
		}
	}()
	img, _, err = image.Decode(bytes.NewReader(data))
	if err != nil && format == "png" {
		if fixed, ok := dropBadAncillary(data); ok {
			img, _, err = image.Decode(bytes.NewReader(fixed))
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: truncated or corrupt %s image: %w", ErrBadInput, format, err)
	}
	b := img.Bounds()
	if err := CheckSize(b.Dx(), b.Dy()); err != nil {
		return nil, "", err
	}
	if b.Min != (image.Point{}) {
		img = cloneRGBA(img)
	}
	return img, format, nil
}

// imageFormats maps the names people use for an encodable format to its
// canonical name.
var imageFormats = map[string]string{
	"png": "png", "jpeg": "jpeg", "jpg": "jpeg", "jpe": "jpeg", "jfif": "jpeg",
	"gif": "gif", "bmp": "bmp", "bitmap": "bmp", "tiff": "tiff", "tif": "tiff",
}

// CanEncode reports whether Encode can write format (a canonical name, as
// Load returns it); WebP, for one, can be read but not written.
func CanEncode(format string) bool {
	_, ok := imageFormats[format]
	return ok
}

// imageMIME is the MIME type of every known format, decode-only ones too.
var imageMIME = map[string]string{
	"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif",
	"bmp": "image/bmp", "tiff": "image/tiff", "webp": "image/webp",
}

// ParseFormat reads a format name as a person or a planner writes it:
// "JPG", ".jpeg", "image/png", "tif".
func ParseFormat(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "image/")
	t = strings.TrimPrefix(t, ".")
	t = strings.TrimPrefix(t, "x-ms-")
	if f, ok := imageFormats[t]; ok {
		return f, nil
	}
	if t == "webp" {
		return "", fmt.Errorf("%w: WebP images can be read but not written — choose png, jpeg, gif, bmp or tiff", ErrBadInput)
	}
	return "", fmt.Errorf("%w: unknown image format %q (want png, jpeg, gif, bmp or tiff)", ErrBadInput, s)
}

// Encode encodes img as format (png, jpeg/jpg, gif, bmp, tiff) and
// returns it as a File with the matching MIME type. JPEG and GIF cannot store
// partial transparency, so a translucent image is flattened onto white for
// them rather than letting transparent areas turn black.
func Encode(img image.Image, format string) (File, error) {
	f, err := ParseFormat(format)
	if err != nil {
		return File{}, err
	}
	if img == nil {
		return File{}, fmt.Errorf("%w: no image to encode", ErrBadInput)
	}
	if err := CheckSize(img.Bounds().Dx(), img.Bounds().Dy()); err != nil {
		return File{}, err
	}
	var buf bytes.Buffer
	switch f {
	case "png":
		err = (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, flattenOnWhite(img), &jpeg.Options{Quality: 92})
	case "gif":
		err = gif.Encode(&buf, flattenOnWhite(img), &gif.Options{NumColors: 256, Drawer: draw.FloydSteinberg})
	case "bmp":
		err = bmp.Encode(&buf, img)
	case "tiff":
		err = tiff.Encode(&buf, img, &tiff.Options{Compression: tiff.Deflate, Predictor: true})
	}
	if err != nil {
		return File{}, fmt.Errorf("encode %s: %w", f, err)
	}
	return File{MIME: imageMIME[f], Data: buf.Bytes()}, nil
}

// EncodePNG is Encode for the common case.
func EncodePNG(img image.Image) (File, error) { return Encode(img, "png") }

// flattenOnWhite composites img over an opaque white background when it has
// any transparency.
func flattenOnWhite(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Over)
	return dst
}

// cloneRGBA copies img into a new RGBA image with its origin at (0, 0), the
// canvas every drawing function works on.
func cloneRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}
