package local

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/chorusai/chorus/endpoints"
)

// jarvisOpenTypes is the fixed label list in models_server.py's detection
// branch: google/owlvit-base-patch32 is run with it as candidate_labels and
// facebook/detr-resnet-101 ignores it; nothing in the request changes it.
// Zero-shot detection on models_server is therefore COCO detection, and
// Chorus maps the user's labels onto these classes itself.
var jarvisOpenTypes = []string{"cat", "couch", "person", "car", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard", "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone", "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear", "hair drier", "toothbrush", "traffic light", "fire hydrant", "stop sign", "parking meter", "bench", "bird"}

// jarvisSynonyms maps common words for a class onto its COCO name.
var jarvisSynonyms = map[string]string{
	"people": "person", "man": "person", "men": "person", "woman": "person", "women": "person",
	"child": "person", "children": "person", "boy": "person", "girl": "person", "kid": "person",
	"sofa": "couch", "television": "tv", "phone": "cell phone", "plant": "potted plant",
	"table": "dining table", "puppy": "dog", "kitten": "cat", "bike": "bicycle", "fridge": "refrigerator",
	"doughnut": "donut", "ball": "sports ball", "hairdryer": "hair drier",
}

// jarvisClasses returns the COCO classes of jarvisOpenTypes that the
// comma-separated labels name: "the red umbrella, two dogs" → umbrella,
// dog. A class is named when its words appear in a label as whole words,
// a plural "s"/"es" allowed, or through a common synonym.
func jarvisClasses(labels string) []string {
	var out []string
	add := func(c string) {
		if slices.Contains(jarvisOpenTypes, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, label := range strings.Split(labels, ",") {
		words := strings.FieldsFunc(strings.ToLower(label), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
		for i := range words {
			words[i] = singular(words[i])
		}
		joined := " " + strings.Join(words, " ") + " "
		for _, c := range jarvisOpenTypes {
			if strings.Contains(joined, " "+c+" ") {
				add(c)
			}
		}
		for _, w := range words {
			if c, ok := jarvisSynonyms[w]; ok {
				add(c)
			}
		}
	}
	return out
}

// singular drops an English plural ending so "dogs" and "benches" match
// their classes; words that are classes as they are stay.
func singular(w string) string {
	if slices.Contains(jarvisOpenTypes, w) || jarvisSynonyms[w] != "" {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes"):
		return strings.TrimSuffix(w, "es")
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return strings.TrimSuffix(w, "s")
	}
	return w
}

// jarvisDetectClasses checks, before the call, that models_server's fixed
// detector can find any of the labels, and returns the classes to keep.
func jarvisDetectClasses(req endpoints.Request) ([]string, error) {
	labels := req.Args["labels"]
	classes := jarvisClasses(labels)
	if len(classes) == 0 {
		return nil, endpoints.Explain(fmt.Sprintf(
			"models_server's detector looks only for its 80 fixed COCO classes (person, dog, umbrella, …), and none of %q is one — a Grounding DINO or OWLv2 candidate on another endpoint can find it", labels),
			endpoints.ErrUnavailable)
	}
	return classes, nil
}

// jarvisFilterDetections keeps the detections whose label is one of
// classes: models_server answers every COCO object it saw, the user asked
// for some. The answer stays in the Inference API's detection shape.
func jarvisFilterDetections(raw json.RawMessage, classes []string) (json.RawMessage, error) {
	var ds []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ds); err != nil {
		return nil, fmt.Errorf("want a list of {label, score, box}: %w", err)
	}
	keep := make([]map[string]json.RawMessage, 0, len(ds))
	for _, d := range ds {
		var label string
		_ = json.Unmarshal(d["label"], &label)
		if slices.Contains(classes, strings.ToLower(strings.TrimSpace(label))) {
			keep = append(keep, d)
		}
	}
	return json.Marshal(keep)
}
