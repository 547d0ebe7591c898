package endpoints

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"regexp"
	"strings"
)

// The built-in models: image tools that need no neural network and run as Go
// code inside Chorus, in every inference mode.
const (
	// ModelCanny serves canny-control: a Canny edge map for ControlNet.
	ModelCanny = "chorus/canny"
	// ModelDrawBoxes serves draw-boxes: detections drawn onto an image.
	ModelDrawBoxes = "chorus/draw-boxes"
	// ModelMaskOverlay serves mask-overlay: a mask tinted onto an image.
	ModelMaskOverlay = "chorus/mask-overlay"
	// ModelResize serves image-resize.
	ModelResize = "chorus/resize"
	// ModelConvert serves image-convert: the image in another file format.
	ModelConvert = "chorus/convert"
	// ModelCrop serves image-crop: the part of an image inside a box, a
	// LLaVA-Plus style visual prompt.
	ModelCrop = "chorus/crop"
)

// builtinTool is one built-in model and the task it serves.
type builtinTool struct {
	task, model, description string
	run                      func(ctx context.Context, req Request) (Result, error)
}

// BuiltinEndpoint runs the built-in image tools. It has no state and is
// safe for concurrent use.
type BuiltinEndpoint struct {
	tools []builtinTool
}

// NewBuiltin returns the endpoint of the built-in image tools.
func NewBuiltin() *BuiltinEndpoint {
	return &BuiltinEndpoint{tools: []builtinTool{
		{"canny-control", ModelCanny, "Canny edge detector (Gaussian blur, Sobel, non-maximum suppression, hysteresis); white edges on black, the control image ControlNet's canny model expects. Optional text \"low 100 high 200\" sets the thresholds.", runCanny},
		{"draw-boxes", ModelDrawBoxes, "Draws detection boxes with labels onto an image; text holds the detections (Hugging Face JSON or \"cat (0.98) at [x1,y1,x2,y2]\").", runDrawBoxes},
		{"mask-overlay", ModelMaskOverlay, "Tints the pixels inside a mask image (non-black = inside) onto an image, outlines the segment and writes an optional text label.", runMaskOverlay},
		{"image-resize", ModelResize, "Resizes an image: text \"512x512\", \"50%\", \"width 800\" or \"height 600\" (one side keeps the aspect ratio); same file format out.", runResize},
		{"image-convert", ModelConvert, "Converts an image to the format named in text: png, jpeg, gif, bmp or tiff.", runConvert},
		{"image-crop", ModelCrop, "Crops an image to box \"x1,y1,x2,y2\" (pixels, or fractions of the size) and returns a PNG.", runCrop},
	}}
}

// Kind returns Builtin.
func (e *BuiltinEndpoint) Kind() Kind { return Builtin }

func (e *BuiltinEndpoint) tool(task, model string) (builtinTool, error) {
	for _, t := range e.tools {
		if strings.EqualFold(t.model, strings.TrimSpace(model)) {
			if task != "" && t.task != task {
				return builtinTool{}, fmt.Errorf("%w: built-in model %s serves %s, not %s", ErrUnsupported, t.model, t.task, task)
			}
			return t, nil
		}
	}
	var names []string
	for _, t := range e.tools {
		names = append(names, t.model+" ("+t.task+")")
	}
	return builtinTool{}, fmt.Errorf("%w: %q is not a built-in model; the built-ins are %s", ErrUnsupported, model, strings.Join(names, ", "))
}

// Check reports whether model is the built-in that serves task. It is nil
// for every built-in, which needs nothing outside the program, and wraps
// ErrUnsupported otherwise.
func (e *BuiltinEndpoint) Check(ctx context.Context, task, model string) error {
	_, err := e.tool(task, model)
	return err
}

// Discover offers the built-in model for task, if there is one, so the
// selector can pick it even when no skill file lists it.
func (e *BuiltinEndpoint) Discover(ctx context.Context, task string) ([]Offer, error) {
	var out []Offer
	for _, t := range e.tools {
		if t.task == task {
			out = append(out, Offer{ID: t.model, Description: t.description})
		}
	}
	return out, nil
}

// Infer runs the built-in model named by req.Model. Problems with the
// arguments or the files they name wrap ErrBadInput and say what to pass.
func (e *BuiltinEndpoint) Infer(ctx context.Context, req Request) (Result, error) {
	t, err := e.tool(req.Task, req.Model)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res, err := t.run(ctx, req)
	if err != nil {
		return Result{}, fmt.Errorf("builtin %s: %w", t.model, err)
	}
	return res, nil
}

// arg returns the named argument, or an ErrBadInput naming it.
func arg(req Request, name, what string) (string, error) {
	v := strings.TrimSpace(req.Args[name])
	if v == "" {
		return "", fmt.Errorf("%w: missing argument %q (%s)", ErrBadInput, name, what)
	}
	return v, nil
}

// loadArgImage loads the image named by the "image" argument.
func loadArgImage(req Request, what string) (image.Image, string, error) {
	p, err := arg(req, "image", what)
	if err != nil {
		return nil, "", err
	}
	return LoadImage(p)
}

func dims(img image.Image) string {
	return fmt.Sprintf("%d×%d", img.Bounds().Dx(), img.Bounds().Dy())
}

var (
	reCannyLow  = regexp.MustCompile(`(?i)\blow(?:[ _-]?threshold)?\s*[=:]?\s*(-?\d+(?:\.\d+)?)`)
	reCannyHigh = regexp.MustCompile(`(?i)\bhigh(?:[ _-]?threshold)?\s*[=:]?\s*(-?\d+(?:\.\d+)?)`)
	reCannyPair = regexp.MustCompile(`(?i)\bthresholds?\s*[=:]?\s*(\d+(?:\.\d+)?)\s*[,/ ]\s*(\d+(?:\.\d+)?)`)
)

// cannyThresholds reads optional thresholds from text: "low 50 high 150" or
// "thresholds 50,150"; anything else keeps ControlNet's 100/200.
func cannyThresholds(text string) (float64, float64, error) {
	low, high := float64(CannyLow), float64(CannyHigh)
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
		return 0, 0, fmt.Errorf("%w: canny thresholds %g/%g: want two positive numbers such as \"low 100 high 200\"", ErrBadInput, low, high)
	}
	return low, high, nil
}

func runCanny(ctx context.Context, req Request) (Result, error) {
	low, high, err := cannyThresholds(req.Args["text"])
	if err != nil {
		return Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to find edges in")
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	edges := Canny(img, low, high)
	n := 0
	for _, v := range edges.Pix {
		if v != 0 {
			n++
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	blob, err := encodePNG(edges)
	if err != nil {
		return Result{}, err
	}
	frac := float64(n) / float64(len(edges.Pix))
	data, _ := json.Marshal(map[string]any{
		"width": edges.Rect.Dx(), "height": edges.Rect.Dy(),
		"low_threshold": low, "high_threshold": high, "edge_fraction": frac,
	})
	return Result{
		Text:  fmt.Sprintf("Canny edge map of the %s image (thresholds %g/%g): %.1f%% of the pixels are edges.", dims(img), low, high, 100*frac),
		Data:  data,
		Blobs: []Blob{blob},
	}, nil
}

func runDrawBoxes(ctx context.Context, req Request) (Result, error) {
	text := req.Args["text"]
	if strings.TrimSpace(text) == "" {
		text = req.Args["boxes"]
	}
	if strings.TrimSpace(text) == "" {
		return Result{}, fmt.Errorf("%w: missing argument \"text\" (the detections to draw, e.g. an object-detection result)", ErrBadInput)
	}
	dets, err := ParseDetections(text)
	if err != nil {
		return Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to draw on")
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	out, drawn := DrawDetections(img, denormalise(dets, img.Bounds()))
	if len(drawn) == 0 {
		return Result{}, fmt.Errorf("%w: none of the %d boxes lies inside the %s image — are the coordinates for this image?", ErrBadInput, len(dets), dims(img))
	}
	blob, err := encodePNG(out)
	if err != nil {
		return Result{}, err
	}
	var parts []string
	for _, d := range drawn {
		parts = append(parts, d.String())
	}
	msg := fmt.Sprintf("Drew %d %s on the %s image: %s.", len(drawn), plural(len(drawn), "box", "boxes"), dims(img), strings.Join(parts, ", "))
	if skipped := len(dets) - len(drawn); skipped > 0 {
		msg += fmt.Sprintf(" %d %s outside the image were skipped.", skipped, plural(skipped, "box", "boxes"))
	}
	return Result{Text: msg, Data: detectionsJSON(drawn), Blobs: []Blob{blob}}, nil
}

// detectionsJSON renders detections in the Hugging Face object-detection
// shape.
func detectionsJSON(dets []Detection) json.RawMessage {
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func runMaskOverlay(ctx context.Context, req Request) (Result, error) {
	maskPath, err := arg(req, "mask", "the mask image; non-black pixels are inside")
	if err != nil {
		return Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to overlay the mask on")
	if err != nil {
		return Result{}, err
	}
	mask, _, err := LoadImage(maskPath)
	if err != nil {
		return Result{}, fmt.Errorf("mask: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	label := strings.TrimSpace(req.Args["text"])
	out, cover := OverlayMasks(img, []Mask{{Label: label, Score: math.NaN(), Image: mask}})
	if cover[0] == 0 {
		return Result{}, fmt.Errorf("%w: mask %s is entirely black, so nothing is inside it", ErrBadInput, maskPath)
	}
	blob, err := encodePNG(out)
	if err != nil {
		return Result{}, err
	}
	name := "the mask"
	if label != "" {
		name = fmt.Sprintf("the mask %q", label)
	}
	return Result{
		Text:  fmt.Sprintf("Overlaid %s on the %s image; it covers %.1f%% of the image.", name, dims(img), 100*cover[0]),
		Blobs: []Blob{blob},
	}, nil
}

func runResize(ctx context.Context, req Request) (Result, error) {
	spec, err := arg(req, "text", `the target size: "512x512", "50%", "width 800" or "height 600"`)
	if err != nil {
		return Result{}, err
	}
	img, format, err := loadArgImage(req, "the image to resize")
	if err != nil {
		return Result{}, err
	}
	w, h, err := parseResize(spec, img.Bounds().Dx(), img.Bounds().Dy())
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	out := resizeImage(img, w, h)
	note := ""
	if _, ok := imageFormats[format]; !ok {
		note = fmt.Sprintf(" (as PNG: %s cannot be written)", strings.ToUpper(format))
		format = "png"
	}
	blob, err := EncodeImage(out, format)
	if err != nil {
		return Result{}, err
	}
	data, _ := json.Marshal(map[string]int{"width": w, "height": h})
	return Result{
		Text:  fmt.Sprintf("Resized the image from %s to %d×%d%s.", dims(img), w, h, note),
		Data:  data,
		Blobs: []Blob{blob},
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
		return parseImageFormat(m[1])
	}
	all := reFormatWord.FindAllStringSubmatch(t, -1)
	if len(all) == 0 {
		return parseImageFormat(t)
	}
	return parseImageFormat(all[len(all)-1][1])
}

func runConvert(ctx context.Context, req Request) (Result, error) {
	spec, err := arg(req, "text", "the target format: png, jpeg, gif, bmp or tiff")
	if err != nil {
		return Result{}, err
	}
	format, err := targetFormat(spec)
	if err != nil {
		return Result{}, err
	}
	img, from, err := loadArgImage(req, "the image to convert")
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	blob, err := EncodeImage(img, format)
	if err != nil {
		return Result{}, err
	}
	return Result{
		Text:  fmt.Sprintf("Converted the %s %s image to %s (%s).", dims(img), strings.ToUpper(from), strings.ToUpper(format), blob.MIME),
		Blobs: []Blob{blob},
	}, nil
}

func runCrop(ctx context.Context, req Request) (Result, error) {
	spec, err := arg(req, "box", `the region to keep, "x1,y1,x2,y2" in image pixels`)
	if err != nil {
		return Result{}, err
	}
	img, _, err := loadArgImage(req, "the image to crop")
	if err != nil {
		return Result{}, err
	}
	r, err := parseBox(spec, img.Bounds())
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	blob, err := encodePNG(cropImage(img, r))
	if err != nil {
		return Result{}, err
	}
	data, _ := json.Marshal(map[string]int{"xmin": r.Min.X, "ymin": r.Min.Y, "xmax": r.Max.X, "ymax": r.Max.Y})
	return Result{
		Text: fmt.Sprintf("Cropped [%d,%d,%d,%d] from the %s image: %d×%d pixels.",
			r.Min.X, r.Min.Y, r.Max.X, r.Max.Y, dims(img), r.Dx(), r.Dy()),
		Data:  data,
		Blobs: []Blob{blob},
	}, nil
}
