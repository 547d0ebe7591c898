package sshd

import "log/slog"

// The largest terminal a chat is drawn for. The SSH protocol carries
// sizes as 32-bit numbers, and the chat draws every cell of its window
// each frame: a client claiming 100000×100000 cells (a bug or on purpose)
// held the server's memory (gigabytes, growing) and a CPU in its first
// frame, and never answered again. A 4K screen full of a small font is
// about 550×145; a client claiming more gets a chat of this size in the
// top left of its window — the cost of a frame stays bounded (at 600×200
// a turn's frames take a few seconds of one core in all).
const (
	maxCols = 600
	maxRows = 200
)

// capWindow is the size the chat is drawn at for a client's claim: the
// claim, capped at maxCols×maxRows. A capped claim is logged once per
// chat (capped says it was).
func capWindow(log *slog.Logger, capped *bool, w, h int) (int, int) {
	cw, ch := min(max(w, 0), maxCols), min(max(h, 0), maxRows)
	if (cw != w || ch != h) && !*capped {
		*capped = true
		log.Warn("ssh window size capped", "claimed_width", w, "claimed_height", h, "width", cw, "height", ch)
	}
	return cw, ch
}
