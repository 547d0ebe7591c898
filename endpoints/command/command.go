// Package command is the command endpoint kind: programs on this machine as
// experts, each declared as data (skills.Program) — the presets (tesseract
// for OCR, espeak-ng for speech, ffmpeg for a video's sound, pocketsphinx
// for speech recognition, apertium for translation) and the user's
// command.programs alike. A program runs directly with argv, never
// through a shell: each placeholder of its declaration becomes exactly one
// argument, files that passed the turn's trust rule reach it as absolute
// paths, text goes after "--" or on stdin. It runs in a scratch
// directory, with the environment allow-list of every program Chorus
// starts, bounded output, a time limit and a limit on runs at once, and is
// killed (its whole process group) when the task's context ends.
package command

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// Options configures the command endpoint.
type Options struct {
	// Programs are the user's declarations (command.programs), after the
	// presets; one named like a preset replaces it.
	Programs []skills.Program
	// Catalog holds the tasks the programs are typed against; nil means
	// the embedded catalog.
	Catalog *skills.Catalog
	// LookPath finds a program; nil means exec.LookPath (the PATH).
	LookPath func(file string) (string, error)
	// Getenv reads the variables a declaration's env names as ${VAR};
	// nil means os.Getenv.
	Getenv func(string) string
	// Environ is Chorus's environment, of which a program gets only the
	// allow-list (endpoints.ChildEnv); nil means os.Environ().
	Environ []string
	// TempDir holds each call's scratch directory; "" means os.TempDir().
	TempDir string
	// MaxOutputBytes bounds a file a program writes and its captured
	// output; a program that goes past it is killed. 0 means 64 MiB.
	MaxOutputBytes int64
	// MaxTextBytes bounds a text value given to a program; 0 means
	// 20 000 bytes, about twenty minutes of speech.
	MaxTextBytes int
	// Started, when set, is called with each process's label (the
	// program's name, or ffmpeg converting its input) and id once it
	// runs (for debug logs, and for tests that watch a running program).
	Started func(program string, pid int)
}

// Endpoint runs the declared programs as experts. It is safe for
// concurrent use.
type Endpoint struct {
	opts     Options
	programs []*program
	err      error

	mu    sync.Mutex
	pairs map[string]pairsListing // by the program's path
}

// call is one run of a program for a task: where it is installed, the
// request, the skill file's arguments, a scratch directory and the
// placeholders' values.
type call struct {
	prog    *program
	spec    *taskSpec
	path    string
	req     endpoints.Request
	options []string
	dir     string
	out     string
	values  map[string]string
	// texts are the {…_file} placeholders' texts, written into dir.
	texts map[string]string
}

// New returns the command endpoint with the presets and opts.Programs. A
// declaration that cannot run (an unknown task, a placeholder its task
// lacks) is left out; Err says which and why.
func New(opts Options) *Endpoint {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = 64 << 20
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = 20_000
	}
	cat := opts.Catalog
	if cat == nil {
		var err error
		if cat, err = skills.Embedded(); err != nil {
			return &Endpoint{opts: opts, err: err}
		}
	}
	progs, err := programs(opts.Programs, cat, opts.Getenv)
	return &Endpoint{opts: opts, programs: progs, err: err, pairs: map[string]pairsListing{}}
}

// Err reports the declarations New left out, as *DeclarationError values
// joined: Chorus refuses to start with one rather than run without it.
func (e *Endpoint) Err() error { return e.err }

// Kind returns skills.EndpointCommand.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointCommand }

// find maps a model id or a skill file's command ("pocketsphinx",
// "tesseract", "/usr/bin/espeak-ng", "pocketsphinx_continuous") onto a
// declared program: by name first, then by its executable's name.
func (e *Endpoint) find(name string) (*program, bool) {
	name = strings.TrimSpace(name)
	for _, p := range e.programs {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	base := filepath.Base(name)
	for _, p := range e.programs {
		if strings.EqualFold(p.Name, base) || filepath.Base(p.Executable()) == base {
			return p, true
		}
	}
	return nil, false
}

func (e *Endpoint) known() string {
	var names []string
	for _, p := range e.programs {
		names = append(names, p.Name+" ("+strings.Join(p.Tasks, ", ")+")")
	}
	return strings.Join(names, ", ")
}

// resolve finds the program for task, where it is installed, and that
// what it needs is there too (its model files, ffmpeg for its inputs).
// A skill file's command may give the program's path.
func (e *Endpoint) resolve(task, name string) (*program, string, error) {
	p, ok := e.find(name)
	if !ok {
		return nil, "", fmt.Errorf("%w: the command endpoint has no program %q; it runs %s — declare it under command.programs", endpoints.ErrUnsupported, name, e.known())
	}
	if _, ok := p.tasks[task]; !ok {
		return nil, "", fmt.Errorf("%w: %s does %s, not %s", endpoints.ErrUnsupported, p.Name, strings.Join(p.Tasks, " and "), task)
	}
	exe := p.Executable()
	if strings.ContainsRune(name, filepath.Separator) {
		exe = strings.TrimSpace(name) // a skill file's explicit path
	}
	path, err := e.opts.LookPath(exe)
	if err != nil {
		return nil, "", e.missing(p, exe+" is not installed (not on PATH)")
	}
	for _, r := range p.Requires {
		if _, err := os.Stat(r); err != nil {
			return nil, "", e.missing(p, fmt.Sprintf("%s needs %s, which is not there", exe, r))
		}
	}
	if len(p.Inputs) > 0 {
		if _, err := e.opts.LookPath(converter); err != nil {
			return nil, "", e.missing(p, fmt.Sprintf("%s needs ffmpeg to convert its input, and ffmpeg is not installed", p.Name))
		}
	}
	if len(p.Pairs) > 0 {
		pairs, err := e.listPairs(p, path)
		if err != nil {
			return nil, "", err
		}
		if len(pairs) == 0 {
			return nil, "", endpoints.Explain(fmt.Sprintf("missing: %s has no language pair installed — %s", p.Name, p.Fix()), endpoints.ErrUnavailable)
		}
	}
	return p, path, nil
}

// missing is the error of a program that cannot run for want of
// something installed, with the fix.
func (e *Endpoint) missing(p *program, what string) error {
	return endpoints.Explain(fmt.Sprintf("missing: %s — %s", what, p.Fix()), endpoints.ErrUnavailable)
}

// Check reports whether the program named by model is installed (with
// what it needs) and does task.
func (e *Endpoint) Check(ctx context.Context, task, model string) error {
	_, _, err := e.resolve(task, model)
	return err
}

// Discover offers every program declared for task — one not installed
// too, which Check then excludes with the package to install, so that a
// listing says what is missing. A program the user declared is offered as
// configured (it ranks ahead of the catalog's general models); one that
// translates says which pairs are installed.
func (e *Endpoint) Discover(ctx context.Context, task string) ([]endpoints.Offer, error) {
	var out []endpoints.Offer
	for _, p := range e.programs {
		if _, ok := p.tasks[task]; !ok {
			continue
		}
		o := endpoints.Offer{ID: p.Name, Description: p.Description, License: p.License, SizeBytes: p.SizeBytes(), Niche: p.Niche, Configured: !p.preset()}
		if len(p.Pairs) > 0 {
			if path, err := e.opts.LookPath(p.Executable()); err == nil {
				if pairs, err := e.listPairs(p, path); err == nil && len(pairs) > 0 {
					o.Niche = "only the pairs installed: " + strings.Join(plainPairs(pairs), ", ")
				}
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// Infer runs the program named by req.Command (program and a skill
// file's arguments) or, when that is empty, by req.Model. Every input is
// checked before anything starts: files through the turn's trust rule,
// text within its bound, language codes as codes.
func (e *Endpoint) Infer(ctx context.Context, req endpoints.Request) (endpoints.Result, error) {
	name, options := req.Model, []string(nil)
	if len(req.Command) > 0 {
		name, options = req.Command[0], req.Command[1:]
	}
	p, path, err := e.resolve(req.Task, name)
	if err != nil {
		return endpoints.Result{}, err
	}
	c := &call{prog: p, spec: p.tasks[req.Task], path: path, req: req, options: options}
	if err := e.prepare(c); err != nil {
		return endpoints.Result{}, err
	}
	release, err := acquire(ctx, c)
	if err != nil {
		return endpoints.Result{}, err
	}
	defer release()
	ctx, cancel := context.WithTimeoutCause(ctx, p.TimeoutLimit(), errTimedOut)
	defer cancel()
	if c.dir, err = os.MkdirTemp(e.opts.TempDir, "chorus-"+p.Name+"-"); err != nil {
		return endpoints.Result{}, fmt.Errorf("%s: scratch directory: %w", p.Name, err)
	}
	defer os.RemoveAll(c.dir)
	c.out = filepath.Join(c.dir, "output."+c.spec.outExt)
	c.values[skills.PlaceholderOut], c.values[skills.PlaceholderOutDir] = c.out, c.dir
	for n, text := range c.texts {
		c.values[n] = filepath.Join(c.dir, n+".txt")
		if err := os.WriteFile(c.values[n], []byte(text), 0o600); err != nil {
			return endpoints.Result{}, fmt.Errorf("%s: write its input: %w", p.Name, err)
		}
	}
	for n, format := range p.Inputs {
		if c.values[n], err = e.convert(ctx, c, n, c.values[n], format); err != nil {
			return endpoints.Result{}, err
		}
	}
	r := run{path: path, args: e.argv(c), label: p.Name}
	if p.OutputPlace() == skills.OutputFile {
		r.watch = c.out
	}
	if p.Stdin != "" {
		in := skills.Expand(p.Stdin, c.values)
		r.stdin = &in
	}
	stdout, err := e.exec(ctx, c, r)
	if err != nil {
		return endpoints.Result{}, err
	}
	return e.result(c, stdout)
}

// argv builds the program's arguments: each entry of its declaration one
// argument with its placeholders replaced, {options} the skill file's
// arguments (first, when the declaration does not place them).
func (e *Endpoint) argv(c *call) []string {
	var args []string
	if !slices.Contains(c.prog.Args, "{"+skills.PlaceholderOptions+"}") {
		args = append(args, c.options...)
	}
	for _, a := range c.prog.Args {
		if a == "{"+skills.PlaceholderOptions+"}" {
			args = append(args, c.options...)
			continue
		}
		args = append(args, skills.Expand(a, c.values))
	}
	return args
}
