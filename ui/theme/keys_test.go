package theme

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestKeyMapRemap(t *testing.T) {
	km, err := NewKeyMap(map[string][]string{"copy_answer": {"Ctrl-O"}, "toggle_panes": {"F9"}})
	if err != nil {
		t.Fatal(err)
	}
	ctrlO := tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	ctrlY := tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl}
	if !km.Matches(ctrlO, ActCopyAnswer) {
		t.Error("ctrl+o should copy after remapping (written Ctrl-O)")
	}
	if km.Matches(ctrlY, ActCopyAnswer) {
		t.Error("the default ctrl+y should be replaced, not kept")
	}
	if !km.Matches(tea.KeyPressMsg{Code: tea.KeyF9}, ActTogglePanes) {
		t.Error("f9 should toggle the panes")
	}
	if !km.Matches(tea.KeyPressMsg{Code: tea.KeyEnter}, ActSend) {
		t.Error("actions not remapped keep their defaults: enter should still send")
	}
}

func TestKeyMapErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		in   map[string][]string
		want []string
	}{
		{map[string][]string{"copy-everything": {"ctrl+o"}}, []string{"ui.keys.copy-everything", "unknown action", "copy_answer"}},
		{map[string][]string{"send": {}}, []string{"ui.keys.send", "no keys", "enter"}},
		{map[string][]string{"copy_answer": {"ctrl+r"}}, []string{`"ctrl+r"`, "copy_answer", "toggle_raw"}},
	}
	for _, c := range cases {
		_, err := NewKeyMap(c.in)
		if err == nil {
			t.Errorf("%v: no error", c.in)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q lacks %q", c.in, err, w)
			}
		}
	}
}

func TestKeyNormalization(t *testing.T) {
	for in, want := range map[string]string{
		"Ctrl-Y": "ctrl+y", "ALT+Enter": "alt+enter", "option+y": "alt+y", "meta-a": "alt+a",
		" shift+Return ": "shift+enter", "Escape": "esc", "alt+-": "alt+-", "alt+,": "alt+,",
	} {
		if got := normalizeKey(in); got != want {
			t.Errorf("normalizeKey(%q) = %q, want %q", in, got, want)
		}
	}
}
