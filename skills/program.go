package skills

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Program declares a program on this machine as an expert: the tasks it
// does, how its argv is built from the task's arguments, where its result
// is, and the facts selection filters on. The command endpoint kind runs
// programs only from such declarations — its presets (tesseract,
// espeak-ng, ffmpeg, pocketsphinx, apertium) are written the same way as
// the ones a user adds under command.programs — so adding a program never
// needs Go code. It is plain data: Check validates its shape; the command
// kind types its placeholders against the tasks' arguments.
type Program struct {
	// Name is the expert's id: what selection, the log and a request
	// ("with apertium") call it. Letters, digits, '.', '_' and '-'.
	Name string `yaml:"name" json:"name" mapstructure:"name"`
	// Program is the executable: a name looked up on PATH or an absolute
	// path. Empty means Name.
	Program string `yaml:"program,omitempty" json:"program,omitempty" mapstructure:"program"`
	// Package is what provides the program, named when it is missing: a
	// Debian package ("pocketsphinx": "apt-get install pocketsphinx" is
	// the fix), or, when it holds a space, the instruction itself ("pip
	// install rembg[cli]").
	Package string `yaml:"package,omitempty" json:"package,omitempty" mapstructure:"package"`
	// Description tells the controller what the program is good at.
	Description string `yaml:"description,omitempty" json:"description,omitempty" mapstructure:"description"`
	// Niche says what a special-purpose program is limited to ("English
	// only"): it then ranks after the general models of its task.
	Niche string `yaml:"niche,omitempty" json:"niche,omitempty" mapstructure:"niche"`
	// Requires are files it needs besides the program, which its package
	// may not bring (a speech model): it is offered only when they exist.
	Requires []string `yaml:"requires,omitempty" json:"requires,omitempty" mapstructure:"requires"`
	// Tasks are the catalog's tasks it does; it is offered for each.
	Tasks []string `yaml:"tasks" json:"tasks" mapstructure:"tasks"`
	// Args is its argv after the program, each entry one argument.
	// Placeholders ({image}, {audio}, {text}, {tgt_lang}, {out}, …) are
	// replaced by one value each — never split, never given to a shell.
	Args []string `yaml:"args,omitempty" json:"args,omitempty" mapstructure:"args"`
	// Stdin is what the program reads on its standard input ("{text}");
	// empty gives it none.
	Stdin string `yaml:"stdin,omitempty" json:"stdin,omitempty" mapstructure:"stdin"`
	// Inputs names the format a file placeholder must be in
	// ({audio: wav16k}); ffmpeg converts the file into it first.
	Inputs map[string]string `yaml:"inputs,omitempty" json:"inputs,omitempty" mapstructure:"inputs"`
	// Output is where the result is: stdout (its text), {out} (the file
	// at {out}), or named (a file whose path it prints as the last line
	// of its output, which must lie in {outdir}). Empty: stdout.
	Output string `yaml:"output,omitempty" json:"output,omitempty" mapstructure:"output"`
	// Out is the extension {out} gets ("wav"); empty: the task's output
	// kind's (png, wav, mp4, txt).
	Out string `yaml:"out,omitempty" json:"out,omitempty" mapstructure:"out"`
	// License and Size are the facts licence and size constraints read:
	// an SPDX-like id, and the size of the program's model data ("150MB").
	License string `yaml:"license,omitempty" json:"license,omitempty" mapstructure:"license"`
	Size    string `yaml:"size,omitempty" json:"size,omitempty" mapstructure:"size"`
	// Timeout bounds one run ("2m"); empty: 5 minutes. The task's own
	// time limit applies too.
	Timeout string `yaml:"timeout,omitempty" json:"timeout,omitempty" mapstructure:"timeout"`
	// Concurrency is how many runs of it may go at once; 0 means 1.
	Concurrency int `yaml:"concurrency,omitempty" json:"concurrency,omitempty" mapstructure:"concurrency"`
	// Env is what its environment holds besides PATH, HOME, the user and
	// the locale, as for a stdio MCP server; ${VAR} passes one of
	// Chorus's own (left out when that is unset or empty).
	Env map[string]string `yaml:"env,omitempty" json:"env,omitempty" mapstructure:"env"`
	// Version is the argv after the program that prints its version
	// ([--version]), for chorus doctor; empty: not asked.
	Version []string `yaml:"version,omitempty" json:"version,omitempty" mapstructure:"version"`
	// Pairs is the argv after the program that lists the language pairs
	// it has installed, one SRC-TGT per line ([-l] for apertium): the
	// {src_lang} and {tgt_lang} a run is given are then a listed pair, in
	// the listing's codes (ISO 639-1 "en" or 639-3 "eng").
	Pairs []string `yaml:"pairs,omitempty" json:"pairs,omitempty" mapstructure:"pairs"`
	// BadInput maps a phrase of the program's error output to what was
	// wrong with the input ("does not contain any stream": "the video has
	// no sound track"): such a failure is the input's, which another
	// expert would not fix.
	BadInput map[string]string `yaml:"bad_input,omitempty" json:"bad_input,omitempty" mapstructure:"bad_input"`
}

// The places a program's result can be (Program.Output).
const (
	OutputStdout = "stdout"
	OutputFile   = "{out}"
	OutputNamed  = "named"
)

// The placeholders every program has, whatever its tasks.
const (
	// PlaceholderOut is the file the program writes its product to, in
	// its scratch directory, with the extension of the output kind.
	PlaceholderOut = "out"
	// PlaceholderOutDir is the program's scratch directory: its outputs
	// folder.
	PlaceholderOutDir = "outdir"
	// PlaceholderOptions is where a skill file's command: arguments go
	// ([tesseract, --psm, 7]); without it they go first. It is the one
	// placeholder that may stand for several entries (or none).
	PlaceholderOptions = "options"
)

// Input formats a file placeholder can ask for (Program.Inputs).
var InputFormats = []string{"wav16k", "wav", "flac", "mp3", "png", "jpg"}

// DefaultProgramTimeout bounds a run when the declaration gives no timeout.
const DefaultProgramTimeout = 5 * time.Minute

var (
	programName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	placeholder = regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`)
	extension   = regexp.MustCompile(`^[a-z0-9]{1,8}$`)
)

// Placeholders returns the names of the placeholders in one argv entry,
// in order: "--out={out}" gives [out]. Braces around anything else are
// the entry's own text.
func Placeholders(entry string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(entry, -1) {
		out = append(out, m[1])
	}
	return out
}

// Expand replaces the placeholders of entry by their values; a name
// values lacks stays as written.
func Expand(entry string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(entry, func(m string) string {
		if v, ok := values[m[1:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// LanguagePlaceholder reports whether a placeholder name takes a language
// code (src_lang, tgt_lang, lang), which is checked to be one, so it can
// never be read as an option.
func LanguagePlaceholder(name string) bool {
	return name == "lang" || name == "language" || strings.HasSuffix(name, "_lang")
}

// Executable returns the program to run: Program, or Name when it is empty.
func (p Program) Executable() string { return cmpOr(strings.TrimSpace(p.Program), p.Name) }

// ConcurrencyLimit is how many runs may go at once (at least 1).
func (p Program) ConcurrencyLimit() int { return max(p.Concurrency, 1) }

// TimeoutLimit is the run's time bound, DefaultProgramTimeout when unset.
func (p Program) TimeoutLimit() time.Duration {
	d, err := time.ParseDuration(strings.TrimSpace(p.Timeout))
	if err != nil || d <= 0 {
		return DefaultProgramTimeout
	}
	return d
}

// SizeBytes is Size in bytes, 0 when unknown.
func (p Program) SizeBytes() int64 {
	if l, err := ParseLimit(p.Size); err == nil {
		return l.Bytes
	}
	return 0
}

// Fix says how to install the program: "apt-get install P Q" when
// Package names Debian packages, Package itself when it is an
// instruction ("pip install rembg[cli]"), and a hint when it is empty.
func (p Program) Fix() string {
	words := strings.Fields(p.Package)
	switch {
	case len(words) == 0:
		return "install it, or give its absolute path as program:"
	case slices.ContainsFunc(words, func(w string) bool { return !debianPackage.MatchString(w) }):
		return strings.Join(words, " ")
	}
	return "apt-get install " + strings.Join(words, " ")
}

var debianPackage = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]+$`)

// OutputPlace is Output with its default: stdout.
func (p Program) OutputPlace() string { return cmpOr(strings.TrimSpace(p.Output), OutputStdout) }

// Check validates the declaration's shape — everything that does not
// depend on the catalog's tasks — and returns the first problem as
// "field: what is wrong, and what to write".
func (p Program) Check() error {
	if !programName.MatchString(p.Name) {
		return fmt.Errorf("name: %q is not a name (letters, digits, '.', '_' and '-', at most 64)", p.Name)
	}
	if exe := p.Executable(); strings.ContainsAny(exe, " \t\n") && !strings.HasPrefix(exe, "/") {
		return fmt.Errorf("program: %q holds a space: give the program alone, and its arguments as args", exe)
	}
	if len(p.Tasks) == 0 {
		return fmt.Errorf("tasks: empty; name the tasks it does (chorus skills lists them)")
	}
	if err := p.checkOutput(); err != nil {
		return err
	}
	var later *mayBeOption
	if err := p.CheckArgv(func(string) bool { return false }); err != nil && !errors.As(err, &later) {
		return err
	}
	for name, format := range p.Inputs {
		if !slices.Contains(InputFormats, format) {
			return fmt.Errorf("inputs.%s: %q is not a format (want one of %s)", name, format, strings.Join(InputFormats, ", "))
		}
		if !p.uses(name) {
			return fmt.Errorf("inputs.%s: no {%s} in args or stdin to convert", name, name)
		}
	}
	if p.Size != "" {
		if l, err := ParseLimit(p.Size); err != nil || l.Bytes == 0 {
			return fmt.Errorf("size: %q is not a size on disk (write 150MB, 2GB)", p.Size)
		}
	}
	if t := strings.TrimSpace(p.Timeout); t != "" {
		if d, err := time.ParseDuration(t); err != nil || d <= 0 {
			return fmt.Errorf("timeout: %q is not a duration (write 30s, 5m)", p.Timeout)
		}
	}
	for i, r := range p.Requires {
		if !strings.HasPrefix(r, "/") {
			return fmt.Errorf("requires[%d]: %q is not an absolute path", i, r)
		}
	}
	if p.Concurrency < 0 {
		return fmt.Errorf("concurrency: %d; how many runs may go at once is 1 or more", p.Concurrency)
	}
	for k := range p.Env {
		if !envVarName.MatchString(k) {
			return fmt.Errorf("env: %q is not a variable name", k)
		}
	}
	if len(p.Pairs) > 0 && !p.uses("src_lang") && !p.uses("tgt_lang") {
		return fmt.Errorf("pairs: lists language pairs, but no {src_lang} or {tgt_lang} takes one")
	}
	return nil
}

var envVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (p Program) checkOutput() error {
	switch p.OutputPlace() {
	case OutputStdout:
	case OutputFile:
		if !p.uses(PlaceholderOut) {
			return fmt.Errorf("output: {out}, but no {out} in args tells the program where to write")
		}
	case OutputNamed:
		if !p.uses(PlaceholderOutDir) {
			return fmt.Errorf("output: named, but no {outdir} in args tells the program where to write")
		}
	default:
		return fmt.Errorf("output: %q is not a place (want stdout, {out} or named)", p.Output)
	}
	if p.Out != "" && !extension.MatchString(strings.TrimPrefix(p.Out, ".")) {
		return fmt.Errorf("out: %q is not a file extension (write wav, png)", p.Out)
	}
	return nil
}

// mayBeOption is CheckArgv's complaint about a text placeholder that
// could be read as an option: Check, which does not know the tasks' file
// arguments, leaves it to the command kind.
type mayBeOption struct{ msg string }

func (e *mayBeOption) Error() string { return e.msg }

// CheckArgv holds argv to the rule that no value can become an option: a
// free-text placeholder ({text}, {question}) is an entry of its own only
// after "--", or part of an entry that starts with something else
// ("--prompt={text}"), or the program's stdin. Files (isFile: a media
// argument of the tasks) are absolute paths and language codes are
// checked, so they may stand anywhere.
func (p Program) CheckArgv(isFile func(name string) bool) error {
	// A text that may be an option is remembered, not returned at once:
	// a misplaced {options} after it is refused whatever the tasks' files
	// are, and Check, which leaves the text to the command kind, must
	// still see it.
	var option error
	dashes := false
	for i, a := range p.Args {
		if a == "--" {
			dashes = true
			continue
		}
		names := Placeholders(a)
		for _, n := range names {
			if n == PlaceholderOptions && a != "{options}" {
				return fmt.Errorf("args[%d]: {options} stands for several arguments, so it is an entry of its own", i)
			}
			if option != nil || !freeText(n) || isFile(n) || dashes || !strings.HasPrefix(a, "{") {
				continue
			}
			option = &mayBeOption{fmt.Sprintf("args[%d]: {%s} could start with '-' and be read as an option: put it after \"--\" or give it on stdin (stdin: \"{%s}\")", i, n, n)}
		}
	}
	for _, n := range Placeholders(p.Stdin) {
		if n == PlaceholderOptions {
			return fmt.Errorf("stdin: {options} are arguments, not input")
		}
	}
	return option
}

// freeText reports whether a placeholder may take text as the plan wrote
// it, which could be anything: every placeholder but the language codes
// and the endpoint's own (files are the caller's to tell).
func freeText(name string) bool {
	switch name {
	case PlaceholderOut, PlaceholderOutDir, PlaceholderOptions:
		return false
	}
	return !LanguagePlaceholder(name) && !TextFilePlaceholder(name)
}

// TextFilePlaceholder reports whether a placeholder stands for a file
// holding a text argument ({text_file}: the text written to a file in the
// scratch directory), for a program that reads its input from a file
// ("-f {text_file}"). Its value is an absolute path, so it may stand
// anywhere.
func TextFilePlaceholder(name string) bool {
	return strings.HasSuffix(name, "_file") && len(name) > len("_file")
}

// uses reports whether a placeholder appears in args or stdin.
func (p Program) uses(name string) bool {
	for _, a := range append(slices.Clone(p.Args), p.Stdin) {
		if slices.Contains(Placeholders(a), name) {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
