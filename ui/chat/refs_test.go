package chat

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/ui/theme"
)

// TestAnswerShowsReferences: Glamour takes "<resource>-0" for an HTML tag
// and drops it ("uses -0"); answers show it as →#0, streaming or finished,
// and the raw view keeps the source.
func TestAnswerShowsReferences(t *testing.T) {
	st := theme.NewStyles()
	rc := RenderContext{Markdown: NewMarkdown("notty"), Styles: &st, Width: 60}
	src := "The caption uses <resource>-0, and the speech <GENERATED>-1."
	for _, final := range []bool{false, true} {
		m := &Message{Role: RoleAssistant, Text: src, Final: final}
		got := ansi.Strip(strings.Join(m.Render(rc), "\n"))
		if !strings.Contains(got, "uses →#0") || !strings.Contains(got, "speech →#1") {
			t.Errorf("final=%v: references lost: %q", final, got)
		}
	}
	rc.Raw = true
	m := &Message{Role: RoleAssistant, Text: src, Final: true}
	if got := ansi.Strip(strings.Join(m.Render(rc), "\n")); !strings.Contains(got, "<resource>-0") {
		t.Errorf("raw view changed the source: %q", got)
	}
}
