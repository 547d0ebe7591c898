package command

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/text"
)

// result reads the run's product where the declaration says it is: its
// stdout, the file at {out}, or a file it named on its last line of
// output — which must lie in its scratch directory.
func (e *Endpoint) result(c *call, stdout []byte) (endpoints.Result, error) {
	var data []byte
	name := "output." + c.spec.outExt
	switch c.prog.OutputPlace() {
	case skills.OutputStdout:
		data = stdout
	case skills.OutputFile:
		var err error
		if data, err = e.readOutput(c, c.out); err != nil {
			return endpoints.Result{}, err
		}
	case skills.OutputNamed:
		named := lastLine(string(stdout))
		if named == "" {
			return endpoints.Result{}, fmt.Errorf("%s finished without naming the file it wrote", c.prog.Name)
		}
		if !filepath.IsAbs(named) {
			named = filepath.Join(c.dir, named)
		}
		var err error
		if data, err = e.readOutput(c, named); err != nil {
			return endpoints.Result{}, err
		}
		name = named
	}
	if c.spec.textOut {
		return endpoints.Result{Text: cleanText(data)}, nil
	}
	return blobResult(c.prog.Name, name, data)
}

// cleanText is a program's text output as a result: valid UTF-8, no
// terminal controls, no form feeds (tesseract ends pages with one), no
// padding.
func cleanText(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.TrimSpace(text.Clean(strings.ReplaceAll(s, "\f", "")))
}

// blobResult is a produced file: its type from its name or its first
// bytes, and a line saying what it is.
func blobResult(prog, name string, data []byte) (endpoints.Result, error) {
	if len(data) == 0 {
		return endpoints.Result{}, fmt.Errorf("%s wrote an empty file", prog)
	}
	mt := skills.MIMEOfName(name)
	if sniffed, m := skills.Sniff(data[:min(len(data), 512)]); m != skills.Text && sniffed != "" {
		mt = sniffed
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	blob := endpoints.Blob{MIME: mt, Data: data}
	if mt == "audio/wav" {
		info, err := wavInfo(data)
		if err != nil {
			return endpoints.Result{}, fmt.Errorf("%s wrote an unusable WAV file: %w", prog, err)
		}
		return endpoints.Result{Text: info, Blobs: []endpoints.Blob{blob}}, nil
	}
	return endpoints.Result{Text: fmt.Sprintf("%s (%s)", mt, skills.HumanBytes(int64(len(data)))), Blobs: []endpoints.Blob{blob}}, nil
}

// readOutput reads a file the program wrote in the call's scratch
// directory, within the size limit. Only that directory is allowed: a
// program that left a link to another file in its output's place, or
// named a file elsewhere, gets it refused, not read.
func (e *Endpoint) readOutput(c *call, path string) ([]byte, error) {
	scratch := scope.New(scope.Options{WorkDir: c.dir})
	scratch.AllowDir(c.dir, scope.Output)
	f, err := scratch.Check(path)
	var denied *scope.DeniedError
	switch {
	case errors.As(err, &denied):
		return nil, endpoints.Explain(fmt.Sprintf("%s left its output at %s, outside its outputs folder; it was not read", c.prog.Name, denied.Resolved), endpoints.ErrUnavailable, denied)
	case err != nil:
		return nil, fmt.Errorf("%s finished without writing its output: %w", c.prog.Name, err)
	}
	data, err := f.ReadAll(e.opts.MaxOutputBytes)
	if errors.Is(err, scope.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w (more than %s)", c.prog.Name, errOutputTooLarge, skills.HumanBytes(e.opts.MaxOutputBytes))
	}
	return data, err
}

// wavInfo checks a RIFF/WAVE file and says how long it plays:
// "2.4 s of audio (WAV, 22 kHz mono)".
func wavInfo(b []byte) (string, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return "", errors.New("not a RIFF/WAVE file")
	}
	var byteRate, rate uint32
	var channels uint16
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:off+8]))
		body := off + 8
		switch id {
		case "fmt ":
			if body+12 > len(b) {
				return "", errors.New("truncated fmt chunk")
			}
			channels = binary.LittleEndian.Uint16(b[body+2 : body+4])
			rate = binary.LittleEndian.Uint32(b[body+4 : body+8])
			byteRate = binary.LittleEndian.Uint32(b[body+8 : body+12])
		case "data":
			if byteRate == 0 {
				return "", errors.New("data before a valid fmt chunk")
			}
			// Streaming writers leave the size unset (0 or 0xFFFFFFFF);
			// then the data runs to the end of the file.
			if size <= 0 || body+size > len(b) {
				size = len(b) - body
			}
			d := time.Duration(float64(size) / float64(byteRate) * float64(time.Second))
			layout := "mono"
			if channels > 1 {
				layout = fmt.Sprintf("%d channels", channels)
			}
			return fmt.Sprintf("%.1f s of audio (WAV, %s kHz %s)", d.Seconds(), trimZero(float64(rate)/1000), layout), nil
		}
		if size < 0 || body+size < body {
			break
		}
		off = body + size + size%2
	}
	return "", errors.New("no data chunk")
}

func trimZero(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}
