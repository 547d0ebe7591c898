package cli

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/recording"
	"github.com/chorusai/chorus/skills"
)

// The demo in docs/demo/ is a recording made against the test fakes, so
// anyone can make it again the same way:
//
//	go tool task demo:record   (go test -run TestDemoRecording ./cli -args -update-demo)
//
// and docs/demo.tape replays it with VHS into docs/demo.gif.
var updateDemo = flag.Bool("update-demo", false, "record docs/demo/lighthouse.json again against the fakes")

const (
	demoFile    = "../docs/demo/lighthouse.json"
	demoRequest = "Draw a lighthouse at dusk, describe the picture and read the description aloud"
	demoCaption = "a red and white lighthouse on a rocky point at dusk, its lamp lit against an orange sky"
	demoAnswer  = "Here is your **lighthouse at dusk**, standing on its rocky point with the lamp just lit.\n\n" +
		"The captioner describes it as:\n\n> " + demoCaption + "\n\n" +
		"I read that description aloud: press **alt+a** to hear it, **f4** to see the picture full size."
)

// TestDemoRecording replays the shipped demo with no Ollama and no network,
// as the GIF does, and checks it tells its story; with -update-demo it
// records the demo first.
func TestDemoRecording(t *testing.T) {
	t.Parallel()
	if *updateDemo {
		recordDemo(t)
	}
	e := newCLIEnv(t, nil)
	e.env["OLLAMA_HOST"] = "http://127.0.0.1:1" // nothing listens there
	e.env["CHORUS_HUGGINGFACE_BASE_URL"] = "http://127.0.0.1:1"
	rec, err := recording.Load(demoFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Turns) != 1 || rec.Turns[0].Request != demoRequest {
		t.Fatalf("the demo's turns: %+v", rec.Turns)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if recording.CatalogDigest(cat) != rec.Catalog {
		t.Fatalf("the embedded catalog changed since the demo was recorded: record it again with go tool task demo:record")
	}
	stdout, stderr, code := e.run("run", "--json", "--replay", demoFile, "--replay-speed", "0", "--out", t.TempDir(), demoRequest)
	if code != 0 {
		t.Fatalf("replaying the demo: exit %d, %s", code, stderr)
	}
	v := viewOf(t, stdout)
	if strings.Join(v.plan, ",") != "text-to-image,image-to-text,text-to-speech" || v.answer != demoAnswer {
		t.Fatalf("the demo replays as:\n%v", v)
	}
	for _, r := range v.results {
		if !strings.Contains(r, ": ok") {
			t.Fatalf("a demo task failed: %v", v.results)
		}
	}
	if !strings.Contains(strings.Join(v.results, "\n"), demoCaption) || !strings.Contains(strings.Join(v.results, "\n"), ".png,") {
		t.Fatalf("the demo's results: %v", v.results)
	}
}

// recordDemo runs the demo request against the fakes, paced like a local
// model (prefill, first token, tokens) and a Hugging Face API (seconds per
// call), and records it to demoFile.
func recordDemo(t *testing.T) {
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Content: `{"tasks":[` +
				`{"task":"text-to-image","id":1,"dep":[],"args":{"text":"a red and white lighthouse on a rocky point at dusk, lamp lit"}},` +
				`{"task":"image-to-text","id":2,"dep":[1],"args":{"image":"<resource>-1"}},` +
				`{"task":"text-to-speech","id":3,"dep":[2],"args":{"text":"<resource>-2"}}]}`}
		case "select":
			return fakeollama.Reply{Content: `{"choices":[{"id":1,"pick":1,"reason":"fast, sharp text-to-image"},` +
				`{"id":2,"pick":1,"reason":"the standard captioner"},{"id":3,"pick":1,"reason":"natural voice, small"}]}`}
		}
		return fakeollama.Reply{Content: demoAnswer}
	})
	// The model a new user has: the config's default.
	e.ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", Family: "qwen3", ParameterSize: "8.2B", Capabilities: []string{fakeollama.CapCompletion}})
	e.env["CHORUS_CONTROLLER_MODEL"] = "qwen3:8b"
	// The fakes below answer as hf-inference; the catalog's provider cache
	// names others for some of these models, and the demo should show the
	// provider that really answers from the start.
	e.env["CHORUS_HUGGINGFACE_PROVIDERS"] = "hf-inference"
	// The demo shows HuggingGPT's in-context choice: the controller picks
	// each model and says why (the default, selection: auto, would let the
	// curated defaults run without asking for this request).
	e.env["CHORUS_SELECTION"] = "controller"
	e.ollama.SetLatency(fakeollama.Latency{FirstToken: 250 * time.Millisecond, PerToken: 35 * time.Millisecond, PerKPrefill: 120 * time.Millisecond, Serial: true, PrefixCache: true})
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	picture := lighthousePNG(480, 320)
	for task, answer := range map[string]struct {
		delay time.Duration
		fn    func(*http.Request, []byte) (int, string, []byte)
	}{
		"text-to-image": {3 * time.Second, func(*http.Request, []byte) (int, string, []byte) { return 200, "image/png", picture }},
		"image-to-text": {900 * time.Millisecond, func(*http.Request, []byte) (int, string, []byte) {
			return 200, "application/json", []byte(`[{"generated_text":"` + demoCaption + `"}]`)
		}},
		"text-to-speech": {1500 * time.Millisecond, nil},
	} {
		s, _ := cat.Skill(task)
		for _, m := range s.Models {
			if m.ServedBy(skills.EndpointHuggingFace) {
				b := e.hf.Model(m.ID, task).Delay(answer.delay)
				if answer.fn != nil {
					b.Respond(answer.fn)
				}
			}
		}
	}
	out := filepath.Join(t.TempDir(), "chorus-output")
	_, stderr, code := e.run("run", "--record", demoFile, "--out", out, demoRequest)
	if code != 0 {
		t.Fatalf("recording the demo: exit %d, %s", code, stderr)
	}
}

// lighthousePNG paints the demo's picture: a dusk sky over the sea, a
// rocky point, and a red and white lighthouse with its beam.
func lighthousePNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	horizon := h * 62 / 100
	mix := func(a, b color.RGBA, f float64) color.RGBA {
		l := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*f) }
		return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
	}
	night, dusk, glow := color.RGBA{24, 28, 72, 255}, color.RGBA{214, 92, 74, 255}, color.RGBA{252, 176, 82, 255}
	deep, shine := color.RGBA{18, 36, 70, 255}, color.RGBA{120, 84, 96, 255}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var c color.RGBA
			switch {
			case y < horizon*6/10:
				c = mix(night, dusk, float64(y)/float64(horizon*6/10))
			case y < horizon:
				c = mix(dusk, glow, float64(y-horizon*6/10)/float64(horizon-horizon*6/10))
			default:
				f := float64(y-horizon) / float64(h-horizon)
				c = mix(shine, deep, f)
				if (y-horizon)%9 < 2 && (x/23+y/9)%3 == 0 {
					c = mix(c, glow, 0.35*(1-f))
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	// The sun, half set.
	sx, sy, sr := w*3/4, horizon, h/9
	for y := sy - sr; y < sy; y++ {
		for x := sx - sr; x <= sx+sr; x++ {
			if (x-sx)*(x-sx)+(y-sy)*(y-sy) <= sr*sr {
				img.SetRGBA(x, y, color.RGBA{255, 214, 120, 255})
			}
		}
	}
	// The rocky point.
	rock := color.RGBA{38, 34, 40, 255}
	for y := horizon - h/20; y < h; y++ {
		for x := 0; x < w*45/100; x++ {
			dx, dy := float64(x)/float64(w*45/100), float64(y-(horizon-h/20))/float64(h-(horizon-h/20))
			if dx*dx*0.9+(1-dy)*(1-dy)*0.8 < 1.0-0.25*dx {
				img.SetRGBA(x, y, rock)
			}
		}
	}
	// The tower: red and white bands, narrowing upwards.
	base, top := horizon+h/30, h*22/100
	cx := w * 22 / 100
	for y := top; y < base; y++ {
		f := float64(y-top) / float64(base-top)
		half := int(float64(w)/60 + f*float64(w)/40)
		band := color.RGBA{236, 232, 226, 255}
		if ((y-top)*6/(base-top))%2 == 0 {
			band = color.RGBA{196, 40, 44, 255}
		}
		for x := cx - half; x <= cx+half; x++ {
			img.SetRGBA(x, y, band)
		}
	}
	// The lamp room and its beam.
	lamp := color.RGBA{255, 236, 150, 255}
	for y := top - h/18; y < top; y++ {
		for x := cx - w/50; x <= cx+w/50; x++ {
			img.SetRGBA(x, y, lamp)
		}
	}
	for x := cx + w/50; x < w*70/100; x++ {
		spread := (x - cx) * h / w / 5
		for y := top - h/36 - spread; y <= top-h/36+spread; y++ {
			if y >= 0 {
				c := img.RGBAAt(x, y)
				img.SetRGBA(x, y, mix(c, lamp, 0.45*(1-float64(x-cx)/float64(w*70/100-cx))))
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}
