package execution

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// detected is one detection as endpoints report it: the Inference API's
// {score, label, box: {xmin, ymin, xmax, ymax}}, which every kind maps its
// answer onto (models_server's annotated {"predicted": [...]} included).
type detected struct {
	Score float64 `json:"score"`
	Label string  `json:"label"`
	Box   *struct {
		XMin, YMin, XMax, YMax float64
	} `json:"box"`
}

// boxInText finds "at [x1,y1,x2,y2]" in a rendered detection, for a result
// whose structured data did not survive (a recording, a compacted answer).
var boxInText = regexp.MustCompile(`\bat \[(\d+(?:\.\d+)?),(\d+(?:\.\d+)?),(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)\]`)

// boxFrom turns a detection task's result into a visual prompt: its
// highest-scoring box as "x1,y1,x2,y2", or that box's centre as "x,y" for a
// point — the shapes the validator gives coordinates the user typed, which
// each endpoint then sends in its own form (SAM's input_boxes /
// input_points, a local server's boxes / points).
func boxFrom(dep *flow.TaskRun, m skills.Modality) (string, error) {
	var best *detected
	var list []detected
	if len(dep.Data) > 0 {
		if json.Unmarshal(dep.Data, &list) != nil {
			var wrapped struct {
				Predicted []detected `json:"predicted"`
			}
			if json.Unmarshal(dep.Data, &wrapped) == nil {
				list = wrapped.Predicted
			}
		}
	}
	for i := range list {
		if list[i].Box != nil && (best == nil || list[i].Score > best.Score) {
			best = &list[i]
		}
	}
	var x1, y1, x2, y2 float64
	switch {
	case best != nil:
		x1, y1, x2, y2 = best.Box.XMin, best.Box.YMin, best.Box.XMax, best.Box.YMax
	default:
		mm := boxInText.FindStringSubmatch(dep.Text)
		if mm == nil {
			return "", fmt.Errorf("task %d (%s) found no objects, so it gives no %s", dep.Task.ID, dep.Task.Task, m)
		}
		x1, _ = strconv.ParseFloat(mm[1], 64)
		y1, _ = strconv.ParseFloat(mm[2], 64)
		x2, _ = strconv.ParseFloat(mm[3], 64)
		y2, _ = strconv.ParseFloat(mm[4], 64)
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	if m == skills.Point {
		return num((x1+x2)/2) + "," + num((y1+y2)/2), nil
	}
	return strings.Join([]string{num(x1), num(y1), num(x2), num(y2)}, ","), nil
}
