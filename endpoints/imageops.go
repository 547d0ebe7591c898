package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/image/bmp"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/tiff"

	// WebP can be read but not written: the Go ecosystem has no encoder.
	_ "golang.org/x/image/webp"
)

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

// decodableFormats is what the "not an image" error lists.
const decodableFormats = "PNG, JPEG, GIF, BMP, TIFF or WebP"

// LoadImage reads and decodes the image file at path. It returns the image
// and its format name ("png", "jpeg", "gif", "bmp", "tiff", "webp"). Every
// failure wraps ErrBadInput and names the file.
func LoadImage(path string) (image.Image, string, error) {
	if strings.TrimSpace(path) == "" {
		return nil, "", fmt.Errorf("%w: no image path given", ErrBadInput)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("%w: image file %s does not exist — check the path", ErrBadInput, path)
	case err != nil:
		return nil, "", fmt.Errorf("%w: cannot read image %s: %v", ErrBadInput, path, err)
	case fi.IsDir():
		return nil, "", fmt.Errorf("%w: %s is a directory, not an image file", ErrBadInput, path)
	case !fi.Mode().IsRegular():
		return nil, "", fmt.Errorf("%w: %s is not a regular file (a pipe or device) — give an image file", ErrBadInput, path)
	case fi.Size() > maxImageFileBytes:
		return nil, "", fmt.Errorf("%w: image %s is %s; the built-in tools read at most %d MB", ErrBadInput, path, humanFileSize(fi.Size()), maxImageFileBytes>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("%w: cannot read image %s: %v", ErrBadInput, path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxImageFileBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("%w: cannot read image %s: %v", ErrBadInput, path, err)
	}
	img, format, err := DecodeImage(data)
	if err != nil {
		return nil, "", fmt.Errorf("image %s: %w", path, err)
	}
	return img, format, nil
}

// DecodeImage decodes an image in any supported format (PNG, JPEG, GIF, BMP,
// TIFF, WebP). It checks the dimensions in the header first and refuses
// empty images and images over MaxPixels without decoding them. The image
// returned always has its origin at (0, 0). Errors wrap ErrBadInput.
func DecodeImage(data []byte) (img image.Image, format string, err error) {
	if len(data) == 0 {
		return nil, "", fmt.Errorf("%w: the image file is empty", ErrBadInput)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if errors.Is(err, image.ErrFormat) {
		return nil, "", fmt.Errorf("%w: not a %s image", ErrBadInput, decodableFormats)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w: unreadable %s header: %v", ErrBadInput, format, err)
	}
	if err := checkDims(cfg.Width, cfg.Height); err != nil {
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
	if err != nil {
		return nil, "", fmt.Errorf("%w: truncated or corrupt %s image: %v", ErrBadInput, format, err)
	}
	b := img.Bounds()
	if err := checkDims(b.Dx(), b.Dy()); err != nil {
		return nil, "", err
	}
	if b.Min != (image.Point{}) {
		img = cloneRGBA(img)
	}
	return img, format, nil
}

// checkDims refuses empty and oversized images.
func checkDims(w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: the image is %d×%d and has no pixels", ErrBadInput, w, h)
	}
	if w > maxSide || h > maxSide || int64(w)*int64(h) > MaxPixels {
		return fmt.Errorf("%w: the image is %d×%d (%.0f megapixels); the built-in image tools handle at most %d megapixels — downscale it first",
			ErrBadInput, w, h, float64(w)*float64(h)/1e6, MaxPixels/1_000_000)
	}
	return nil
}

// imageFormats maps the names people use for an encodable format to its
// canonical name.
var imageFormats = map[string]string{
	"png": "png", "jpeg": "jpeg", "jpg": "jpeg", "jpe": "jpeg", "jfif": "jpeg",
	"gif": "gif", "bmp": "bmp", "bitmap": "bmp", "tiff": "tiff", "tif": "tiff",
}

// imageMIME is the MIME type of every known format, decode-only ones too.
var imageMIME = map[string]string{
	"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif",
	"bmp": "image/bmp", "tiff": "image/tiff", "webp": "image/webp",
}

// parseImageFormat reads a format name as a person or a planner writes it:
// "JPG", ".jpeg", "image/png", "tif".
func parseImageFormat(s string) (string, error) {
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

// EncodeImage encodes img as format (png, jpeg/jpg, gif, bmp, tiff) and
// returns it as a Blob with the matching MIME type. JPEG and GIF cannot store
// partial transparency, so a translucent image is flattened onto white for
// them rather than letting transparent areas turn black.
func EncodeImage(img image.Image, format string) (Blob, error) {
	f, err := parseImageFormat(format)
	if err != nil {
		return Blob{}, err
	}
	if img == nil {
		return Blob{}, fmt.Errorf("%w: no image to encode", ErrBadInput)
	}
	if err := checkDims(img.Bounds().Dx(), img.Bounds().Dy()); err != nil {
		return Blob{}, err
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
		return Blob{}, fmt.Errorf("encode %s: %w", f, err)
	}
	return Blob{MIME: imageMIME[f], Data: buf.Bytes()}, nil
}

// encodePNG is EncodeImage for the common case.
func encodePNG(img image.Image) (Blob, error) { return EncodeImage(img, "png") }

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

// resizeImage scales img to w×h with a Catmull-Rom filter, which stays sharp
// when enlarging and does not alias when shrinking. Grayscale stays gray.
func resizeImage(img image.Image, w, h int) image.Image {
	var dst draw.Image
	if _, ok := img.(*image.Gray); ok {
		dst = image.NewGray(image.Rect(0, 0, w, h))
	} else {
		dst = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), xdraw.Src, nil)
	return dst
}

var (
	numPat    = `(\d+(?:\.\d+)?)`
	reSizeWxH = regexp.MustCompile(`(?i)(\d+)\s*(?:px)?\s*[x×*]\s*(\d+)`)
	reSizePct = regexp.MustCompile(`(?i)` + numPat + `\s*(?:%|percent)`)
	// Width and height: "width 800" is tried before "800 wide", so that in
	// "width 100 height 50" the 100 is not read as a height.
	reSizeWidth = []*regexp.Regexp{
		regexp.MustCompile(`(?i)(?:\bwidth|\bw)\s*(?:of|to|=|:)?\s*(\d+)`),
		regexp.MustCompile(`(?i)(\d+)\s*(?:px|pixels?)?\s*(?:wide\b|width\b)`),
	}
	reSizeHeight = []*regexp.Regexp{
		regexp.MustCompile(`(?i)(?:\bheight|\bh)\s*(?:of|to|=|:)?\s*(\d+)`),
		regexp.MustCompile(`(?i)(\d+)\s*(?:px|pixels?)?\s*(?:tall\b|high\b|height\b)`),
	}
	reSizeFactor = regexp.MustCompile(`(?i)(?:\bscale\s*(?:by|=|:)?\s*` + numPat + `|` + numPat + `\s*(?:x|times)(?:\s|$))`)
	reSizeLong   = regexp.MustCompile(`(?i)(?:max(?:imum)?|long(?:est)?\s*side|fit(?:\s*in(?:to)?)?)\s*(?:of|to|=|:)?\s*(\d+)`)
	reSizeNamed  = map[string]float64{"half": 0.5, "quarter": 0.25, "double": 2, "twice": 2, "third": 1.0 / 3}
)

// parseResize reads a target size for a w×h image: "512x512", "50%",
// "width 800" or "800 wide" (height follows the aspect ratio), "height 600",
// "scale 0.5", "2x", "half", "max 1024" (longest side). The text may be a
// whole sentence ("resize it to 640x480 please").
func parseResize(spec string, w, h int) (int, int, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return 0, 0, fmt.Errorf("%w: no target size given — say e.g. \"512x512\", \"50%%\" or \"width 800\"", ErrBadInput)
	}
	var nw, nh float64
	switch {
	case reSizeWxH.MatchString(s):
		m := reSizeWxH.FindStringSubmatch(s)
		nw, nh = atof(m[1]), atof(m[2])
	case reSizePct.MatchString(s):
		p := atof(reSizePct.FindStringSubmatch(s)[1]) / 100
		nw, nh = float64(w)*p, float64(h)*p
	case firstNumber(reSizeWidth, s) >= 0 || firstNumber(reSizeHeight, s) >= 0:
		nw, nh = firstNumber(reSizeWidth, s), firstNumber(reSizeHeight, s)
		switch {
		case nh < 0:
			nh = nw * float64(h) / float64(w)
		case nw < 0:
			nw = nh * float64(w) / float64(h)
		}
	case reSizeLong.MatchString(s):
		l := atof(reSizeLong.FindStringSubmatch(s)[1])
		f := l / float64(max(w, h))
		nw, nh = float64(w)*f, float64(h)*f
	case reSizeFactor.MatchString(s):
		m := reSizeFactor.FindStringSubmatch(s)
		f := atof(m[1] + m[2])
		nw, nh = float64(w)*f, float64(h)*f
	default:
		for word, f := range reSizeNamed {
			if strings.Contains(strings.ToLower(s), word) {
				nw, nh = float64(w)*f, float64(h)*f
			}
		}
	}
	if nw == 0 && nh == 0 {
		return 0, 0, fmt.Errorf("%w: cannot read a size from %q — say e.g. \"512x512\", \"50%%\", \"width 800\" or \"height 600\"", ErrBadInput, spec)
	}
	rw, rh := int(math.Round(nw)), int(math.Round(nh))
	if math.IsNaN(nw) || math.IsNaN(nh) || rw < 1 || rh < 1 {
		return 0, 0, fmt.Errorf("%w: %q makes the %d×%d image smaller than one pixel", ErrBadInput, spec, w, h)
	}
	if nw > maxSide || nh > maxSide || nw*nh > MaxPixels {
		return 0, 0, fmt.Errorf("%w: %q would make a %.0f×%.0f image; the built-in tools produce at most %d megapixels", ErrBadInput, spec, nw, nh, MaxPixels/1_000_000)
	}
	return rw, rh, nil
}

// firstNumber returns the number captured by the first of res that
// matches s, or -1.
func firstNumber(res []*regexp.Regexp, s string) float64 {
	for _, re := range res {
		if m := re.FindStringSubmatch(s); m != nil {
			return atof(m[1])
		}
	}
	return -1
}

func atof(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0
	}
	return f
}

var reNumber = regexp.MustCompile(`-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)

// parseBox reads a box "x1,y1,x2,y2" (brackets, parentheses and spaces
// allowed) for an image of size bounds and returns it clipped to the image.
// When all four values lie in [0, 1] and one has a fraction, they are taken
// as fractions of the image size, as LLaVA-Plus's grounding tools write them.
func parseBox(spec string, bounds image.Rectangle) (image.Rectangle, error) {
	nums := reNumber.FindAllString(spec, -1)
	if len(nums) != 4 {
		return image.Rectangle{}, fmt.Errorf("%w: box %q: want four numbers \"x1,y1,x2,y2\" in image pixels", ErrBadInput, spec)
	}
	var v [4]float64
	frac := strings.Contains(strings.Join(nums, ""), ".")
	for i, n := range nums {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return image.Rectangle{}, fmt.Errorf("%w: box %q: %q is not a number", ErrBadInput, spec, n)
		}
		v[i] = f
		if f < 0 || f > 1 {
			frac = false
		}
	}
	if frac {
		v[0], v[2] = v[0]*float64(bounds.Dx()), v[2]*float64(bounds.Dx())
		v[1], v[3] = v[1]*float64(bounds.Dy()), v[3]*float64(bounds.Dy())
	}
	r := pixelRect(v)
	c := r.Intersect(bounds)
	if c.Empty() {
		return image.Rectangle{}, fmt.Errorf("%w: box %q lies outside the %d×%d image", ErrBadInput, spec, bounds.Dx(), bounds.Dy())
	}
	return c, nil
}

// pixelRect turns float corners into the pixel rectangle covering them,
// putting reversed corners in order, clamping absurd values so the integer
// conversion cannot overflow, and widening a degenerate box to one pixel.
func pixelRect(v [4]float64) image.Rectangle {
	for i := range v {
		v[i] = math.Max(-1e7, math.Min(1e7, v[i]))
	}
	x0, x1 := math.Min(v[0], v[2]), math.Max(v[0], v[2])
	y0, y1 := math.Min(v[1], v[3]), math.Max(v[1], v[3])
	r := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1)))
	if r.Dx() == 0 {
		r.Max.X++
	}
	if r.Dy() == 0 {
		r.Max.Y++
	}
	return r
}

// cropImage returns the part of img inside r, as a new image with its
// origin at (0, 0).
func cropImage(img image.Image, r image.Rectangle) image.Image {
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(dst, dst.Bounds(), img, r.Min, draw.Src)
	return dst
}

// luminance returns img's luma (ITU-R BT.601, 0–255) as one float32 per
// pixel, row by row, with fast paths for the layouts decoders produce.
func luminance(img image.Image) []float32 {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]float32, w*h)
	switch m := img.(type) {
	case *image.Gray:
		for y := range h {
			row := m.Pix[(y)*m.Stride : y*m.Stride+w]
			for x, v := range row {
				out[y*w+x] = float32(v)
			}
		}
	case *image.YCbCr:
		for y := range h {
			off := m.YOffset(b.Min.X, b.Min.Y+y)
			for x, v := range m.Y[off : off+w] {
				out[y*w+x] = float32(v)
			}
		}
	case *image.RGBA:
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			for x := range w {
				p := row[4*x : 4*x+3]
				out[y*w+x] = 0.299*float32(p[0]) + 0.587*float32(p[1]) + 0.114*float32(p[2])
			}
		}
	case *image.NRGBA:
		for y := range h {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			for x := range w {
				p := row[4*x : 4*x+4]
				a := float32(p[3]) / 255
				out[y*w+x] = a * (0.299*float32(p[0]) + 0.587*float32(p[1]) + 0.114*float32(p[2]))
			}
		}
	default:
		for y := range h {
			for x := range w {
				g := color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray)
				out[y*w+x] = float32(g.Y)
			}
		}
	}
	return out
}

// Default Canny thresholds: the ones ControlNet's canny preprocessor and
// HuggingGPT's canny-control use (cv2.Canny(img, 100, 200)).
const (
	CannyLow  = 100
	CannyHigh = 200
)

// Canny returns the Canny edge map of img: white (255) edge pixels on black,
// the same size as img — the control image ControlNet's canny model expects.
// The image is converted to luma, smoothed with a 5×5 Gaussian (σ = 1.4),
// differentiated with Sobel kernels, thinned by non-maximum suppression and
// traced with hysteresis: pixels whose gradient exceeds high start an edge,
// which continues through pixels above low. Gradient magnitudes are
// |Gx|+|Gy| on 0–255 intensities, OpenCV's default, so thresholds mean what
// they mean to cv2.Canny.
func Canny(img image.Image, low, high float64) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	if w == 0 || h == 0 {
		return out
	}
	if low > high {
		low, high = high, low
	}
	lum := luminance(img)
	tmp := make([]float32, w*h)
	gaussian5(lum, tmp, w, h)
	// lum now holds the smoothed image; tmp is reused for magnitudes.
	mag, dir := tmp, make([]uint8, w*h)
	sobel(lum, mag, dir, w, h)
	state := out.Pix // 0 none, 1 candidate, 255 edge
	stack := make([]int32, 0, 1024)
	lo, hi := float32(low), float32(high)
	at := func(x, y int) float32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return mag[y*w+x]
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			m := mag[i]
			if m <= lo {
				continue
			}
			var a, c float32 // neighbours before and after along the gradient
			switch dir[i] {
			case 0:
				a, c = at(x-1, y), at(x+1, y)
			case 1:
				a, c = at(x-1, y-1), at(x+1, y+1)
			case 2:
				a, c = at(x, y-1), at(x, y+1)
			default:
				a, c = at(x+1, y-1), at(x-1, y+1)
			}
			// Strict on one side, not the other, so a plateau two pixels
			// wide still yields a one-pixel edge (OpenCV does the same).
			if !(m > a && m >= c) {
				continue
			}
			if m > hi {
				state[i] = 255
				stack = append(stack, int32(i))
			} else {
				state[i] = 1
			}
		}
	}
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				nx, ny := x+dx, y+dy
				if nx < 0 || ny < 0 || nx >= w || ny >= h {
					continue
				}
				if j := ny*w + nx; state[j] == 1 {
					state[j] = 255
					stack = append(stack, int32(j))
				}
			}
		}
	}
	for i, v := range state {
		if v != 255 {
			state[i] = 0
		}
	}
	return out
}

// gaussian5 blurs src in place with a separable 5-tap Gaussian (σ = 1.4),
// using tmp as scratch; edges replicate the border pixel.
func gaussian5(src, tmp []float32, w, h int) {
	var k [5]float32
	var sum float32
	for i := range k {
		d := float64(i - 2)
		k[i] = float32(math.Exp(-d * d / (2 * 1.4 * 1.4)))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	clamp := func(v, n int) int { return min(max(v, 0), n-1) }
	for y := range h {
		row := src[y*w : y*w+w]
		dst := tmp[y*w : y*w+w]
		for x := range w {
			if x >= 2 && x < w-2 {
				dst[x] = k[0]*row[x-2] + k[1]*row[x-1] + k[2]*row[x] + k[3]*row[x+1] + k[4]*row[x+2]
				continue
			}
			var s float32
			for j := -2; j <= 2; j++ {
				s += k[j+2] * row[clamp(x+j, w)]
			}
			dst[x] = s
		}
	}
	for y := range h {
		r := [5][]float32{}
		for j := -2; j <= 2; j++ {
			yy := clamp(y+j, h)
			r[j+2] = tmp[yy*w : yy*w+w]
		}
		dst := src[y*w : y*w+w]
		for x := range w {
			dst[x] = k[0]*r[0][x] + k[1]*r[1][x] + k[2]*r[2][x] + k[3]*r[3][x] + k[4]*r[4][x]
		}
	}
}

// tan(22.5°) and tan(67.5°), the sector bounds for gradient directions.
const (
	tan22 = 0.41421356
	tan67 = 2.41421356
)

// sobel writes the L1 gradient magnitude of src into mag and the gradient
// direction, quantised to 0 (horizontal), 1 (down-right diagonal),
// 2 (vertical) or 3 (down-left diagonal), into dir. Edges replicate.
func sobel(src, mag []float32, dir []uint8, w, h int) {
	for y := range h {
		up := src[max(y-1, 0)*w:]
		mid := src[y*w:]
		dn := src[min(y+1, h-1)*w:]
		for x := range w {
			xl, xr := max(x-1, 0), min(x+1, w-1)
			gx := (up[xr] + 2*mid[xr] + dn[xr]) - (up[xl] + 2*mid[xl] + dn[xl])
			gy := (dn[xl] + 2*dn[x] + dn[xr]) - (up[xl] + 2*up[x] + up[xr])
			ax, ay := abs32(gx), abs32(gy)
			i := y*w + x
			mag[i] = ax + ay
			switch {
			case ay <= ax*tan22:
				dir[i] = 0
			case ay > ax*tan67:
				dir[i] = 2
			case (gx > 0) == (gy > 0):
				dir[i] = 1
			default:
				dir[i] = 3
			}
		}
	}
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
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
