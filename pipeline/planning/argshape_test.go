package planning

import (
	"image"
	"strings"
	"testing"

	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/pipeline/flow"
)

// TestStructuredArgsAreRepaired: the spellings real models write for a
// size, a box or a point — split into named numbers (width/height, w/h,
// x1…y2, left/top/right/bottom, x/y/width/height), a list, an object,
// numbers as strings or numbers, with units — are put back together as
// the skill reads them, with a note; the task is kept, and what the
// executor reads from the repaired value is the size or box meant. Only
// when nothing maps is the task dropped.
func TestStructuredArgsAreRepaired(t *testing.T) {
	e := testPlanner(t)
	img := touch(t, t.TempDir(), "cat.png")
	const w, h = 64, 48 // the image the executor would resize or crop
	cases := []struct {
		name, task, args string
		arg              string
		size             [2]int          // for a size: what ParseSize reads
		box              image.Rectangle // for a box: what ParseBox reads
		value            string          // otherwise: the value
		dropped          bool
	}{
		{name: "width and height as strings", task: "image-resize", args: `"width": "32", "height": "32"`, arg: "text", size: [2]int{32, 32}},
		{name: "width and height as numbers", task: "image-resize", args: `"width": 32, "height": 24`, arg: "text", size: [2]int{32, 24}},
		{name: "w and h", task: "image-resize", args: `"w": 16, "h": "12px"`, arg: "text", size: [2]int{16, 12}},
		{name: "new_width and new_height", task: "image-resize", args: `"new_width": 40, "new_height": 30`, arg: "text", size: [2]int{40, 30}},
		{name: "width alone keeps the aspect", task: "image-resize", args: `"width": 32`, arg: "text", size: [2]int{32, 24}},
		{name: "target_height alone", task: "image-resize", args: `"target_height": "24 pixels"`, arg: "text", size: [2]int{32, 24}},
		{name: "size as a list", task: "image-resize", args: `"size": [32, 32]`, arg: "text", size: [2]int{32, 32}},
		{name: "size as a string list", task: "image-resize", args: `"size": "[20, 10]"`, arg: "text", size: [2]int{20, 10}},
		{name: "size as WxH", task: "image-resize", args: `"size": "32x32"`, arg: "text", size: [2]int{32, 32}},
		{name: "dimensions as an object", task: "image-resize", args: `"dimensions": {"width": 32, "height": 16}`, arg: "text", size: [2]int{32, 16}},
		{name: "size as an object of w and h", task: "image-resize", args: `"size": {"w": "8", "h": "6"}`, arg: "text", size: [2]int{8, 6}},
		{name: "scale as a number", task: "image-resize", args: `"scale": 0.5`, arg: "text", size: [2]int{32, 24}},
		{name: "factor", task: "image-resize", args: `"factor": "0.25"`, arg: "text", size: [2]int{16, 12}},
		{name: "percent", task: "image-resize", args: `"percent": 50`, arg: "text", size: [2]int{32, 24}},
		{name: "text as a list", task: "image-resize", args: `"text": "32,16"`, arg: "text", size: [2]int{32, 16}},
		{name: "the text itself wins over strays", task: "image-resize", args: `"text": "50%", "width": 10`, arg: "text", size: [2]int{32, 24}},
		{name: "box from x1..y2", task: "image-crop", args: `"x1": 1, "y1": 2, "x2": "30", "y2": 40`, arg: "box", box: image.Rect(1, 2, 30, 40)},
		{name: "box from xmin..ymax", task: "image-crop", args: `"xmin": 1, "ymin": 2, "xmax": 30, "ymax": 40`, arg: "box", box: image.Rect(1, 2, 30, 40)},
		{name: "box from left/top/right/bottom", task: "image-crop", args: `"left": 4, "top": 5, "right": 20, "bottom": 25`, arg: "box", box: image.Rect(4, 5, 20, 25)},
		{name: "box from x/y/width/height", task: "image-crop", args: `"x": 4, "y": 5, "width": 10, "height": 20`, arg: "box", box: image.Rect(4, 5, 14, 25)},
		{name: "box as an object", task: "image-crop", args: `"box": {"x1": 1, "y1": 2, "x2": 30, "y2": 40}`, arg: "box", box: image.Rect(1, 2, 30, 40)},
		{name: "bbox as a list", task: "image-crop", args: `"bbox": [1, 2, 30, 40]`, arg: "box", box: image.Rect(1, 2, 30, 40)},
		{name: "point from x and y", task: "mask-generation", args: `"x": 12, "y": "9"`, arg: "point", value: "12,9"},
		{name: "point as an object", task: "mask-generation", args: `"point": {"x": 12, "y": 9}`, arg: "point", value: "12,9"},
		{name: "a box, not a point, from x/y/w/h", task: "mask-generation", args: `"x": 1, "y": 2, "w": 3, "h": 4`, arg: "box", value: "1,2,4,6"},
		{name: "nothing maps", task: "image-resize", args: `"colour": "red"`, dropped: true},
		{name: "a part without a number", task: "image-resize", args: `"width": "wide"`, dropped: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := parsePlan(`{"tasks":[{"task":"` + c.task + `","id":1,"dep":[],"args":{"image":"` + img + `",` + c.args + `}}]}`)
			if err != nil {
				t.Fatal(err)
			}
			p := e.validate(raw.Tasks, flow.Constraints{}, typedTurn(img), raw.Notes)
			if c.dropped {
				if len(p.Tasks) != 0 || !hasNote(p, "dropped task 1") {
					t.Fatalf("tasks %+v, notes %q: want the task dropped, saying why", p.Tasks, p.Notes)
				}
				return
			}
			if len(p.Tasks) != 1 {
				t.Fatalf("the task was dropped: %q", p.Notes)
			}
			got := p.Tasks[0].Args[c.arg]
			switch {
			case c.size != [2]int{}:
				nw, nh, err := imaging.ParseSize(got, w, h)
				if err != nil || [2]int{nw, nh} != c.size {
					t.Fatalf("%s = %q reads as %dx%d (%v), want %v; notes %q", c.arg, got, nw, nh, err, c.size, p.Notes)
				}
			case c.box != image.Rectangle{}:
				r, err := imaging.ParseBox(got, image.Rect(0, 0, w, h))
				if err != nil || r != c.box {
					t.Fatalf("%s = %q reads as %v (%v), want %v; notes %q", c.arg, got, r, err, c.box, p.Notes)
				}
			default:
				if got != c.value {
					t.Fatalf("%s = %q, want %q; notes %q", c.arg, got, c.value, p.Notes)
				}
			}
			for k := range p.Tasks[0].Args {
				if k != "image" && k != c.arg {
					t.Errorf("argument %s=%q is left over", k, p.Tasks[0].Args[k])
				}
			}
			if !strings.Contains(c.args, `"`+c.arg+`": "`) && !hasNote(p, "task 1: read ") {
				t.Errorf("the repair left no note: %q", p.Notes)
			}
		})
	}
}
