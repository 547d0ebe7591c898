// Package command is the command endpoint kind: programs on this machine as
// experts — tesseract for OCR, espeak-ng for text-to-speech, ffmpeg to take
// the sound out of a video. Programs run directly with argv, never through
// a shell, in a scratch directory, with bounded output, and are killed when
// the task's context ends.
package command

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// Options configures the command endpoint.
type Options struct {
	// LookPath finds a program; nil means exec.LookPath (the PATH).
	LookPath func(file string) (string, error)
	// TempDir holds each call's scratch directory; "" means os.TempDir().
	TempDir string
	// MaxOutputBytes bounds a file a program writes and its captured
	// output; a program that goes past it is killed. 0 means 64 MiB.
	MaxOutputBytes int64
	// MaxTextBytes bounds text given to a program (text-to-speech input);
	// 0 means 20 000 bytes, about twenty minutes of speech.
	MaxTextBytes int
	// OCRLanguages is tesseract's -l value ("eng", "eng+deu"); "" uses
	// tesseract's default.
	OCRLanguages string
	// Voice is espeak-ng's -v value ("en-us", "fr"); "" uses its default.
	Voice string
	// Started, when set, is called with each program's process id once it
	// runs (for debug logs, and for tests that cancel a running program).
	Started func(program string, pid int)
}

// Endpoint runs local programs as experts: tesseract for OCR,
// espeak-ng for text-to-speech and ffmpeg to take the audio out of a video.
// Programs run directly with their arguments as argv — never through a
// shell — in a scratch directory, write their products to files there, and
// are killed when the context is cancelled. It is safe for concurrent use.
type Endpoint struct {
	opts Options
}

// program is one local program the endpoint knows how to drive.
type program struct {
	name      string
	aliases   []string
	pkg       string // the Debian package that installs it
	license   string
	sizeBytes int64 // approximate size of its model data
	tasks     []string
	// offered are the tasks Discover proposes it for unasked; the others
	// run only when a skill file names the program. Tesseract can answer
	// image-to-text, but reading text is no caption of a scene.
	offered     []string
	description string
	run         func(ctx context.Context, e *Endpoint, c call) (endpoints.Result, error)
}

// call is one run: the program's path, the catalog's fixed
// arguments, the request and a scratch directory.
type call struct {
	prog  *program
	path  string
	fixed []string
	req   endpoints.Request
	dir   string
}

// programs are the known programs. Automatic speech recognition is not
// among them: no recogniser ships as a plain program here.
var programs = []*program{
	{
		name: "tesseract", pkg: "tesseract-ocr", license: "apache-2.0", sizeBytes: 4_000_000,
		tasks:       []string{"ocr", "image-to-text"},
		offered:     []string{"ocr"},
		description: "Tesseract OCR, run locally: reads printed text in an image (not a caption of the scene).",
		run:         runTesseract,
	},
	{
		name: "espeak-ng", aliases: []string{"espeak"}, pkg: "espeak-ng", license: "gpl-3.0", sizeBytes: 2_000_000,
		tasks:       []string{"text-to-speech"},
		offered:     []string{"text-to-speech"},
		description: "The espeak-ng formant synthesiser, run locally: robotic but instant and offline; WAV output.",
		run:         runEspeak,
	},
	{
		name: "ffmpeg", pkg: "ffmpeg", license: "gpl-2.0",
		tasks:       []string{"video-to-audio"},
		offered:     []string{"video-to-audio"},
		description: "ffmpeg, run locally: extracts a video's sound track as 16 kHz mono WAV.",
		run:         runFFmpegAudio,
	},
}

// New returns the command endpoint.
func New(opts Options) *Endpoint {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = 64 << 20
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = 20_000
	}
	return &Endpoint{opts: opts}
}

// Kind returns endpoints.Command.
func (e *Endpoint) Kind() endpoints.Kind { return endpoints.Command }

// findProgram maps a model id or command name ("tesseract",
// "/usr/bin/espeak-ng") onto a known program.
func findProgram(name string) (*program, bool) {
	base := strings.ToLower(filepath.Base(strings.TrimSpace(name)))
	for _, p := range programs {
		if base == p.name || slices.Contains(p.aliases, base) {
			return p, true
		}
	}
	return nil, false
}

func knownPrograms() string {
	var names []string
	for _, p := range programs {
		names = append(names, p.name+" ("+strings.Join(p.tasks, ", ")+")")
	}
	return strings.Join(names, ", ")
}

// resolve finds the program for task and where it is installed.
func (e *Endpoint) resolve(task, name string) (*program, string, error) {
	p, ok := findProgram(name)
	if !ok {
		return nil, "", fmt.Errorf("%w: the command endpoint does not know how to run %q; it runs %s", endpoints.ErrUnsupported, name, knownPrograms())
	}
	if !slices.Contains(p.tasks, task) {
		return nil, "", fmt.Errorf("%w: %s does %s, not %s", endpoints.ErrUnsupported, p.name, strings.Join(p.tasks, " and "), task)
	}
	lookup := p.name
	if strings.ContainsRune(name, filepath.Separator) || !strings.EqualFold(filepath.Base(name), p.name) {
		lookup = strings.TrimSpace(name) // an explicit path, or an alias such as espeak
	}
	path, err := e.opts.LookPath(lookup)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s is not installed — apt-get install %s", endpoints.ErrUnavailable, lookup, p.pkg)
	}
	return p, path, nil
}

// Check reports whether the program named by model is installed and does task.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	_, _, err := e.resolve(task, model)
	return err
}

// Discover offers the installed programs that do task.
func (e *Endpoint) Discover(ctx context.Context, task string) ([]endpoints.Offer, error) {
	var out []endpoints.Offer
	for _, p := range programs {
		if !slices.Contains(p.offered, task) {
			continue
		}
		if _, _, err := e.resolve(task, p.name); err != nil {
			continue
		}
		out = append(out, endpoints.Offer{ID: p.name, Description: p.description, License: p.license, SizeBytes: p.sizeBytes})
	}
	return out, nil
}

// Infer runs the program named by req.Command (program and fixed
// arguments, from the catalog) or, when that is empty, by req.Model.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	name, fixed := req.Model, []string(nil)
	if len(req.Command) > 0 {
		name, fixed = req.Command[0], req.Command[1:]
	}
	p, path, err := e.resolve(req.Task, name)
	if err != nil {
		return endpoints.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return endpoints.Result{}, err
	}
	dir, err := os.MkdirTemp(e.opts.TempDir, "chorus-"+p.name+"-")
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: scratch directory: %w", p.name, err)
	}
	defer os.RemoveAll(dir)
	return p.run(ctx, e, call{prog: p, path: path, fixed: fixed, req: req, dir: dir})
}

// inputFile returns the checked file of media argument name, opened:
// the program is given its resolved path (absolute, so a file called "-x"
// can never be read as an option), and the caller may look at the opened
// file first. Handing a program a path is fine because the path passed
// the turn's trust rule and every link in it was resolved at the check:
// the program reads exactly the file the user gave, as Chorus would.
func inputFile(req endpoints.Request, name, what string) (string, *os.File, error) {
	f, err := req.File(name, what)
	if err != nil {
		return "", nil, err
	}
	p := req.Args[name]
	if p == "" {
		p = f.Asked()
	}
	fi, err := os.Stat(f.Path())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("%w: %s file %s does not exist — check the path", endpoints.ErrBadInput, name, p)
	case err != nil:
		return "", nil, fmt.Errorf("%w: cannot read %s %s: %w", endpoints.ErrBadInput, name, p, err)
	case !fi.Mode().IsRegular():
		return "", nil, fmt.Errorf("%w: %s is not a regular file", endpoints.ErrBadInput, p)
	}
	fh, err := f.Open()
	if err != nil {
		return "", nil, fmt.Errorf("%w: cannot read %s %s: %w", endpoints.ErrBadInput, name, p, err)
	}
	return f.Path(), fh, nil
}

// exec runs the program in the call's directory with args as argv. It
// kills the program when ctx is cancelled or when outFile (if set) grows
// past the output limit, and returns stdout, bounded too.
func (e *Endpoint) exec(ctx context.Context, c call, args []string, outFile string) ([]byte, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Dir = c.dir
	cmd.Stdin = nil // /dev/null: a program that waits for input fails instead of hanging
	stdout := &boundedBuffer{max: e.opts.MaxOutputBytes}
	stderr := &boundedBuffer{max: 16 << 10, keepTail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second // do not wait forever on pipes a child may hold
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: cannot start %s: %w", endpoints.ErrUnavailable, c.path, err)
	}
	if e.opts.Started != nil {
		e.opts.Started(c.prog.name, cmd.Process.Pid)
	}
	var watch sync.WaitGroup
	stopWatch := make(chan struct{})
	if outFile != "" {
		watch.Add(1)
		go func() {
			defer watch.Done()
			e.watchSize(ctx, outFile, stopWatch, cancel)
		}()
	}
	err := cmd.Wait()
	close(stopWatch)
	watch.Wait()

	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, errOutputTooLarge) {
		return nil, fmt.Errorf("%s: %w (more than %s) — give it a shorter input", c.prog.name, errOutputTooLarge, skills.HumanBytes(e.opts.MaxOutputBytes))
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: %w", c.prog.name, context.Cause(ctx))
	}
	if stdout.overflow {
		return nil, fmt.Errorf("%s: %w (more than %s on stdout)", c.prog.name, errOutputTooLarge, skills.HumanBytes(e.opts.MaxOutputBytes))
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "no error message"
		}
		return nil, fmt.Errorf("%s failed (%w): %s", c.prog.name, err, msg)
	}
	return stdout.Bytes(), nil
}

var errOutputTooLarge = errors.New("output too large")

// watchSize kills the program (through cancel) once path is over the limit.
func (e *Endpoint) watchSize(ctx context.Context, path string, stop <-chan struct{}, cancel context.CancelCauseFunc) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			if fi, err := os.Stat(path); err == nil && fi.Size() > e.opts.MaxOutputBytes {
				cancel(errOutputTooLarge)
				return
			}
		}
	}
}

// readOutput reads a file the program wrote in the call's scratch
// directory, within the size limit. Only that directory is allowed: a
// program that left a link to another file in its output's place gets
// it refused, not read.
func (e *Endpoint) readOutput(c call, path string) ([]byte, error) {
	scratch := scope.New(scope.Options{WorkDir: c.dir})
	scratch.AllowDir(c.dir, scope.Output)
	f, err := scratch.Check(path)
	var denied *scope.DeniedError
	switch {
	case errors.As(err, &denied):
		return nil, endpoints.Explain(fmt.Sprintf("%s left a link to %s in place of its output, outside its scratch directory; it was not read", c.prog.name, denied.Resolved), endpoints.ErrUnavailable, denied)
	case err != nil:
		return nil, fmt.Errorf("%s finished without writing its output: %w", c.prog.name, err)
	}
	data, err := f.ReadAll(e.opts.MaxOutputBytes)
	if errors.Is(err, scope.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w (more than %s)", c.prog.name, errOutputTooLarge, skills.HumanBytes(e.opts.MaxOutputBytes))
	}
	return data, err
}

// boundedBuffer keeps at most max bytes: the head (stdout, which then
// fails the run) or the tail (stderr, where the error usually is).
type boundedBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	max      int64
	keepTail bool
	overflow bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.keepTail {
		b.buf.Write(p)
		if over := int64(b.buf.Len()) - b.max; over > 0 {
			rest := slices.Clone(b.buf.Bytes()[over:])
			b.buf.Reset()
			b.buf.Write(rest)
		}
		return len(p), nil
	}
	if int64(b.buf.Len()+len(p)) > b.max {
		b.overflow = true
		return 0, errOutputTooLarge // stops the copy; the program gets EPIPE
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.buf.Bytes())
}

func (b *boundedBuffer) String() string { return string(b.Bytes()) }

// runTesseract reads the text in an image: tesseract IMAGE OUTBASE [-l L].
func runTesseract(ctx context.Context, e *Endpoint, c call) (endpoints.Result, error) {
	img, fh, err := inputFile(c.req, "image", "the image to read text from")
	if err != nil {
		return endpoints.Result{}, err
	}
	err = checkImageHeader(fh, img)
	fh.Close()
	if err != nil {
		return endpoints.Result{}, err
	}
	base := filepath.Join(c.dir, "ocr")
	args := []string{img, base}
	if e.opts.OCRLanguages != "" && !slices.Contains(c.fixed, "-l") {
		args = append(args, "-l", e.opts.OCRLanguages)
	}
	args = append(args, c.fixed...) // options follow the output base
	if _, err := e.exec(ctx, c, args, base+".txt"); err != nil {
		return endpoints.Result{}, err
	}
	out, err := e.readOutput(c, base+".txt")
	if err != nil {
		return endpoints.Result{}, err
	}
	// Tesseract ends pages with a form feed and pads lines; the text is
	// what matters.
	text := strings.TrimSpace(strings.ReplaceAll(string(out), "\f", ""))
	return endpoints.Result{Text: text}, nil
}

// checkImageHeader refuses files that are not images before tesseract
// prints a cryptic leptonica error about them.
func checkImageHeader(f io.Reader, path string) error {
	if _, _, err := image.DecodeConfig(io.LimitReader(f, 1<<20)); err != nil {
		return fmt.Errorf("%w: %s is not a readable %s image", endpoints.ErrBadInput, path, imaging.DecodableFormats)
	}
	return nil
}

// runEspeak speaks text into a WAV file: espeak-ng -w OUT.wav -f TEXT. The
// text goes through a file, so no text can be taken for an option.
func runEspeak(ctx context.Context, e *Endpoint, c call) (endpoints.Result, error) {
	text, err := c.req.Arg("text", "the words to speak")
	if err != nil {
		return endpoints.Result{}, err
	}
	if len(text) > e.opts.MaxTextBytes {
		return endpoints.Result{}, fmt.Errorf("%w: the text to speak is %d bytes; %s reads at most %d — summarise it first", endpoints.ErrBadInput, len(text), c.prog.name, e.opts.MaxTextBytes)
	}
	in, out := filepath.Join(c.dir, "input.txt"), filepath.Join(c.dir, "speech.wav")
	if err := os.WriteFile(in, []byte(text), 0o600); err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: write input: %w", c.prog.name, err)
	}
	args := slices.Clone(c.fixed)
	if e.opts.Voice != "" && !slices.Contains(c.fixed, "-v") {
		args = append(args, "-v", e.opts.Voice)
	}
	args = append(args, "-w", out, "-f", in)
	if _, err := e.exec(ctx, c, args, out); err != nil {
		return endpoints.Result{}, err
	}
	wav, err := e.readOutput(c, out)
	if err != nil {
		return endpoints.Result{}, err
	}
	dur, err := wavDuration(wav)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("%s wrote an unusable WAV file: %w", c.prog.name, err)
	}
	return endpoints.Result{Text: fmt.Sprintf("%.1f s of speech (WAV)", dur.Seconds()), Blobs: []endpoints.Blob{{MIME: "audio/wav", Data: wav}}}, nil
}

// wavDuration checks a RIFF/WAVE file and returns how long it plays.
func wavDuration(b []byte) (time.Duration, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, errors.New("not a RIFF/WAVE file")
	}
	var byteRate uint32
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:off+8]))
		body := off + 8
		switch id {
		case "fmt ":
			if body+12 > len(b) {
				return 0, errors.New("truncated fmt chunk")
			}
			byteRate = binary.LittleEndian.Uint32(b[body+8 : body+12])
		case "data":
			if byteRate == 0 {
				return 0, errors.New("data before a valid fmt chunk")
			}
			// Streaming writers leave the size unset (0 or 0xFFFFFFFF);
			// then the data runs to the end of the file.
			if size <= 0 || body+size > len(b) {
				size = len(b) - body
			}
			return time.Duration(float64(size) / float64(byteRate) * float64(time.Second)), nil
		}
		if size < 0 || body+size < body {
			break
		}
		off = body + size + size%2
	}
	return 0, errors.New("no data chunk")
}

// runFFmpegAudio extracts a video's sound as 16 kHz mono WAV, the input
// speech recognisers expect.
func runFFmpegAudio(ctx context.Context, e *Endpoint, c call) (endpoints.Result, error) {
	in, fh, err := inputFile(c.req, "video", "the video to take the sound from")
	if err != nil {
		return endpoints.Result{}, err
	}
	fh.Close() // ffmpeg reads it itself
	out := filepath.Join(c.dir, "audio.wav")
	// "file:" keeps ffmpeg from reading a name as a URL or device.
	args := []string{"-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", "file:" + in, "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le"}
	args = append(args, c.fixed...)
	args = append(args, "file:"+out)
	if _, err := e.exec(ctx, c, args, out); err != nil {
		if strings.Contains(err.Error(), "does not contain any stream") || strings.Contains(err.Error(), "matches no streams") {
			return endpoints.Result{}, fmt.Errorf("%w: video %s has no sound track", endpoints.ErrBadInput, c.req.Args["video"])
		}
		return endpoints.Result{}, err
	}
	wav, err := e.readOutput(c, out)
	if err != nil {
		return endpoints.Result{}, err
	}
	dur, err := wavDuration(wav)
	if err != nil {
		return endpoints.Result{}, fmt.Errorf("ffmpeg wrote an unusable WAV file: %w", err)
	}
	return endpoints.Result{Text: fmt.Sprintf("%.1f s of audio (16 kHz mono WAV)", dur.Seconds()), Blobs: []endpoints.Blob{{MIME: "audio/wav", Data: wav}}}, nil
}
