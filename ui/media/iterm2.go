package media

import (
	"encoding/base64"
	"strconv"
)

// iterm2Sequence returns iTerm2's inline image escape (OSC 1337 File=) for a
// PNG shown at c×r cells.
func iterm2Sequence(pngData []byte, c, r int) string {
	return "\x1b]1337;File=inline=1;size=" + strconv.Itoa(len(pngData)) +
		";width=" + strconv.Itoa(c) + ";height=" + strconv.Itoa(r) +
		";preserveAspectRatio=1:" + base64.StdEncoding.EncodeToString(pngData) + "\a"
}
