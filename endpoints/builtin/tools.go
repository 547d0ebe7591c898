package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
)

var (
	reCannyLow  = regexp.MustCompile(`(?i)\blow(?:[ _-]?threshold)?\s*[=:]?\s*(-?\d+(?:\.\d+)?)`)
	reCannyHigh = regexp.MustCompile(`(?i)\bhigh(?:[ _-]?threshold)?\s*[=:]?\s*(-?\d+(?:\.\d+)?)`)
	reCannyPair = regexp.MustCompile(`(?i)\bthresholds?\s*[=:]?\s*(\d+(?:\.\d+)?)\s*[,/ ]\s*(\d+(?:\.\d+)?)`)
)

// cannyThresholds reads optional thresholds from text: "low 50 high 150" or
// "thresholds 50,150"; anything else keeps ControlNet's 100/200.
func cannyThresholds(text string) (float64, float64, error) {
	low, high := float64(imaging.CannyLow), float64(imaging.CannyHigh)
	if m := reCannyPair.FindStringSubmatch(text); m != nil {
		low, high = atof(m[1]), atof(m[2])
	} else {
		if m := reCannyLow.FindStringSubmatch(text); m != nil {
			low = atof(m[1])
		}
		if m := reCannyHigh.FindStringSubmatch(text); m != nil {
			high = atof(m[1])
		}
	}
	if low > high {
		low, high = high, low
	}
	if high <= 0 || low < 0 {
		return 0, 0, fmt.Errorf("%w: canny thresholds %g/%g: want two positive numbers such as \"low 100 high 200\"", endpoints.ErrBadInput, low, high)
	}
	return low, high, nil
}

func runCanny(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	low, high, err := cannyThresholds(req.Args["text"])
	if err != nil {
		return endpoints.Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to find edges in")
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	edges := imaging.Canny(img, low, high)
	n := 0
	for _, v := range edges.Pix {
		if v != 0 {
			n++
		}
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	blob, err := encode(edges, "png")
	if err != nil {
		return endpoints.Result{}, err
	}
	frac := float64(n) / float64(len(edges.Pix))
	data, _ := json.Marshal(map[string]any{
		"width": edges.Rect.Dx(), "height": edges.Rect.Dy(),
		"low_threshold": low, "high_threshold": high, "edge_fraction": frac,
	})
	return endpoints.Result{
		Text:  fmt.Sprintf("Canny edge map of the %s image (thresholds %g/%g): %.1f%% of the pixels are edges.", dims(img), low, high, 100*frac),
		Data:  data,
		Blobs: []endpoints.Blob{blob},
	}, nil
}

func runDrawBoxes(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	text := req.Args["text"]
	if strings.TrimSpace(text) == "" {
		text = req.Args["boxes"]
	}
	if strings.TrimSpace(text) == "" {
		return endpoints.Result{}, fmt.Errorf("%w: missing argument \"text\" (the detections to draw, e.g. an object-detection result)", endpoints.ErrBadInput)
	}
	dets, err := imaging.ParseDetections(text)
	if err != nil {
		return endpoints.Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to draw on")
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	out, drawn := imaging.DrawDetections(img, imaging.Denormalise(dets, img.Bounds()))
	if len(drawn) == 0 {
		return endpoints.Result{}, fmt.Errorf("%w: none of the %d boxes lies inside the %s image — are the coordinates for this image?", endpoints.ErrBadInput, len(dets), dims(img))
	}
	blob, err := encode(out, "png")
	if err != nil {
		return endpoints.Result{}, err
	}
	var parts []string
	for _, d := range drawn {
		parts = append(parts, d.String())
	}
	msg := fmt.Sprintf("Drew %d %s on the %s image: %s.", len(drawn), plural(len(drawn), "box", "boxes"), dims(img), strings.Join(parts, ", "))
	if skipped := len(dets) - len(drawn); skipped > 0 {
		msg += fmt.Sprintf(" %d %s outside the image were skipped.", skipped, plural(skipped, "box", "boxes"))
	}
	return endpoints.Result{Text: msg, Data: detectionsJSON(drawn), Blobs: []endpoints.Blob{blob}}, nil
}

// detectionsJSON renders detections in the Hugging Face object-detection
// shape.
func detectionsJSON(dets []imaging.Detection) json.RawMessage {
	type box struct {
		XMin float64 `json:"xmin"`
		YMin float64 `json:"ymin"`
		XMax float64 `json:"xmax"`
		YMax float64 `json:"ymax"`
	}
	type det struct {
		Score *float64 `json:"score"`
		Label string   `json:"label"`
		Box   box      `json:"box"`
	}
	out := make([]det, 0, len(dets))
	for _, d := range dets {
		x := det{Label: d.Label, Box: box{d.Box[0], d.Box[1], d.Box[2], d.Box[3]}}
		if !math.IsNaN(d.Score) && !math.IsInf(d.Score, 0) {
			s := d.Score
			x.Score = &s
		}
		out = append(out, x)
	}
	data, _ := json.Marshal(out)
	return data
}

func runMaskOverlay(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	const maskWhat = "the mask image; non-black pixels are inside"
	if _, err := req.File("mask", maskWhat); err != nil {
		return endpoints.Result{}, err
	}
	maskPath := req.Args["mask"]
	img, _, err := loadArgImage(req, "the image to overlay the mask on")
	if err != nil {
		return endpoints.Result{}, err
	}
	mask, _, err := loadImage(req, "mask", maskWhat)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("mask: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	label := strings.TrimSpace(req.Args["text"])
	out, cover := imaging.OverlayMasks(img, []imaging.Mask{{Label: label, Score: math.NaN(), Image: mask}})
	if cover[0] == 0 {
		return endpoints.Result{}, fmt.Errorf("%w: mask %s is entirely black, so nothing is inside it", endpoints.ErrBadInput, maskPath)
	}
	blob, err := encode(out, "png")
	if err != nil {
		return endpoints.Result{}, err
	}
	name := "the mask"
	if label != "" {
		name = fmt.Sprintf("the mask %q", label)
	}
	return endpoints.Result{
		Text:  fmt.Sprintf("Overlaid %s on the %s image; it covers %.1f%% of the image.", name, dims(img), 100*cover[0]),
		Blobs: []endpoints.Blob{blob},
	}, nil
}

func runResize(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	spec, err := req.Arg("text", `the target size: "512x512", "50%", "width 800" or "height 600"`)
	if err != nil {
		return endpoints.Result{}, err
	}
	img, format, err := loadArgImage(req, "the image to resize")
	if err != nil {
		return endpoints.Result{}, err
	}
	w, h, err := imaging.ParseSize(spec, img.Bounds().Dx(), img.Bounds().Dy())
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	out := imaging.Resize(img, w, h)
	note := ""
	if !imaging.CanEncode(format) {
		note = fmt.Sprintf(" (as PNG: %s cannot be written)", strings.ToUpper(format))
		format = "png"
	}
	blob, err := encode(out, format)
	if err != nil {
		return endpoints.Result{}, err
	}
	data, _ := json.Marshal(map[string]int{"width": w, "height": h})
	return endpoints.Result{
		Text:  fmt.Sprintf("Resized the image from %s to %d×%d%s.", dims(img), w, h, note),
		Data:  data,
		Blobs: []endpoints.Blob{blob},
	}, nil
}

var (
	reFormatWord   = regexp.MustCompile(`(?i)(?:^|[^a-z])\.?(png|jpe?g|jfif|gif|bmp|bitmap|tiff?|webp)(?:$|[^a-z])`)
	reFormatTarget = regexp.MustCompile(`(?i)\b(?:to|into|as|in)\s+(?:an?\s+)?\.?(png|jpe?g|jfif|gif|bmp|bitmap|tiff?|webp)\b`)
)

// targetFormat reads the format to convert to from text such as "jpeg",
// "convert it to PNG" or "save this png as a .tif".
func targetFormat(text string) (string, error) {
	t := strings.TrimSpace(text)
	if m := reFormatTarget.FindStringSubmatch(t); m != nil {
		return imaging.ParseFormat(m[1])
	}
	all := reFormatWord.FindAllStringSubmatch(t, -1)
	if len(all) == 0 {
		return imaging.ParseFormat(t)
	}
	return imaging.ParseFormat(all[len(all)-1][1])
}

func runConvert(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	spec, err := req.Arg("text", "the target format: png, jpeg, gif, bmp or tiff")
	if err != nil {
		return endpoints.Result{}, err
	}
	format, err := targetFormat(spec)
	if err != nil {
		return endpoints.Result{}, err
	}
	img, from, err := loadArgImage(req, "the image to convert")
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	blob, err := encode(img, format)
	if err != nil {
		return endpoints.Result{}, err
	}
	return endpoints.Result{
		Text:  fmt.Sprintf("Converted the %s %s image to %s (%s).", dims(img), strings.ToUpper(from), strings.ToUpper(format), blob.MIME),
		Blobs: []endpoints.Blob{blob},
	}, nil
}

func runCrop(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	spec, err := req.Arg("box", `the region to keep, "x1,y1,x2,y2" in image pixels`)
	if err != nil {
		return endpoints.Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to crop")
	if err != nil {
		return endpoints.Result{}, err
	}
	r, err := imaging.ParseBox(spec, img.Bounds())
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	blob, err := encode(imaging.Crop(img, r), "png")
	if err != nil {
		return endpoints.Result{}, err
	}
	data, _ := json.Marshal(map[string]int{"xmin": r.Min.X, "ymin": r.Min.Y, "xmax": r.Max.X, "ymax": r.Max.Y})
	return endpoints.Result{
		Text: fmt.Sprintf("Cropped [%d,%d,%d,%d] from the %s image: %d×%d pixels.",
			r.Min.X, r.Min.Y, r.Max.X, r.Max.Y, dims(img), r.Dx(), r.Dy()),
		Data:  data,
		Blobs: []endpoints.Blob{blob},
	}, nil
}

// atof reads a number the patterns above matched; one too large to be
// finite reads as 0, which the callers reject.
func atof(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0
	}
	return f
}
