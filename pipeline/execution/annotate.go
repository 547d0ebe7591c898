package execution

import (
	"fmt"
	"slices"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
)

// annotate draws a vision task's result onto its input image, as HuggingGPT
// shows detections and segments: after object-detection and
// zero-shot-object-detection the boxes in res.Data (res.Text as a
// fallback); after image-segmentation and mask-generation the masks in
// res.Data or, failing that, the mask images among res.Blobs. ok is false
// when the task has nothing to draw; an error means there was something to
// draw but the image or the masks could not be read.
func annotate(task, imagePath string, res endpoints.Result) (endpoints.Blob, bool, error) {
	switch {
	case slices.Contains(detectionTasks, task):
		f, ok, err := imaging.AnnotateDetections(imagePath, string(res.Data), res.Text)
		return endpoints.Blob{MIME: f.MIME, Data: f.Data}, ok, err
	case slices.Contains(segmentationTasks, task):
		files := make([]imaging.File, len(res.Blobs))
		for i, b := range res.Blobs {
			// A mask spooled to disk is read back; masks are small.
			data, err := b.Bytes(maxMaskBytes)
			if err != nil {
				return endpoints.Blob{}, false, fmt.Errorf("mask %d: %w", i+1, err)
			}
			files[i] = imaging.File{MIME: b.MIME, Data: data}
		}
		f, ok, err := imaging.AnnotateSegments(imagePath, res.Data, files)
		return endpoints.Blob{MIME: f.MIME, Data: f.Data}, ok, err
	}
	return endpoints.Blob{}, false, nil
}

// The tasks annotate draws: boxes, and masks. A segmentation task's skill
// file says its files are masks (files: mask), so that a later task takes
// the file it asks for, not the preview (fileFor).
var (
	detectionTasks    = []string{"object-detection", "zero-shot-object-detection"}
	segmentationTasks = []string{"image-segmentation", "mask-generation"}
)

// maxMaskBytes bounds a mask read back into memory to be drawn.
const maxMaskBytes = 64 << 20
