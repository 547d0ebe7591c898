package fakehf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decode GIF inputs
	"image/jpeg"
	"image/png"
	"math"
)

// PNG returns a valid w×h PNG with a gradient, for use as an input file or a
// generated output. Non-positive sizes are raised to 1.
func PNG(w, h int) []byte {
	w, h = max(w, 1), max(h, 1)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: 128, A: 255})
		}
	}
	return encodePNG(img)
}

// JPEG returns a valid w×h JPEG with the same gradient as PNG.
func JPEG(w, h int) []byte { return jpegOf(w, h) }

func jpegOf(w, h int) []byte {
	src, _, err := image.Decode(bytes.NewReader(PNG(w, h)))
	if err != nil {
		panic(err) // PNG always decodes
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 90}); err != nil {
		panic(err) // only writer errors; a bytes.Buffer has none
	}
	return buf.Bytes()
}

// maskPNG returns a w×h grayscale PNG that is white inside r and black
// elsewhere, the shape of a segmentation mask.
func maskPNG(w, h int, r image.Rectangle) []byte {
	img := image.NewGray(image.Rect(0, 0, max(w, 1), max(h, 1)))
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			if (image.Point{X: x, Y: y}).In(r) {
				img.SetGray(x, y, color.Gray{Y: 255})
			}
		}
	}
	return encodePNG(img)
}

func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		// png.Encode fails only on writer errors; a bytes.Buffer has none.
		panic(err)
	}
	return buf.Bytes()
}

// ImageSize decodes the dimensions of a PNG, JPEG or GIF image.
func ImageSize(data []byte) (w, h int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, err
	}
	return cfg.Width, cfg.Height, nil
}

// WAV returns a valid 16-bit mono PCM WAV file of samples samples at rate Hz
// holding a 440 Hz tone.
func WAV(samples, rate int) []byte {
	samples, rate = max(samples, 0), max(rate, 1)
	var buf bytes.Buffer
	dataLen := samples * 2
	buf.WriteString("RIFF")
	_ = binary.Write(&buf, binary.LittleEndian, uint32(36+dataLen))
	buf.WriteString("WAVEfmt ")
	_ = binary.Write(&buf, binary.LittleEndian, uint32(16)) // fmt chunk size
	_ = binary.Write(&buf, binary.LittleEndian, uint16(1))  // PCM
	_ = binary.Write(&buf, binary.LittleEndian, uint16(1))  // mono
	_ = binary.Write(&buf, binary.LittleEndian, uint32(rate))
	_ = binary.Write(&buf, binary.LittleEndian, uint32(rate*2)) // byte rate
	_ = binary.Write(&buf, binary.LittleEndian, uint16(2))      // block align
	_ = binary.Write(&buf, binary.LittleEndian, uint16(16))     // bits per sample
	buf.WriteString("data")
	_ = binary.Write(&buf, binary.LittleEndian, uint32(dataLen))
	for i := range samples {
		v := int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate)))
		_ = binary.Write(&buf, binary.LittleEndian, v)
	}
	return buf.Bytes()
}

// WAVInfo reads the sample count and rate of a PCM WAV file such as WAV
// writes.
func WAVInfo(data []byte) (samples, rate int, err error) {
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return 0, 0, errors.New("not a RIFF/WAVE file")
	}
	var bits, channels int
	for off := 12; off+8 <= len(data); {
		id := string(data[off : off+4])
		size := int(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		body := data[off+8:]
		if size > len(body) {
			size = len(body)
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return 0, 0, errors.New("short fmt chunk")
			}
			channels = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
		case "data":
			if bits == 0 || channels == 0 {
				return 0, 0, errors.New("data chunk before fmt chunk")
			}
			return size / (bits / 8 * channels), rate, nil
		}
		off += 8 + size + size%2
	}
	return 0, 0, errors.New("no data chunk")
}

// MP4 returns a tiny ISO base media file: an ftyp box that content sniffers
// recognise as video/mp4, and a free box carrying note so tests can see what
// the video was made from. It is not playable.
func MP4(note string) []byte {
	var buf bytes.Buffer
	ftyp := []byte("ftypisom\x00\x00\x02\x00isommp41")
	_ = binary.Write(&buf, binary.BigEndian, uint32(4+len(ftyp)))
	buf.Write(ftyp)
	_ = binary.Write(&buf, binary.BigEndian, uint32(8+len(note)))
	buf.WriteString("free")
	buf.WriteString(note)
	return buf.Bytes()
}

// audioSummary describes an audio body for transcripts: its duration when
// it is a WAV file, else its size.
func audioSummary(data []byte) string {
	if n, rate, err := WAVInfo(data); err == nil {
		return fmt.Sprintf("%.2f seconds of audio", float64(n)/float64(rate))
	}
	return fmt.Sprintf("%d bytes of audio", len(data))
}
