package imaging

import (
	"errors"
	"image"
	"testing"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		spec   string
		w, h   int
		ww, wh int
	}{
		{"512x512", 1000, 500, 512, 512},
		{"resize it to 640 x 480 pixels", 100, 100, 640, 480},
		{"320×200", 100, 100, 320, 200},
		{"50%", 1000, 600, 500, 300},
		{"150 percent", 100, 60, 150, 90},
		{"width 800", 1600, 900, 800, 450},
		{"w=400", 1600, 900, 400, 225},
		{"800 wide", 1600, 900, 800, 450},
		{"height 300", 1600, 900, 533, 300},
		{"300px tall", 1600, 900, 533, 300},
		{"width 100 height 50", 1600, 900, 100, 50},
		{"scale 0.25", 400, 200, 100, 50},
		{"2x", 400, 200, 800, 400},
		{"make it half the size", 400, 200, 200, 100},
		{"max 100", 400, 200, 100, 50},
		{"fit in 100", 200, 400, 50, 100},
	}
	for _, c := range cases {
		w, h, err := ParseSize(c.spec, c.w, c.h)
		if err != nil || w != c.ww || h != c.wh {
			t.Errorf("ParseSize(%q, %d×%d) = %d×%d, %v; want %d×%d", c.spec, c.w, c.h, w, h, err, c.ww, c.wh)
		}
	}
	for _, bad := range []string{"", "bigger please", "0x0", "0%", "100000x100000", "20000x20000", "0.001%", "width 0"} {
		if w, h, err := ParseSize(bad, 640, 480); !errors.Is(err, ErrBadInput) {
			t.Errorf("ParseSize(%q) = %d×%d, %v; want ErrBadInput", bad, w, h, err)
		}
	}
}

func TestParseBox(t *testing.T) {
	b := image.Rect(0, 0, 200, 100)
	for _, c := range []struct {
		spec string
		want image.Rectangle
	}{
		{"10,20,60,80", image.Rect(10, 20, 60, 80)},
		{"[10, 20, 60, 80]", image.Rect(10, 20, 60, 80)},
		{"(60,80,10,20)", image.Rect(10, 20, 60, 80)},
		{"10.4,20.6,59.5,79.2", image.Rect(10, 20, 60, 80)},
		{"0.1,0.2,0.5,0.8", image.Rect(20, 20, 100, 80)},
		{"-50,-50,20,20", image.Rect(0, 0, 20, 20)},
		{"150,50,400,400", image.Rect(150, 50, 200, 100)},
		{"5,5,5,5", image.Rect(5, 5, 6, 6)},
	} {
		got, err := ParseBox(c.spec, b)
		if err != nil || got != c.want {
			t.Errorf("ParseBox(%q) = %v, %v; want %v", c.spec, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "1,2,3", "1,2,3,4,5", "a,b,c,d", "300,300,400,400", "-10,-10,-5,-5", "1e400,0,5,5"} {
		if r, err := ParseBox(bad, b); !errors.Is(err, ErrBadInput) {
			t.Errorf("ParseBox(%q) = %v, %v; want ErrBadInput", bad, r, err)
		}
	}
}
