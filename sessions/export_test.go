package sessions

import (
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

func TestExport(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := fullSession(st)
	s.Updated = day(10, 0)
	s.Turns[0].Request = "describe the cat\n\nthen read it aloud"
	s.AddTurn(Record{Request: "why did it fail?", Answer: "Because.", Error: "task 2: model `x` crashed\nbadly"})
	md := Export(s)

	mustContain := []string{
		"# describe the cat\n",
		"- Session: `" + s.ID + "`\n",
		"- Created: 2025-03-01 09:00 UTC\n",
		"- Updated: 2025-03-01 10:00 UTC\n",
		"- Controller: `qwen3:8b`\n",
		"- Constraints: `license=mit max-size=",
		"## Turn 1 — 2025-03-01 09:01 UTC\n",
		"**You:**\n\n> describe the cat\n>\n> then read it aloud\n",
		"Attachments:\n\n- `/home/u/cat.png`\n",
		"**Chorus:**\n\nA cat on a mat. Audio: /out/speech-2.wav\n",
		"**Plan:**\n\n- #1 `image-to-text` — image=`/home/u/cat.png`\n- #2 `text-to-speech` after 1 — text=`<resource>-1`\n",
		"Plan notes:\n\n- task 3 dropped: unknown task \"dance\"\n",
		"**Models:**\n\n- #1 `image-to-text` — `Salesforce/blip-image-captioning-large` on huggingface · ok in 1.2s\n- #2 `text-to-speech` — `espeak-ng` on local · ok in 300ms\n",
		"**Files:**\n\n- `/out/speech-2.wav`\n",
		"_Took 4.2s._",
		"## Turn 2 — 2025-03-01 09:05 UTC\n\n**You:**\n\n> now make it a dog\n\n**Chorus:**\n\n_cancelled by the user before an answer_\n",
		"## Turn 3\n",
		"**Error:** task 2: model `x` crashed badly\n",
	}
	for _, want := range mustContain {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q\n---\n%s", want, md)
		}
	}
	// Attachments are not listed again as generated files.
	if strings.Count(md, "`/home/u/cat.png`") != 2 { // attachment list + plan argument
		t.Errorf("the attachment appears %d times, want 2:\n%s", strings.Count(md, "`/home/u/cat.png`"), md)
	}
	// Turns appear in order.
	if a, b := strings.Index(md, "## Turn 1"), strings.Index(md, "## Turn 2"); a < 0 || b < a {
		t.Errorf("turns out of order")
	}
}

func TestExportModelsWithoutReport(t *testing.T) {
	t.Parallel()
	s := &Session{ID: "x"}
	s.AddTurn(Record{Request: "transcribe", Plan: []pipeline.Task{{ID: 1, Task: "automatic-speech-recognition", Dep: []int{-1}}},
		Models: []pipeline.ModelEvent{
			{ID: 1, Task: "automatic-speech-recognition", Model: "openai/whisper-small", Endpoint: "local", Decided: "constraint: smallest", Reason: "244M parameters"},
			{ID: 2, Task: "translation", Decided: "no candidate", Reason: "licence mit is not in the allow-list"},
		}, Error: "stopped"})
	md := Export(s)
	for _, want := range []string{
		"# transcribe\n",
		"- #1 `automatic-speech-recognition` — `openai/whisper-small` on local (constraint: smallest): 244M parameters\n",
		"- #2 `translation` — no model (no candidate): licence mit is not in the allow-list\n",
		"_failed: stopped_\n",
		"- #1 `automatic-speech-recognition`\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q\n---\n%s", want, md)
		}
	}
	if Export(nil) != "" {
		t.Errorf("Export(nil) is not empty")
	}
}

func TestCodeSpan(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"/a/b.png":          "`/a/b.png`",
		"has `tick`":        "`` has `tick` ``",
		"`edge":             "`` `edge ``",
		"two\nlines":        "`two lines`",
		"":                  `""`,
		"x ``double`` here": "```x ``double`` here```",
	}
	for in, want := range cases {
		if got := codeSpan(in); got != want {
			t.Errorf("codeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExportCarriesNoControls(t *testing.T) {
	t.Parallel()
	s := &Session{ID: "x"}
	s.AddTurn(Record{Request: "hi \x1b]0;pwned\x07", Answer: "ok \x1b]52;c;ZXZpbA==\x07 \u202eexe.txt \u009b2J"})
	out := Export(s)
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b", "pwned"} {
		if strings.Contains(out, bad) {
			t.Errorf("the transcript carries %q:\n%s", bad, out)
		}
	}
}

// TestExportCancelledTask: a task the user's cancel stopped is exported as
// cancelled, not failed or skipped.
func TestExportCancelledTask(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("")
	s.AddTurn(Record{Request: "caption it", Cancelled: true, Report: &pipeline.Report{Tasks: []pipeline.TaskReport{
		{TaskEndEvent: pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Model: "m", Endpoint: "huggingface", Status: pipeline.StatusError, Cancelled: true, Error: "cancelled"}},
		{TaskEndEvent: pipeline.TaskEndEvent{ID: 2, Task: "text-to-speech", Status: pipeline.StatusError, Skipped: true, Cancelled: true, Error: "cancelled before it started"}},
	}}})
	md := Export(s)
	if strings.Count(md, "· cancelled") != 2 || strings.Contains(md, "failed") || strings.Contains(md, "skipped") {
		t.Fatalf("export:\n%s", md)
	}
}

// After a fallback the export names the model that ran and what failed
// before it, in a few words.
func TestExportSaysWhatRanAfterAFallback(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("")
	s.AddTurn(Record{Request: "say good morning", Report: &pipeline.Report{Tasks: []pipeline.TaskReport{
		{TaskEndEvent: pipeline.TaskEndEvent{ID: 1, Task: "text-to-speech", Model: "facebook/mms-tts-eng", Endpoint: "huggingface", Provider: "hf-inference", Status: pipeline.StatusOK, ElapsedMS: 1200, Attempts: []pipeline.Attempt{
			{Model: "hexgrad/Kokoro-82M", Endpoint: "huggingface", Provider: "replicate", Error: "huggingface hexgrad/Kokoro-82M: no provider could run it: …", Why: "not served by fal-ai (404), replicate (404)"},
			{Model: "facebook/mms-tts-eng", Endpoint: "huggingface", Provider: "hf-inference"},
		}}},
	}}})
	md := Export(s)
	if !strings.Contains(md, "`facebook/mms-tts-eng` on huggingface (hf-inference) · ok in 1.2s (after Kokoro-82M failed: not served by fal-ai (404), replicate (404))") {
		t.Fatalf("export:\n%s", md)
	}
}

// TestExportRevision: /export says the plan was revised, after which
// failure, and lists the tasks the revision added with its notes.
func TestExportRevision(t *testing.T) {
	t.Parallel()
	s := &Session{ID: "x"}
	s.AddTurn(Record{Request: "a video of a fox", Answer: "Here is a picture instead.",
		Plan: []pipeline.Task{{ID: 1, Task: "text-to-video", Args: map[string]string{"text": "a fox"}}},
		Revisions: []pipeline.Revision{
			{After: []pipeline.FailedTask{{ID: 1, Task: "text-to-video", Error: "all 3 attempts failed;\nlast: 404"}},
				Tasks: []pipeline.Task{{ID: 2, Task: "text-to-image", Args: map[string]string{"text": "a fox"}}},
				Notes: []string{"the revision repeated task 1"}},
			{After: []pipeline.FailedTask{{ID: 2, Task: "text-to-image", Error: "timed out"}}, Tasks: []pipeline.Task{}},
		}})
	md := Export(s)
	for _, want := range []string{
		"**Plan revised:** revised after task 1 (text-to-video) failed: all 3 attempts failed; last: 404; added task 2 (text-to-image)\n\n- #2 `text-to-image` — text=`a fox`\n",
		"Revision notes:\n\n- the revision repeated task 1\n",
		"**Plan revised:** revised after task 2 (text-to-image) failed: timed out; the controller found no other way\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q\n---\n%s", want, md)
		}
	}
}
