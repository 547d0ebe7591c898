package imaging

import (
	"image"
	"image/color"
	"math"
)

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
