package dialog

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/theme"
)

var (
	keyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	keyEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	keyDown  = tea.KeyPressMsg{Code: tea.KeyDown}
)

func letter(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// TestListReturnsActions: a list never closes itself; it says what was
// chosen, and the parent decides.
func TestListReturnsActions(t *testing.T) {
	st := theme.NewStyles()
	items := []Item{{Label: "a"}, {Label: "b"}, {Label: "c"}}
	for _, c := range []struct {
		name  string
		items []Item
		keys  []tea.KeyPressMsg
		want  Action
	}{
		{"enter picks the selection", items, []tea.KeyPressMsg{keyDown, keyDown, keyEnter}, Pick{Index: 2}},
		{"the selection wraps", items, []tea.KeyPressMsg{keyDown, keyDown, keyDown, keyEnter}, Pick{Index: 0}},
		{"a number picks at once", items, []tea.KeyPressMsg{letter('2')}, Pick{Index: 1}},
		{"esc closes", items, []tea.KeyPressMsg{keyDown, keyEsc}, Close{}},
		{"enter on an empty list closes", nil, []tea.KeyPressMsg{keyEnter}, Close{}},
	} {
		d := NewList(theme.DefaultKeyMap(), &st, "Pick", c.items, "")
		var got Action
		for _, k := range c.keys {
			got, _ = d.Update(k)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: action %#v, want %#v", c.name, got, c.want)
		}
	}
	d := NewList(theme.DefaultKeyMap(), &st, "Pick", items, "")
	if act, _ := d.Update(letter('7')); act != nil {
		t.Errorf("a number past the items does nothing, got %#v", act)
	}
}

func TestTextCloses(t *testing.T) {
	d := NewText(theme.DefaultKeyMap(), "Help", []Row{{Key: "Keys"}, {Key: "f1", Text: "help"}})
	if act, _ := d.Update(keyDown); act != nil {
		t.Errorf("scrolling is no action: %#v", act)
	}
	for _, k := range []tea.KeyPressMsg{keyEsc, keyEnter, letter('q')} {
		if act, _ := d.Update(k); act != (Close{}) {
			t.Errorf("%s should close, got %#v", k, act)
		}
	}
}

// TestReviewAnswers: the review approves the plan (or the user's edit of
// it) or rejects it; a broken edit is refused in the dialog, with the
// parser's message, and approves nothing.
func TestReviewAnswers(t *testing.T) {
	st := theme.NewStyles()
	plan := pipeline.Plan{Tasks: []pipeline.Task{{ID: 1, Task: "image-resize", Args: map[string]string{"image": "/tmp/a.png"}}}}
	now := func() time.Time { return time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC) }
	review := func() *Review { return NewReview(theme.DefaultKeyMap(), &st, plan, []string{"false"}, now) }

	if act, _ := review().Update(letter('r')); !reflect.DeepEqual(act, Approve{Plan: plan}) {
		t.Errorf("r: %#v, want the plan approved", act)
	}
	if act, _ := review().Update(keyEnter); !reflect.DeepEqual(act, Approve{Plan: plan}) {
		t.Errorf("enter: %#v, want the plan approved", act)
	}
	for _, k := range []tea.KeyPressMsg{letter('c'), keyEsc} {
		if act, _ := review().Update(k); act != (Reject{}) {
			t.Errorf("%s: %#v, want the plan rejected", k, act)
		}
	}
	if act, cmd := review().Update(letter('e')); act != nil || cmd == nil {
		t.Errorf("e should start the external editor (a command), got %#v", act)
	}

	d := review()
	d.View(60, 20)
	d.Update(letter('i'))
	if !d.Editing() || !strings.Contains(d.EditorText(), `"image-resize"`) {
		t.Fatalf("i should open the plan's JSON inline: %q", d.EditorText())
	}
	d.SetEditorText(`{"tasks": [`)
	if act, _ := d.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}); act != nil {
		t.Errorf("a broken edit must not run: %#v", act)
	}
	if _, body, _ := d.View(60, 20); !strings.Contains(ansi.Strip(strings.Join(body, "\n")), "not valid JSON") {
		t.Errorf("the refusal should say why:\n%s", ansi.Strip(strings.Join(body, "\n")))
	}
	d.SetEditorText(`[{"task": "image-convert", "id": 1, "args": {"image": "/tmp/a.png", "text": "jpeg"}}]`)
	act, _ := d.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	if a, ok := act.(Approve); !ok || len(a.Plan.Tasks) != 1 || a.Plan.Tasks[0].Task != "image-convert" {
		t.Errorf("ctrl+d should approve the edited plan, got %#v", act)
	}
	d.Update(keyEsc)
	if d.Editing() {
		t.Error("esc leaves the inline editor")
	}

	if act := d.EditorReturned(EditorDone{Review: d, Err: errors.New("the editor failed: exit status 1")}); act != nil {
		t.Errorf("a failed editor approves nothing: %#v", act)
	}
	if act := d.EditorReturned(EditorDone{Review: d, Text: `{"tasks": []}`}); !reflect.DeepEqual(act, Approve{Plan: pipeline.Plan{Tasks: []pipeline.Task{}}}) {
		t.Errorf("the editor's plan should be approved: %#v", act)
	}
}

// hinted is a dialog whose body fills the rows it is given, under a long
// footer of key hints.
type hinted struct{ footer string }

func (hinted) Update(tea.Msg) (Action, tea.Cmd) { return nil, nil }
func (d hinted) View(w, h int) (string, []string, string) {
	body := make([]string, h)
	for i := range body {
		body[i] = "row"
	}
	return "Title", body, d.footer
}

// TestBoxWrapsTheFooter: at 80 columns the sessions dialog's hints were cut
// mid-word ("esc clears or clos"); a footer wider than the box wraps between
// its hints into the blank line above it, so the box keeps its height.
func TestBoxWrapsTheFooter(t *testing.T) {
	st := theme.NewStyles()
	const w, room = 76, 10 // an 80-column terminal
	short := strings.Split(ansi.Strip(Box(hinted{footer: "esc closes"}, &st, w, room, false)), "\n")
	footer := "type to search · ↑/↓ · enter opens · ctrl+d deletes · esc clears or closes"
	box := ansi.Strip(Box(hinted{footer: footer}, &st, w, room, false))
	lines := strings.Split(box, "\n")
	if len(lines) != len(short) {
		t.Errorf("the box is %d rows with a long footer, %d with a short one:\n%s", len(lines), len(short), box)
	}
	flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ", "╭", " ", "╮", " ", "╰", " ", "╯", " ", "─", " ").Replace(box)), " ")
	if !strings.Contains(flat, "ctrl+d deletes · esc clears or closes") && !strings.Contains(flat, "ctrl+d deletes esc clears or closes") {
		t.Errorf("the footer is cut:\n%s", box)
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Errorf("line wider than the box (%d > %d): %q", ansi.StringWidth(l), w, l)
		}
	}
}
