package imaging

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// AnnotateDetections draws detections onto the image at imagePath, as
// HuggingGPT shows an object-detection result: the boxes come from the
// first of sources in which ParseDetections finds any (a detector's JSON
// answer first, its readable text as a fallback); empty sources are
// skipped. ok is false when there is nothing to draw (no boxes, or none
// inside the image); an error (wrapping ErrBadInput) means there were boxes
// but the image could not be read.
func AnnotateDetections(imagePath string, sources ...string) (File, bool, error) {
	var dets []Detection
	for _, src := range sources {
		if src == "" {
			continue
		}
		if dets, _ = ParseDetections(src); len(dets) > 0 {
			break
		}
	}
	if len(dets) == 0 {
		return File{}, false, nil
	}
	img, _, err := Load(imagePath)
	if err != nil {
		return File{}, false, err
	}
	out, drawn := DrawDetections(img, Denormalise(dets, img.Bounds()))
	if len(drawn) == 0 {
		return File{}, false, nil
	}
	blob, err := EncodePNG(out)
	return blob, err == nil, err
}

// segmentJSON is one element of the Hugging Face image-segmentation answer.
type segmentJSON struct {
	Score *float64 `json:"score"`
	Label string   `json:"label"`
	Mask  string   `json:"mask"`
}

// AnnotateSegments overlays segmentation masks onto the image at
// imagePath, as HuggingGPT shows a segmentation result: the masks in data,
// the answer's JSON (Hugging Face's [{"score","label","mask": base64 PNG}]
// or SAM-style {"masks","scores","labels"}), or, when data has none, the
// binary mask images among files (a rendered picture is not a mask). ok is
// false when there is nothing to draw; an error (wrapping ErrBadInput)
// means there were masks but the image or the masks could not be read.
func AnnotateSegments(imagePath string, data []byte, files []File) (File, bool, error) {
	masks, found, err := segmentsFrom(data, files)
	if !found {
		return File{}, false, nil
	}
	if len(masks) == 0 {
		return File{}, false, err
	}
	img, _, lerr := Load(imagePath)
	if lerr != nil {
		return File{}, false, lerr
	}
	out, cover := OverlayMasks(img, masks)
	drawn := false
	for _, c := range cover {
		drawn = drawn || c > 0
	}
	if !drawn {
		return File{}, false, nil
	}
	blob, err := EncodePNG(out)
	return blob, err == nil, err
}

// segmentsFrom decodes the masks of a segmentation result. found reports
// whether the result carried masks at all; err explains masks that could
// not be decoded when none could.
func segmentsFrom(data []byte, files []File) (masks []Mask, found bool, err error) {
	var segs []segmentJSON
	if len(data) > 0 {
		if json.Unmarshal(data, &segs) != nil {
			// {"masks": [...], "scores": [...]} as SAM-style servers answer.
			var cols struct {
				Masks  []string   `json:"masks"`
				Scores []*float64 `json:"scores"`
				Labels []string   `json:"labels"`
			}
			if json.Unmarshal(data, &cols) == nil {
				for i, m := range cols.Masks {
					s := segmentJSON{Mask: m}
					if i < len(cols.Scores) {
						s.Score = cols.Scores[i]
					}
					if i < len(cols.Labels) {
						s.Label = cols.Labels[i]
					}
					segs = append(segs, s)
				}
			}
		}
	}
	var errs []error
	for i, s := range segs {
		if s.Mask == "" {
			continue
		}
		found = true
		if len(masks) == maxMasks {
			break
		}
		m, err := decodeMask(s.Mask)
		if err != nil {
			errs = append(errs, fmt.Errorf("mask %d (%s): %w", i+1, s.Label, err))
			continue
		}
		score := math.NaN()
		if s.Score != nil {
			score = *s.Score
		}
		masks = append(masks, Mask{Label: s.Label, Score: score, Image: m})
	}
	if !found {
		for i, bl := range files {
			if !strings.HasPrefix(bl.MIME, "image/") {
				continue
			}
			m, _, err := Decode(bl.Data)
			if err != nil {
				errs = append(errs, fmt.Errorf("mask image %d: %w", i+1, err))
				continue
			}
			// A server may return a rendered picture instead of masks;
			// only binary images are masks.
			if !isBinaryMask(m) {
				continue
			}
			found = true
			masks = append(masks, Mask{Score: math.NaN(), Image: m})
			if len(masks) == maxMasks {
				break
			}
		}
		found = found || len(errs) > 0
	}
	return masks, found, errors.Join(errs...)
}
