// Package builtin is the builtin endpoint kind: image tools that need no
// neural network and run as Go code inside Chorus, in every inference mode
// — Canny edges for ControlNet, detection boxes and mask overlays drawn
// onto an image, resize, format conversion and crop. The image work itself
// is the imaging package's; this package reads the tools' arguments, runs
// them and reports what they did.
package builtin

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"strings"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/skills"
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

// tool is one built-in model and the task it serves.
type tool struct {
	task, model, description string
	run                      func(ctx context.Context, req endpoints.Request) (endpoints.Result, error)
}

// Endpoint runs the built-in image tools. It has no state and is
// safe for concurrent use.
type Endpoint struct {
	tools []tool
}

// New returns the endpoint of the built-in image tools.
func New() *Endpoint {
	return &Endpoint{tools: []tool{
		{"canny-control", ModelCanny, "Canny edge detector (Gaussian blur, Sobel, non-maximum suppression, hysteresis); white edges on black, the control image ControlNet's canny model expects. Optional text \"low 100 high 200\" sets the thresholds.", runCanny},
		{"draw-boxes", ModelDrawBoxes, "Draws detection boxes with labels onto an image; text holds the detections (Hugging Face JSON or \"cat (0.98) at [x1,y1,x2,y2]\").", runDrawBoxes},
		{"mask-overlay", ModelMaskOverlay, "Tints the pixels inside a mask image (non-black = inside) onto an image, outlines the segment and writes an optional text label.", runMaskOverlay},
		{"image-resize", ModelResize, "Resizes an image: text \"512x512\", \"50%\", \"width 800\" or \"height 600\" (one side keeps the aspect ratio); same file format out.", runResize},
		{"image-convert", ModelConvert, "Converts an image to the format named in text: png, jpeg, gif, bmp or tiff.", runConvert},
		{"image-crop", ModelCrop, "Crops an image to box \"x1,y1,x2,y2\" (pixels, or fractions of the size) and returns a PNG.", runCrop},
	}}
}

// Kind returns skills.EndpointBuiltin.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointBuiltin }

func (e *Endpoint) lookup(task, model string) (tool, error) {
	for _, t := range e.tools {
		if strings.EqualFold(t.model, strings.TrimSpace(model)) {
			if task != "" && t.task != task {
				return tool{}, fmt.Errorf("%w: built-in model %s serves %s, not %s", endpoints.ErrUnsupported, t.model, t.task, task)
			}
			return t, nil
		}
	}
	var names []string
	for _, t := range e.tools {
		names = append(names, t.model+" ("+t.task+")")
	}
	return tool{}, fmt.Errorf("%w: %q is not a built-in model; the built-ins are %s", endpoints.ErrUnsupported, model, strings.Join(names, ", "))
}

// Check reports whether model is the built-in that serves task. It is nil
// for every built-in, which needs nothing outside the program, and wraps
// endpoints.ErrUnsupported otherwise.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	_, err := e.lookup(task, model)
	return err
}

// Discover offers the built-in model for task, if there is one, so the
// selector can pick it even when no skill file lists it.
func (e *Endpoint) Discover(ctx context.Context, task string) ([]endpoints.Offer, error) {
	var out []endpoints.Offer
	for _, t := range e.tools {
		if t.task == task {
			out = append(out, endpoints.Offer{ID: t.model, Description: t.description})
		}
	}
	return out, nil
}

// Infer runs the built-in model named by req.Model. Problems with the
// arguments or the files they name wrap endpoints.ErrBadInput and say what
// to pass.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	t, err := e.lookup(req.Task, req.Model)
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	res, err := t.run(ctx, req)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("builtin %s: %w", t.model, classify(err))
	}
	return res, nil
}

// classify files the image library's bad input under endpoints.ErrBadInput,
// keeping the message, so the executor fails the task instead of trying
// another model on the same unusable image.
func classify(err error) error {
	if errors.Is(err, imaging.ErrBadInput) && !errors.Is(err, endpoints.ErrBadInput) {
		return endpoints.Explain(err.Error(), err, endpoints.ErrBadInput)
	}
	return err
}

// encode encodes img as format, as a Blob.
func encode(img image.Image, format string) (endpoints.Blob, error) {
	f, err := imaging.Encode(img, format)
	return endpoints.Blob{MIME: f.MIME, Data: f.Data}, err
}

// loadArgImage loads the image of the "image" argument.
func loadArgImage(req endpoints.Request, what string) (image.Image, string, error) {
	return loadImage(req, "image", what)
}

// loadImage decodes the image of media argument name from its checked
// file in req.Files — never from the path in Args — and names it as the
// plan did in messages.
func loadImage(req endpoints.Request, name, what string) (image.Image, string, error) {
	f, err := req.File(name, what)
	if err != nil {
		return nil, "", err
	}
	label := req.Args[name]
	if label == "" {
		label = f.Asked()
	}
	fh, err := f.Open()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("%w: image file %s does not exist — check the path", endpoints.ErrBadInput, label)
	case err != nil:
		// A directory, a pipe or a device: File.Open says which.
		return nil, "", fmt.Errorf("%w: cannot read image %s: %w", endpoints.ErrBadInput, label, err)
	}
	defer fh.Close()
	return imaging.Read(fh, label)
}

// dims renders an image's size for messages: "640×480".
func dims(img image.Image) string {
	return fmt.Sprintf("%d×%d", img.Bounds().Dx(), img.Bounds().Dy())
}

// plural picks the noun for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
