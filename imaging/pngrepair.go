package imaging

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// pngSignature opens every PNG file.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// dropBadAncillary returns a PNG without the ancillary chunks (colour
// profile, text, EXIF…) whose checksum is wrong, and whether it dropped
// any. libpng, and so every browser, discards such a chunk with a
// warning; Go's decoder refuses the whole image, and real files have
// them (the MCP reference server's tiny image has a damaged iCCP). A bad
// critical chunk (IHDR, PLTE, IDAT, IEND) is kept: the image is damaged.
func dropBadAncillary(data []byte) ([]byte, bool) {
	if !bytes.HasPrefix(data, pngSignature) {
		return nil, false
	}
	out := append([]byte(nil), pngSignature...)
	dropped := false
	for i := len(pngSignature); i+12 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[i : i+4]))
		if n < 0 || i+12+n > len(data) {
			return nil, false
		}
		chunk := data[i : i+12+n]
		typ := chunk[4:8]
		ancillary := typ[0]&0x20 != 0
		if ancillary && crc32.ChecksumIEEE(chunk[4:8+n]) != binary.BigEndian.Uint32(chunk[8+n:]) {
			dropped = true
		} else {
			out = append(out, chunk...)
		}
		i += 12 + n
	}
	return out, dropped
}
