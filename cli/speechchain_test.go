package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

// speechChainWER is the word error rate pocketsphinx makes on espeak-ng's
// American voice reading testdata/speech/sentences.txt, measured with
// this test (espeak-ng 1.51, pocketsphinx 5prealpha with
// pocketsphinx-en-us, ffmpeg 5.1, Debian 12): 0.818 — 45 errors in 55
// words, the same on every run, since both programs are deterministic.
// Synthetic speech is far from what the acoustic model was trained on
// (its default British voice does worse still: 0.96). The bound catches a
// chain that stops hearing anything (WER 1) or garbles more than it does.
const speechChainWER = 0.85

// spanishWords are words apertium's English→Spanish pair writes for the
// commonest English ones: a translation holding none is no Spanish.
var spanishWords = []string{"el", "la", "los", "las", "un", "una", "y", "de", "del", "en", "a", "que", "es", "está", "son", "están",
	"con", "por", "para", "nosotros", "yo", "tú", "usted", "mi", "nuestro", "nuestros", "este", "esta", "hoy", "semana", "mañana", "ciudad"}

// englishOnly are English words the pair always translates: one left in a
// translation means apertium did not run on it.
var englishOnly = []string{"the", "and", "with", "are", "is", "we", "my", "this"}

// TestOfflineSpeechChain runs a whole turn with inference_mode local, no
// network and no token, where nothing is fake but the controller:
// espeak-ng speaks five sentences, pocketsphinx transcribes the
// recordings (ffmpeg converting them to 16 kHz mono first), apertium
// translates the transcripts into Spanish. The request names the experts
// ("with pocketsphinx"), as a user would; the voice is a program the user
// declared.
func TestOfflineSpeechChain(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{{"espeak-ng", "espeak-ng"}, {"ffmpeg", "ffmpeg"}, {"pocketsphinx_continuous", "pocketsphinx pocketsphinx-en-us"}, {"apertium", "apertium apertium-eng-spa"}} {
		testkit.NeedProgram(t, p[0], p[1])
	}
	data, err := os.ReadFile(filepath.Join("testdata", "speech", "sentences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sentences := strings.Split(strings.TrimSpace(string(data)), "\n")
	n := len(sentences)
	var tasks []string
	for i, s := range sentences {
		tasks = append(tasks, fmt.Sprintf(`{"task":"text-to-speech","id":%d,"dep":[],"args":{"text":%q}}`, i+1, s))
	}
	for i := range sentences {
		tasks = append(tasks, fmt.Sprintf(`{"task":"automatic-speech-recognition","id":%d,"dep":[%d],"args":{"audio":"<resource>-%d"}}`, n+i+1, i+1, i+1))
	}
	for i := range sentences {
		tasks = append(tasks, fmt.Sprintf(`{"task":"translation","id":%d,"dep":[%d],"args":{"text":"<resource>-%d","src_lang":"en","tgt_lang":"es"}}`, 2*n+i+1, n+i+1, n+i+1))
	}
	e := scriptedEnv(t, "Here are the recordings, what pocketsphinx heard, and apertium's Spanish.", `{"tasks":[`+strings.Join(tasks, ",")+`]}`)
	e.env["CHORUS_COMMAND_ENABLED"] = "true"
	e.env["CHORUS_INFERENCE_MODE"] = "local"
	e.env["HF_TOKEN"] = ""
	e.writeUserConfig(`
command:
  programs:
    - name: espeak-us
      program: espeak-ng
      package: espeak-ng
      description: espeak-ng with its American English voice.
      tasks: [text-to-speech]
      args: [-v, en-us, -w, "{out}", --stdin]
      stdin: "{text}"
      output: "{out}"
      license: gpl-3.0
      size: 2MB
`)
	request := "Read these five sentences aloud with espeak-us, transcribe the recordings with pocketsphinx and translate what it heard into Spanish with apertium."
	stdout, stderr, code := e.run("run", "--json", "--out", e.out, request)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	results := map[int]map[string]any{}
	for _, ev := range jsonLines(t, stdout) {
		if ev["type"] == "task_end" {
			results[int(ev["id"].(float64))] = ev
		}
	}
	var heard, spanish []string
	for id := 1; id <= 3*n; id++ {
		ev := results[id]
		if ev == nil || ev["status"] != "ok" {
			t.Fatalf("task %d: %v", id, ev)
		}
		want := map[int]string{0: "espeak-us", 1: "pocketsphinx", 2: "apertium"}[(id-1)/n]
		if ev["model"] != want || ev["endpoint"] != "command" {
			t.Errorf("task %d ran on %v (%v), want %s on command", id, ev["model"], ev["endpoint"], want)
		}
		switch (id - 1) / n {
		case 1:
			heard = append(heard, ev["result"].(string))
		case 2:
			spanish = append(spanish, ev["result"].(string))
		}
	}
	wer := testkit.WordErrorRate(sentences, heard)
	for i := range sentences {
		t.Logf("%q\n    heard %q\n    apertium %q", sentences[i], heard[i], spanish[i])
	}
	t.Logf("word error rate of pocketsphinx on espeak-ng: %.3f (bound %.2f)", wer, speechChainWER)
	if wer > speechChainWER {
		t.Errorf("word error rate %.3f, over the measured bound %.2f", wer, speechChainWER)
	}
	for i, es := range spanish {
		words := testkit.Words(es)
		if heard[i] != "" && !slices.ContainsFunc(words, func(w string) bool { return slices.Contains(spanishWords, w) }) {
			t.Errorf("translation %q of %q holds no Spanish word the pair knows", es, heard[i])
		}
		if left := slices.IndexFunc(words, func(w string) bool { return slices.Contains(englishOnly, w) }); left >= 0 {
			t.Errorf("translation %q of %q still says %q", es, heard[i], words[left])
		}
	}
}
