package chat

import (
	"testing"

	"github.com/chorusai/chorus/text"
)

// hostile is model output that would take over the terminal if drawn as
// is: clear the screen, retitle the window, write the clipboard (OSC 52),
// colour, carriage return, backspace, bell, an 8-bit CSI.
const hostile = "before \x1b[2J\x1b[H\x1b]0;pwned\x07title \x1b[31mred\x1b[0m tab\there\rCR\x08 bell\x07 " +
	"osc52 \x1b]52;c;aGVsbG8=\x07 c1\u009b31m end"

func TestCleanText(t *testing.T) {
	got := text.Clean(hostile)
	// The chat draws through text.Clean: whole sequences go, the 8-bit CSI
	// with its parameters ("31m" is not left behind).
	want := "before title red tab\there\nCR bell osc52  c1 end"
	if got != want {
		t.Errorf("cleanText = %q, want %q", got, want)
	}
	plain := "an answer\nwith\ttabs, ünïcode and → arrows"
	if got := text.Clean(plain); got != plain {
		t.Errorf("clean text changed: %q", got)
	}
	if got := text.Clean("a\r\nb"); got != "a\nb" {
		t.Errorf("CRLF = %q, want a plain newline", got)
	}
}
