package eval

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/pipeline"
)

// fileRef finds the file names a request mentions ('example.jpg',
// "speech.wav"), as TaskBench's requests do.
var fileRef = regexp.MustCompile(`\b[A-Za-z0-9_-]+\.(?i:png|jpe?g|gif|bmp|wav|mp3|flac|mp4|mov|avi|txt)\b`)

// fileRefs rewrites each file name in request as a "{name}" placeholder and
// lists the names, so the suite's inputs are generated for them.
func fileRefs(request string) (string, []string) {
	var names []string
	var b strings.Builder
	last := 0
	for _, loc := range fileRef.FindAllStringIndex(request, -1) {
		// A name inside a path (/home/me/cat.png) is a real file the
		// user named, not one to generate.
		if loc[0] > 0 && strings.ContainsRune(`/\~.`, rune(request[loc[0]-1])) {
			continue
		}
		m := request[loc[0]:loc[1]]
		if !containsString(names, m) {
			names = append(names, m)
		}
		b.WriteString(request[last:loc[0]] + "{" + m + "}")
		last = loc[1]
	}
	b.WriteString(request[last:])
	return b.String(), names
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Turn is case c as a turn: its files generated (or found) in dir, their
// placeholders in the request replaced by full paths, and attached.
func (c Case) Turn(dir string) (pipeline.Turn, error) {
	t := pipeline.Turn{Request: c.Request, OutputDir: filepath.Join(dir, "out")}
	for _, name := range c.Files {
		p, err := Input(dir, name)
		if err != nil {
			return t, err
		}
		t.Request = strings.ReplaceAll(t.Request, "{"+name+"}", p)
		t.Attachments = append(t.Attachments, p)
	}
	t.Attachments = append(t.Attachments, c.Attachments...)
	for _, ex := range c.History {
		user := pipeline.Message{Role: "user", Content: ex.Request}
		bot := pipeline.Message{Role: "assistant", Content: ex.Answer}
		var err error
		if user.Resources, err = historyFiles(dir, ex.Files, &user, &bot); err != nil {
			return t, err
		}
		if bot.Resources, err = historyFiles(dir, ex.Outputs, &user, &bot); err != nil {
			return t, err
		}
		t.History = append(t.History, user, bot)
		// The suite stands for a chat this process ran: the earlier
		// turn's files — given by its user, or made for them — are the
		// chat's, as the chat service remembers them (a session read from
		// disk would grant none of them: pipeline.Turn.Earlier).
		t.Earlier = append(t.Earlier, pipeline.Given{Request: user.Content, Attachments: append(slices.Clone(user.Resources), bot.Resources...)})
	}
	return t, nil
}

// historyFiles generates an earlier turn's files and writes their paths
// into both of its messages.
func historyFiles(dir string, names []string, msgs ...*pipeline.Message) ([]string, error) {
	var paths []string
	for _, name := range names {
		p, err := Input(dir, name)
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			m.Content = strings.ReplaceAll(m.Content, "{"+name+"}", p)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// Input writes the input file name into dir, once, and returns its path.
// What it holds follows the extension: a small picture for an image, a
// second of a tone for audio, an MP4 header for video, a paragraph for
// text — enough for the validator to accept it as that kind of file; the
// planning stage never looks further.
func Input(dir, name string) (string, error) {
	if name != filepath.Base(name) || name == "" || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("input file %q: a suite names files without folders", name)
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	var data []byte
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".png", ".jpg", ".jpeg", ".gif", ".bmp":
		format := strings.TrimPrefix(ext, ".")
		if format == "jpg" {
			format = "jpeg"
		}
		f, err := imaging.Encode(picture(), format)
		if err != nil {
			return "", fmt.Errorf("input file %s: %w", name, err)
		}
		data = f.Data
	case ".wav", ".mp3", ".flac":
		// A WAV under any audio name: only the name's kind matters here.
		data = wav(8000, 1)
	case ".mp4", ".mov", ".avi":
		data = mp4Header()
	case ".txt":
		data = []byte("Chorus is a terminal chat application. A local model plans each request into tasks,\n" +
			"picks an expert model for every task, runs them, and writes the answer from their results.\n")
	default:
		return "", fmt.Errorf("input file %s: no generator for %q files (use png, jpg, wav, mp4 or txt)", name, ext)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return "", err
	}
	return p, nil
}

// picture draws a small scene: sky, a sun, a house — something a vision
// controller could name.
func picture() image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 96, 64))
	for y := range 64 {
		for x := range 96 {
			c := color.RGBA{135, 190, 235, 255}
			switch {
			case y > 44:
				c = color.RGBA{70, 150, 60, 255}
			case (x-78)*(x-78)+(y-12)*(y-12) < 64:
				c = color.RGBA{250, 210, 40, 255}
			case x > 24 && x < 56 && y > 26:
				c = color.RGBA{180, 60, 50, 255}
			case y > 10 && y <= 26 && x > 24+(26-y) && x < 56-(26-y):
				c = color.RGBA{90, 50, 40, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

// wav returns secs seconds of a 440 Hz tone as 16-bit mono PCM WAV.
func wav(rate, secs int) []byte {
	n := rate * secs
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1)) // PCM
	le(uint16(1)) // mono
	le(uint32(rate))
	le(uint32(2 * rate))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(2 * n))
	for i := range n {
		le(int16(8000 * math.Sin(2*math.Pi*440*float64(i)/float64(rate))))
	}
	return b.Bytes()
}

// mp4Header is an ISO media file's first box (ftyp, brand isom) and an
// empty mdat: sniffed as video/mp4, though no player would show it.
func mp4Header() []byte {
	var b bytes.Buffer
	be := func(v any) { _ = binary.Write(&b, binary.BigEndian, v) }
	be(uint32(24))
	b.WriteString("ftypisom")
	be(uint32(0x200))
	b.WriteString("isomiso2")
	be(uint32(8))
	b.WriteString("mdat")
	return b.Bytes()
}
