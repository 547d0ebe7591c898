package media

import (
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDetect(t *testing.T) {
	cases := []struct {
		name string
		env  []string
		want Protocol
	}{
		{"empty environment", nil, HalfBlocks},
		{"plain xterm", []string{"TERM", "xterm-256color"}, HalfBlocks},
		{"kitty by TERM", []string{"TERM", "xterm-kitty"}, Kitty},
		{"kitty by window id", []string{"TERM", "xterm-256color", "KITTY_WINDOW_ID", "3"}, Kitty},
		{"ghostty", []string{"TERM", "xterm-256color", "TERM_PROGRAM", "ghostty"}, Kitty},
		{"ghostty by TERM", []string{"TERM", "xterm-ghostty"}, Kitty},
		{"iTerm2", []string{"TERM", "xterm-256color", "TERM_PROGRAM", "iTerm.app"}, ITerm2},
		{"iTerm2 over ssh via LC_TERMINAL", []string{"TERM", "xterm-256color", "LC_TERMINAL", "iTerm2", "SSH_CONNECTION", "1 2 3 4"}, ITerm2},
		{"WezTerm", []string{"TERM", "xterm-256color", "TERM_PROGRAM", "WezTerm"}, ITerm2},
		{"mintty", []string{"TERM", "xterm", "TERM_PROGRAM", "mintty"}, ITerm2},
		{"foot", []string{"TERM", "foot"}, Sixel},
		{"foot-extra", []string{"TERM", "foot-extra"}, Sixel},
		{"mlterm", []string{"TERM", "mlterm"}, Sixel},
		{"sixel in TERM", []string{"TERM", "xterm-sixel"}, Sixel},
		{"new Konsole", []string{"TERM", "xterm-256color", "KONSOLE_VERSION", "230805"}, Sixel},
		{"old Konsole", []string{"TERM", "xterm-256color", "KONSOLE_VERSION", "210800"}, HalfBlocks},
		{"kitty inside tmux", []string{"TERM", "tmux-256color", "TMUX", "/tmp/tmux-1000/default,1,0", "KITTY_WINDOW_ID", "1"}, HalfBlocks},
		{"tmux TERM only", []string{"TERM", "screen-256color"}, HalfBlocks},
		{"GNU screen", []string{"TERM", "xterm-kitty", "STY", "123.pts-0"}, HalfBlocks},
		{"tmux with passthrough override", []string{"TMUX", "x", "TERM", "tmux-256color", "CHORUS_IMAGES", "kitty"}, Kitty},
		{"ssh keeps remote TERM", []string{"TERM", "xterm-kitty", "SSH_TTY", "/dev/pts/1"}, Kitty},
		{"ssh from plain terminal", []string{"TERM", "xterm-256color", "SSH_TTY", "/dev/pts/1"}, HalfBlocks},
		{"NO_COLOR", []string{"TERM", "xterm-kitty", "NO_COLOR", "1"}, None},
		{"empty NO_COLOR is unset", []string{"TERM", "xterm-kitty", "NO_COLOR", ""}, Kitty},
		{"NO_COLOR with explicit override", []string{"NO_COLOR", "1", "CHORUS_IMAGES", "blocks"}, HalfBlocks},
		{"dumb terminal", []string{"TERM", "dumb"}, None},
		{"override off", []string{"TERM", "xterm-kitty", "CHORUS_IMAGES", "off"}, None},
		{"override sixel", []string{"CHORUS_IMAGES", "Sixel"}, Sixel},
		{"override iterm2", []string{"CHORUS_IMAGES", "iterm2"}, ITerm2},
		{"override auto", []string{"TERM", "foot", "CHORUS_IMAGES", "auto"}, Sixel},
		{"bad override ignored", []string{"TERM", "foot", "CHORUS_IMAGES", "holograms"}, Sixel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Detect(env(c.env...)); got != c.want {
				t.Errorf("Detect(%v) = %v, want %v", c.env, got, c.want)
			}
		})
	}
	if got := Detect(nil); got != HalfBlocks {
		t.Errorf("Detect(nil) = %v, want blocks", got)
	}
}

func TestParseProtocol(t *testing.T) {
	for _, name := range []string{"kitty", "iterm2", "sixel", "blocks", "off"} {
		p, ok, err := ParseProtocol(name)
		if err != nil || !ok || p.String() != name {
			t.Errorf("ParseProtocol(%q) = %v, %v, %v; want itself back", name, p, ok, err)
		}
	}
	if _, ok, err := ParseProtocol("auto"); ok || err != nil {
		t.Errorf("auto: ok=%v err=%v, want not ok and no error", ok, err)
	}
	_, ok, err := ParseProtocol("holograms")
	if ok || err == nil {
		t.Fatalf("holograms: ok=%v err=%v, want an error", ok, err)
	}
	for _, want := range []string{"CHORUS_IMAGES", "holograms", "kitty, iterm2, sixel, blocks, off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
