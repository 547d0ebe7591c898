package command

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// inputFormat is a format a program may need its input file in: ffmpeg
// turns the checked file into it in the call's scratch directory first.
type inputFormat struct {
	ext      string
	what     string
	modality skills.Modality
	args     []string
}

var inputFormats = map[string]inputFormat{
	"wav16k": {"wav", "16 kHz mono WAV", skills.Audio, []string{"-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le"}},
	"wav":    {"wav", "WAV", skills.Audio, []string{"-vn", "-c:a", "pcm_s16le"}},
	"flac":   {"flac", "FLAC", skills.Audio, []string{"-vn", "-c:a", "flac"}},
	"mp3":    {"mp3", "MP3", skills.Audio, []string{"-vn", "-c:a", "libmp3lame"}},
	"png":    {"png", "PNG", skills.Image, []string{"-frames:v", "1"}},
	"jpg":    {"jpg", "JPEG", skills.Image, []string{"-frames:v", "1", "-q:v", "2"}},
}

// formatModality is what a format of skills.InputFormats holds.
func formatModality(format string) skills.Modality { return inputFormats[format].modality }

// converter is the program that converts inputs.
const converter = "ffmpeg"

// convert has ffmpeg write the file at in (checked, absolute) in format
// into the call's scratch directory, and returns the new file's path. It
// runs under the call's limits: no shell, the child environment, the
// call's context. A file ffmpeg cannot read is the input's fault.
func (e *Endpoint) convert(ctx context.Context, c *call, name, in, format string) (string, error) {
	f := inputFormats[format]
	out := filepath.Join(c.dir, "input-"+name+"."+f.ext)
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", "file:" + in}
	args = append(args, f.args...)
	args = append(args, "file:"+out)
	path, err := e.opts.LookPath(converter)
	if err != nil {
		return "", fmt.Errorf("%w: %s needs %s to convert its %s, and %s is not installed — apt-get install ffmpeg", endpoints.ErrUnavailable, c.prog.Name, converter, name, converter)
	}
	if _, err := e.exec(ctx, c, run{path: path, args: args, label: converter, watch: out}); err != nil {
		var failed *exitError
		if errors.As(err, &failed) {
			return "", fmt.Errorf("%w: cannot convert %s %s to %s for %s: %s", endpoints.ErrBadInput, name, c.req.Args[name], f.what, c.prog.Name, failed.line)
		}
		return "", err
	}
	return out, nil
}
