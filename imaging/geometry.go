package imaging

import (
	"fmt"
	"image"
	"image/draw"
	"math"
	"regexp"
	"strconv"
	"strings"

	xdraw "golang.org/x/image/draw"
)

// Resize scales img to w×h with a Catmull-Rom filter, which stays sharp
// when enlarging and does not alias when shrinking. Grayscale stays gray.
func Resize(img image.Image, w, h int) image.Image {
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

// ParseSize reads a target size for a w×h image: "512x512", "50%",
// "width 800" or "800 wide" (height follows the aspect ratio), "height 600",
// "scale 0.5", "2x", "half", "max 1024" (longest side). The text may be a
// whole sentence ("resize it to 640x480 please").
func ParseSize(spec string, w, h int) (int, int, error) {
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

// ParseBox reads a box "x1,y1,x2,y2" (brackets, parentheses and spaces
// allowed) for an image of size bounds and returns it clipped to the image.
// When all four values lie in [0, 1] and one has a fraction, they are taken
// as fractions of the image size, as LLaVA-Plus's grounding tools write them.
func ParseBox(spec string, bounds image.Rectangle) (image.Rectangle, error) {
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

// Crop returns the part of img inside r, as a new image with its
// origin at (0, 0).
func Crop(img image.Image, r image.Rectangle) image.Image {
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(dst, dst.Bounds(), img, r.Min, draw.Src)
	return dst
}
