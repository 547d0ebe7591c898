package media

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// kittyChunk is the largest payload of one kitty graphics escape; the
// protocol requires chunks of at most 4096 bytes, each but the last a
// multiple of 4.
const kittyChunk = 4096

// kittySequence returns the kitty graphics protocol commands that transmit
// and display a PNG (a=T, f=100) scaled by the terminal to c×r cells. q=2
// silences the terminal's replies, which would otherwise arrive as input.
func kittySequence(pngData []byte, c, r int) string {
	b64 := base64.StdEncoding.EncodeToString(pngData)
	var sb strings.Builder
	sb.Grow(len(b64) + (len(b64)/kittyChunk+1)*16 + 40)
	for i := 0; i == 0 || i < len(b64); i += kittyChunk {
		end := min(i+kittyChunk, len(b64))
		more := "0"
		if end < len(b64) {
			more = "1"
		}
		sb.WriteString("\x1b_G")
		if i == 0 {
			sb.WriteString("a=T,f=100,q=2,c=" + strconv.Itoa(c) + ",r=" + strconv.Itoa(r) + ",")
		} else {
			sb.WriteString("q=2,")
		}
		sb.WriteString("m=" + more + ";")
		sb.WriteString(b64[i:end])
		sb.WriteString("\x1b\\")
	}
	return sb.String()
}
