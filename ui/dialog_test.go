package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/turnview"
)

// TestDialogsFitShortTerminals opens every kind of dialog on terminals from
// 20×8 up, with a one-row and a six-row prompt: each frame must be the
// terminal's size, no line wider than it, and the dialog's title and
// footer must still show. A help dialog on a 10-row terminal used to panic
// (a negative body height sliced the lines).
func TestDialogsFitShortTerminals(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	var plan pipeline.Plan
	if err := json.Unmarshal([]byte(fullTurnPlan(env.image)), &plan); err != nil {
		t.Fatal(err)
	}
	var items []dialog.Item
	for i := range 14 {
		items = append(items, dialog.Item{Label: fmt.Sprintf("session %d", i), Detail: "2026-03-14 15:09 · 3 turns"})
	}
	review := func() *dialog.Review {
		return dialog.NewReview(m.keys, &m.st, plan, editorCommand(m.opts.Getenv), m.now)
	}
	dialogs := map[string]func() dialog.Dialog{
		"help": func() dialog.Dialog { return m.helpDialog() },
		"list": func() dialog.Dialog {
			return dialog.NewList(m.keys, &m.st, "Sessions", items, "")
		},
		"review": func() dialog.Dialog {
			return review()
		},
		"review with an error": func() dialog.Dialog {
			d := review()
			d.EditorReturned(dialog.EditorDone{Review: d, Err: errors.New("the edited plan is not valid JSON: invalid character 'x' looking for beginning of value at line 1, column 1 of the text you edited")})
			return d
		},
		"panes full screen": func() dialog.Dialog {
			pc := m.paneContext()
			pc.Turn = fallbackTurnView()
			pc.Expanded = true
			return dialog.NewPanes(m.keys, pc, turnview.PaneModels)
		},
		"inline editor": func() dialog.Dialog {
			d := review()
			m.dialog = d
			d.Update(tea.KeyPressMsg{Code: 'i', Text: "i"})
			d.EditorReturned(dialog.EditorDone{Review: d, Err: errors.New("the edited plan is not valid JSON: unexpected end of JSON input")})
			return d
		},
	}
	for name, open := range dialogs {
		for _, sz := range [][2]int{{20, 8}, {30, 9}, {60, 10}, {80, 11}, {80, 12}, {80, 15}, {80, 24}, {160, 48}} {
			for _, prompt := range []string{"", "one\ntwo\nthree\nfour\nfive\nsix"} {
				m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				m.input.Set(prompt)
				m.dialog = open()
				what := fmt.Sprintf("%s at %dx%d with a %d-row prompt", name, sz[0], sz[1], m.input.Height())
				var content string
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s: View panicked: %v", what, r)
						}
					}()
					content = m.View().Content
				}()
				if content == "" {
					continue
				}
				lines := strings.Split(content, "\n")
				if len(lines) != m.height {
					t.Errorf("%s: %d lines, want %d", what, len(lines), m.height)
				}
				for i, l := range lines {
					if w := ansi.StringWidth(l); w > m.width {
						t.Errorf("%s: line %d is %d wide", what, i, w)
					}
				}
				plain := ansi.Strip(content)
				if !strings.Contains(plain, "╭") || !strings.Contains(plain, "╰") {
					t.Errorf("%s: the dialog's box is cut:\n%s", what, plain)
				}
			}
		}
	}
}

// TestReviewErrorIsWrapped: the parser's message about an edited plan is
// shown in full (wrapped), not cut at the dialog's edge, so the user can
// see where the JSON breaks.
func TestReviewErrorIsWrapped(t *testing.T) {
	env := newTestEnv(t)
	m := env.model(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	var plan pipeline.Plan
	if err := json.Unmarshal([]byte(fullTurnPlan(env.image)), &plan); err != nil {
		t.Fatal(err)
	}
	d := dialog.NewReview(m.keys, &m.st, plan, editorCommand(m.opts.Getenv), m.now)
	m.dialog = d
	d.Update(tea.KeyPressMsg{Code: 'i', Text: "i"})
	d.EditorReturned(dialog.EditorDone{Review: d, Err: errors.New("the edited plan is not valid JSON: invalid character 'x' looking for beginning of value")})
	// Read the text inside the box, whatever the line breaks.
	plain := strings.Join(strings.Fields(strings.ReplaceAll(ansi.Strip(m.View().Content), "│", " ")), " ")
	for _, want := range []string{"looking for", "beginning of value"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the editor's error lacks %q:\n%s", want, ansi.Strip(m.View().Content))
		}
	}
}
