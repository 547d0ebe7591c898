package theme

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Action names a remappable command of the TUI. The names are the keys of
// the `ui.keys` section of the configuration.
type Action string

// The actions, with their default keys in defaultKeys. The defaults avoid
// what tmux (Ctrl+B), GNU screen (Ctrl+A), Zellij (Ctrl+G/P/T/N/H/S/O/Q,
// Alt+arrows, Alt+H/J/K/L/N/F/P/[/]/=/-) and common terminals (Ctrl+Shift+…,
// Shift+PgUp/PgDn, Ctrl+PgUp/PgDn) already take. view_image and open_file
// are F4 and F5 first; their second keys, Alt+I and Alt+O, are Zellij's
// tab moves and reach Chorus only outside Zellij. The shipped defaults live
// in config.yaml too (TestConfigKeysMatchDefaults).
const (
	ActSend          Action = "send"
	ActNewline       Action = "newline"
	ActCancel        Action = "cancel"
	ActComplete      Action = "complete"
	ActHistoryPrev   Action = "history_prev"
	ActHistoryNext   Action = "history_next"
	ActScrollUp      Action = "scroll_up"
	ActScrollDown    Action = "scroll_down"
	ActScrollTop     Action = "scroll_top"
	ActScrollBottom  Action = "scroll_bottom"
	ActCopyAnswer    Action = "copy_answer"
	ActCopyPick      Action = "copy_pick"
	ActToggleRaw     Action = "toggle_raw"
	ActTogglePanes   Action = "toggle_panes"
	ActNextPane      Action = "next_pane"
	ActPaneUp        Action = "pane_up"
	ActPaneDown      Action = "pane_down"
	ActPlayAudio     Action = "play_audio"
	ActViewImage     Action = "view_image"
	ActOpenFile      Action = "open_file"
	ActExpand        Action = "expand"
	ActZoomPane      Action = "zoom_pane"
	ActCompose       Action = "compose"
	ActSuspend       Action = "suspend"
	ActHelp          Action = "help"
	ActCloseDialog   Action = "close"
	ActDialogConfirm Action = "confirm"
)

// ActionInfo documents one action for /help and docs/ui.md.
type ActionInfo struct {
	Action Action
	Keys   []string
	Help   string
}

// defaultKeys lists every action in the order /help shows them.
var defaultKeys = []ActionInfo{
	{ActSend, []string{"enter"}, "send the message"},
	{ActNewline, []string{"alt+enter", "shift+enter", "ctrl+j"}, "insert a newline (shift+enter where the terminal reports it)"},
	{ActCancel, []string{"ctrl+c"}, "cancel the running turn; on an idle, empty prompt, quit"},
	{ActComplete, []string{"tab"}, "complete a /command or an @file"},
	{ActHistoryPrev, []string{"up"}, "on an empty prompt: recall the previous prompt"},
	{ActHistoryNext, []string{"down"}, "while recalling: the next prompt"},
	{ActScrollUp, []string{"pgup"}, "scroll the chat up"},
	{ActScrollDown, []string{"pgdown"}, "scroll the chat down"},
	{ActScrollTop, []string{"ctrl+home"}, "scroll to the first message"},
	{ActScrollBottom, []string{"ctrl+end"}, "follow the newest message"},
	{ActCopyAnswer, []string{"ctrl+y"}, "copy the last answer (OSC 52, works over ssh)"},
	{ActCopyPick, []string{"alt+y"}, "pick what to copy: any message, a code block or a file path"},
	{ActToggleRaw, []string{"ctrl+r"}, "show the Markdown source instead of the rendering"},
	{ActTogglePanes, []string{"f2", "alt+v"}, "hide or show the plan, models and execution panes"},
	{ActNextPane, []string{"f3", "alt+t"}, "focus the next pane: it gets the room and the scroll keys"},
	{ActPaneUp, []string{"alt+,"}, "scroll the pane in focus up"},
	{ActPaneDown, []string{"alt+."}, "scroll the pane in focus down"},
	{ActPlayAudio, []string{"alt+a"}, "play (or stop) the last audio file"},
	{ActViewImage, []string{"f4", "alt+i"}, "show the last image full size (kitty, iTerm2, sixel or half-blocks)"},
	{ActOpenFile, []string{"f5", "alt+o"}, "open the last generated file with the system viewer"},
	{ActExpand, []string{"f6", "alt+x"}, "details in the Models pane: every reason, candidate and excluded model"},
	{ActZoomPane, []string{"f7", "alt+z"}, "show the pane in focus full screen, every line (any size)"},
	{ActCompose, []string{"ctrl+e"}, "write the prompt in $EDITOR (long prompts)"},
	{ActSuspend, []string{"ctrl+z"}, "suspend Chorus to the shell (fg brings it back)"},
	{ActHelp, []string{"f1"}, "keys and commands"},
	{ActCloseDialog, []string{"esc"}, "close a dialog"},
	{ActDialogConfirm, []string{"enter"}, "choose in a dialog"},
}

// KeyMap binds keys to actions.
type KeyMap struct {
	bindings map[Action]key.Binding
}

// DefaultKeyMap returns the built-in bindings.
func DefaultKeyMap() KeyMap {
	km, _ := NewKeyMap(nil)
	return km
}

// NewKeyMap returns the default bindings with overrides applied: each entry
// of overrides (the `ui.keys` configuration section) replaces the keys of
// one action. Unknown actions, empty key lists and keys bound to two actions
// (outside dialogs) are errors that name the configuration key.
func NewKeyMap(overrides map[string][]string) (KeyMap, error) {
	km := KeyMap{bindings: map[Action]key.Binding{}}
	for _, a := range defaultKeys {
		km.bindings[a.Action] = key.NewBinding(key.WithKeys(a.Keys...), key.WithHelp(strings.Join(a.Keys, "/"), a.Help))
	}
	names := make([]string, 0, len(overrides))
	for n := range overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		keys := overrides[name]
		act := Action(strings.ToLower(strings.TrimSpace(name)))
		info, ok := actionByName(act)
		if !ok {
			return km, fmt.Errorf("config: ui.keys.%s: unknown action (known: %s)", name, strings.Join(actionNames(), ", "))
		}
		var clean []string
		for _, k := range keys {
			k = normalizeKey(k)
			if k == "" {
				continue
			}
			clean = append(clean, k)
		}
		if len(clean) == 0 {
			return km, fmt.Errorf("config: ui.keys.%s: no keys given (the default is %s)", name, strings.Join(info.Keys, ", "))
		}
		km.bindings[act] = key.NewBinding(key.WithKeys(clean...), key.WithHelp(strings.Join(clean, "/"), info.Help))
	}
	if err := km.checkConflicts(); err != nil {
		return km, err
	}
	return km, nil
}

// dialogActions may share keys with chat actions: they only apply while a
// dialog is open.
var dialogActions = []Action{ActCloseDialog, ActDialogConfirm}

func (km KeyMap) checkConflicts() error {
	owner := map[string]Action{}
	for _, a := range defaultKeys {
		if slices.Contains(dialogActions, a.Action) {
			continue
		}
		for _, k := range km.bindings[a.Action].Keys() {
			if prev, ok := owner[k]; ok {
				return fmt.Errorf("config: ui.keys: %q is bound to both %s and %s — give one of them another key", k, prev, a.Action)
			}
			owner[k] = a.Action
		}
	}
	return nil
}

func actionByName(a Action) (ActionInfo, bool) {
	for _, info := range defaultKeys {
		if info.Action == a {
			return info, true
		}
	}
	return ActionInfo{}, false
}

func actionNames() []string {
	out := make([]string, len(defaultKeys))
	for i, a := range defaultKeys {
		out[i] = string(a.Action)
	}
	return out
}

// normalizeKey writes a key the way Bubble Tea names it: lower case,
// modifiers joined by "+", "space" for the space bar.
func normalizeKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	k = strings.ReplaceAll(k, "-", "+")
	k = strings.ReplaceAll(k, " ", "")
	k = strings.ReplaceAll(k, "option+", "alt+")
	k = strings.ReplaceAll(k, "meta+", "alt+")
	k = strings.ReplaceAll(k, "return", "enter")
	k = strings.ReplaceAll(k, "escape", "esc")
	if k == "+" { // "alt+-" became "alt++"; a lone "-" too
		return "-"
	}
	k = strings.ReplaceAll(k, "++", "+-")
	return k
}

// Matches reports whether msg is bound to act.
func (km KeyMap) Matches(msg tea.KeyPressMsg, act Action) bool {
	return key.Matches(msg, km.bindings[act])
}

// Keys returns the keys bound to act.
func (km KeyMap) Keys(act Action) []string { return km.bindings[act].Keys() }

// Label is the first key of act, for hints ("ctrl+y copy").
func (km KeyMap) Label(act Action) string {
	ks := km.Keys(act)
	if len(ks) == 0 {
		return ""
	}
	return ks[0]
}

// Binding returns the key binding of act, for help views.
func (km KeyMap) Binding(act Action) key.Binding { return km.bindings[act] }

// Actions lists every action with its default keys and help text, in the
// order /help shows them.
func Actions() []ActionInfo { return slices.Clone(defaultKeys) }
