package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// rawInvisible names the characters no --json output carries raw: an
// 8-bit CSI (C1), a bidi override, an isolate and a mark.
var rawInvisible = map[string]string{"U+009B": "\u009b", "U+202E": "\u202e", "U+2067": "\u2067", "U+200F": "\u200f"}

// craftedText holds all of them, as a session file written by hand (or by
// another program) may: titles and models come from disk.
const craftedText = "evil\u009b2J\u202etxt.exe\u2067 \u200fend"

// TestSessionsJSONEscapesControls: `chorus sessions list --json` and
// `show --json` print a crafted title, model and request with every C1
// and bidi control escaped (\u009b …) — the values decode unchanged, and
// a terminal shown the output sees none of them.
func TestSessionsJSONEscapesControls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := sessions.Store{Dir: dir}
	s := st.New(craftedText)
	s.Title, s.Model = craftedText, craftedText
	s.AddTurn(sessions.Record{Request: craftedText, Answer: "ok"})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	lib := conversation.NewLibrary(dir, nil)
	var list, show, stderr bytes.Buffer
	if err := listSessions(&lib, &list, &stderr, true); err != nil {
		t.Fatal(err)
	}
	if err := showSession(&lib, s.ID, &show, &stderr, true); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"list": list.String(), "show": show.String()} {
		for code, r := range rawInvisible {
			if strings.Contains(out, r) {
				t.Errorf("sessions %s --json prints %s raw:\n%q", name, code, out)
			}
		}
		if !strings.Contains(out, `evil\u009b2J\u202etxt.exe\u2067 \u200fend`) {
			t.Errorf("sessions %s --json does not escape them:\n%s", name, out)
		}
	}
	var listed []struct{ Title, Model string }
	if err := json.Unmarshal(list.Bytes(), &listed); err != nil || len(listed) != 1 || listed[0].Title != craftedText || listed[0].Model != craftedText {
		t.Errorf("the values changed: %+v %v", listed, err)
	}
}

// TestRunJSONEscapesControls: `chorus run --json` (and --plan-only's plan)
// prints no C1 or bidi control, nor a bidi mark, raw from what a model or
// a tool wrote.
func TestRunJSONEscapesControls(t *testing.T) {
	t.Parallel()
	var out, log bytes.Buffer
	p := newPrinter(&out, &log, true, false)
	p.emit(pipeline.AnswerEvent{Text: craftedText})
	p.emit(pipeline.TaskEndEvent{ID: 1, Task: "summarization", Model: craftedText, Status: "ok", Result: craftedText})
	for code, r := range rawInvisible {
		if strings.Contains(out.String(), r) {
			t.Errorf("run --json prints %s raw:\n%q", code, out.String())
		}
	}
	if !strings.Contains(out.String(), `\u200f`) {
		t.Errorf("run --json drops or keeps the mark raw: %q", out.String())
	}
}
