package media

import (
	"encoding/base64"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/iterm2"
)

// iterm2Sequence returns iTerm2's inline image escape (OSC 1337 File=) for a
// PNG shown at c×r cells, its aspect ratio kept (x/ansi writes it).
func iterm2Sequence(pngData []byte, c, r int) string {
	return ansi.ITerm2(iterm2.File{
		Inline:  true,
		Size:    int64(len(pngData)),
		Width:   iterm2.Cells(c),
		Height:  iterm2.Cells(r),
		Content: []byte(base64.StdEncoding.EncodeToString(pngData)),
	})
}
