package media

import (
	"fmt"
	"image"
	"strings"

	"github.com/charmbracelet/x/ansi/kitty"
)

// kittySequence returns the kitty graphics protocol commands that transmit
// and display m as PNG (a=T, f=100), scaled by the terminal to c×r cells,
// in the protocol's 4096-byte chunks — all written by x/ansi's kitty
// encoder. q=2 silences the terminal's replies, which would otherwise
// arrive as input.
func kittySequence(m image.Image, c, r int) (string, error) {
	var sb strings.Builder
	err := kitty.EncodeGraphics(&sb, m, &kitty.Options{
		Action:       kitty.TransmitAndPut,
		Transmission: kitty.Direct,
		Format:       kitty.PNG,
		Quiet:        2,
		Columns:      c,
		Rows:         r,
		Chunk:        true,
	})
	if err != nil {
		return "", fmt.Errorf("encoding the image for kitty: %w", err)
	}
	return sb.String(), nil
}
