package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
)

// controllerGarbage is what a broken or random-weight controller writes
// into its replies: escape sequences, a bell, a NUL, a bidi override and
// its chat template's special tokens.
const controllerGarbage = "\x1b[2J\x07<|im_start|>\u202e\x00<|endoftext|>[INST]</s>"

// garbageIn returns what of out must never reach an output when the
// controller writes controllerGarbage: its control characters and special
// tokens, as they are, as JSON escapes them (a --json line, a saved
// session: read decoded) or as the log file's quoting does ("\x1b"). A
// JSON escape the controller wrote as text is text: "\u001b" shows as
// those six characters.
func garbageIn(out string) []string {
	var found []string
	texts := []string{out}
	if v := any(nil); json.Unmarshal([]byte(out), &v) == nil {
		texts = jsonStrings(v)
	} else {
		for line := range strings.Lines(out) {
			if json.Unmarshal([]byte(line), &v) == nil {
				texts = append(texts, jsonStrings(v)...)
			}
		}
	}
	for _, s := range texts {
		for _, r := range s {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x202e {
				found = append(found, strings.ToValidUTF8(string(r), "?"))
			}
		}
		for _, tok := range []string{"<|", "|>", "[INST]", "</s>"} {
			if strings.Contains(s, tok) {
				found = append(found, tok)
			}
		}
	}
	return append(found, quotedControl.FindAllString(out, -1)...)
}

// quotedControl is a control character as Go's quoting (the log file's)
// writes it: a backslash escape not itself escaped.
var quotedControl = regexp.MustCompile(`(?:^|[^\\])(?:\\\\)*\\(?:x1b|a|x00|u202e)`)

// TestRunShowsNoControllerGarbage: a controller that writes garbage around
// and inside every field of its plan (constraints, task names, argument
// names and values), its picks' reasons and its answer — streamed in
// chunks that split the tokens — gets none of it into what `chorus run`
// shows, prints or keeps: the plain run's log and answer, --json's events
// and report (with --debug, the controller's replies too), the log file
// and the saved session. What the garbage surrounds still works: the image
// path runs, and the captioner the request names by its full Hub id is
// the one that runs.
func TestRunShowsNoControllerGarbage(t *testing.T) {
	t.Parallel()
	img := filepath.Join(t.TempDir(), "cat.png")
	if err := os.WriteFile(img, fakehf.PNG(40, 30), 0o644); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(controllerGarbage)
	q := string(g[1 : len(g)-1]) // the garbage inside a JSON string
	pi, _ := json.Marshal(img)
	plan := controllerGarbage + `{"constraints":{"licenses":["8ۯ'k춊y` + q + `"],"prefer":"best","benchmark":"8ۯ'k춊y` + q + `"},` +
		`"tasks":[{"task":"image-to-text` + q + `","id":1,"dep":[],"args":{"image` + q + `":` + strings.TrimSuffix(string(pi), `"`) + q + `"}}]}` + controllerGarbage
	e := newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		switch stageOf(req) {
		case "plan":
			return fakeollama.Reply{Chunks: splitEvery(plan, 7)}
		case "select":
			return fakeollama.Reply{Content: `{"picks":{"1":1},"reasons":{"1":"fi` + q + `rst"}}` + controllerGarbage}
		}
		return fakeollama.Reply{Chunks: splitEvery("It is "+controllerGarbage+"a cat."+controllerGarbage, 3)}
	})
	e.serveSkill("image-to-text")
	const named = "Salesforce/blip-image-captioning-base"
	request := "caption " + img + " with " + named + " please"

	stdout, stderr, code := e.run("run", "--out", e.out, request)
	if code != 0 {
		t.Fatalf("plain run: exit %d: %s", code, stderr)
	}
	outputs := map[string]string{"the plain run's answer": stdout, "the plain run's log": stderr}
	if !strings.Contains(stdout, "It is a cat.") || !strings.Contains(stderr, "done: task 1 image-to-text with "+named) {
		t.Fatalf("the plain run did not caption the image with %s:\n%s\n%s", named, stderr, stdout)
	}
	if !strings.Contains(stderr, `ignored: licence "8ۯ'k춊y"`) {
		t.Errorf("the log does not say the invented licence was ignored:\n%s", stderr)
	}

	stdout, stderr, code = e.run("run", "--json", "--debug", "--out", e.out, request)
	if code != 0 {
		t.Fatalf("--json run: exit %d: %s", code, stderr)
	}
	outputs["--json's events"], outputs["--json's stderr"] = stdout, stderr
	var report map[string]any
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == "report" {
			report, _ = ev["report"].(map[string]any)
		}
	}
	tasks, _ := report["tasks"].([]any)
	if len(tasks) != 1 || tasks[0].(map[string]any)["model"] != named || tasks[0].(map[string]any)["status"] != "ok" {
		t.Fatalf("report tasks %v: want the named captioner's success", tasks)
	}

	for _, dir := range []string{e.env["XDG_STATE_HOME"], e.env["XDG_DATA_HOME"]} {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				outputs[p] = string(b)
			}
			return err
		})
	}
	var sessions int
	for what, out := range outputs {
		if strings.Contains(what, string(filepath.Separator)+"sessions"+string(filepath.Separator)) {
			sessions++
		}
		if l := garbageIn(out); len(l) > 0 {
			t.Errorf("%s carries %q:\n%s", what, l, tail(out, 3000))
		}
	}
	if sessions == 0 || outputs[filepath.Join(e.env.StateDir(), "chorus.log")] == "" {
		t.Fatalf("no saved session or log file among %d outputs", len(outputs))
	}
}

// splitEvery cuts s into chunks of about n bytes, as a stream may: inside
// a special token or an escape sequence (a server sends whole characters).
func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return append(out, s)
}
