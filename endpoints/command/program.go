package command

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/chorusai/chorus/skills"
)

//go:embed presets.yaml
var presetsYAML []byte

// Presets returns the programs the command kind declares itself —
// tesseract, espeak-ng, ffmpeg, pocketsphinx, apertium — written as a
// user writes one under command.programs.
func Presets() []skills.Program {
	var out []skills.Program
	dec := yaml.NewDecoder(bytes.NewReader(presetsYAML))
	dec.KnownFields(true)
	if err := dec.Decode(&out); err != nil {
		panic("command: presets.yaml: " + err.Error()) // TestPresets keeps it valid
	}
	return out
}

// valueKind is what a placeholder stands for, which decides how its value
// is made and checked.
type valueKind int

const (
	// kindText is text as the plan wrote it: one argument, after "--" or
	// inside a longer entry, or on stdin.
	kindText valueKind = iota
	// kindFile is a media argument: the checked file's absolute path.
	kindFile
	// kindLang is a language code, checked to be one.
	kindLang
	// kindTextFile is a text argument written to a file in the scratch
	// directory ({text_file}): the file's absolute path.
	kindTextFile
	kindOut
	kindOutDir
	kindOptions
)

// taskSpec is a program typed against one of its tasks: what each of its
// placeholders stands for there, and what the task produces.
type taskSpec struct {
	kinds map[string]valueKind
	// media are the file placeholders' modalities; what describes each
	// argument for a message asking for it.
	media map[string]skills.Modality
	what  map[string]string
	// optional are the placeholders the task may leave out.
	optional map[string]bool
	// outExt is the extension {out} gets; textOut is true when the task's
	// product is text.
	outExt  string
	textOut bool
}

// program is one declaration, checked and typed against its tasks.
type program struct {
	skills.Program
	// index is the declaration's place in command.programs; -1 for a
	// preset.
	index int
	tasks map[string]*taskSpec
	// env is Env with ${VAR} read and empty values left out.
	env map[string]string
	// slots bounds the runs going at once.
	slots chan struct{}
}

func (p *program) preset() bool { return p.index < 0 }

// DeclarationError is a program declaration the command kind cannot run:
// its place in command.programs (Index, -1 for a preset), its name, and
// what is wrong. Chorus refuses to start with one, naming the key.
type DeclarationError struct {
	Index int
	Name  string
	Err   error
}

// Key is the configuration key of the declaration: command.programs[N].
func (e *DeclarationError) Key() string {
	if e.Index < 0 {
		return "preset " + e.Name
	}
	return fmt.Sprintf("command.programs[%d]", e.Index)
}

func (e *DeclarationError) Error() string {
	return fmt.Sprintf("%s (%s): %v", e.Key(), e.Name, e.Err)
}

func (e *DeclarationError) Unwrap() error { return e.Err }

// compile checks decl and types its placeholders against its tasks in cat.
func compile(decl skills.Program, index int, cat *skills.Catalog, getenv func(string) string) (*program, error) {
	if err := decl.Check(); err != nil {
		return nil, err
	}
	p := &program{Program: decl, index: index, tasks: map[string]*taskSpec{}, env: map[string]string{},
		slots: make(chan struct{}, decl.ConcurrencyLimit())}
	for _, task := range decl.Tasks {
		s, ok := cat.Skill(task)
		if !ok {
			if near, _, found := cat.Resolve(task); found {
				return nil, fmt.Errorf("tasks: unknown task %q — did you mean %s? (chorus skills lists them)", task, near.Name)
			}
			return nil, fmt.Errorf("tasks: unknown task %q (chorus skills lists them)", task)
		}
		if s.Tool != nil {
			return nil, fmt.Errorf("tasks: %q is a tool of an MCP server, not a task a program can do", task)
		}
		spec, err := typeFor(decl, s)
		if err != nil {
			return nil, err
		}
		p.tasks[s.Name] = spec
	}
	for k, v := range decl.Env {
		if v = os.Expand(v, getenv); v != "" {
			p.env[k] = v
		}
	}
	return p, nil
}

// typeFor types decl's placeholders against skill s's arguments.
func typeFor(decl skills.Program, s *skills.Skill) (*taskSpec, error) {
	spec := &taskSpec{kinds: map[string]valueKind{}, media: map[string]skills.Modality{}, what: map[string]string{}, optional: map[string]bool{}}
	var names []string
	for _, a := range append(slices.Clone(decl.Args), decl.Stdin) {
		names = append(names, skills.Placeholders(a)...)
	}
	for _, n := range names {
		switch n {
		case skills.PlaceholderOut:
			spec.kinds[n] = kindOut
			continue
		case skills.PlaceholderOutDir:
			spec.kinds[n] = kindOutDir
			continue
		case skills.PlaceholderOptions:
			spec.kinds[n] = kindOptions
			continue
		}
		arg := n
		if skills.TextFilePlaceholder(n) {
			arg = strings.TrimSuffix(n, "_file")
		}
		a, ok := s.Arg(arg)
		if !ok {
			var have []string
			for _, a := range s.Args {
				have = append(have, "{"+a.Name+"}")
			}
			return nil, fmt.Errorf("args: {%s} is not an argument of %s (it takes %s, a text's {…_file}, and {out}, {outdir}, {options})", n, s.Name, strings.Join(have, ", "))
		}
		spec.what[n] = a.Description
		spec.optional[n] = a.Optional
		switch {
		case a.Type.Media() && arg != n:
			return nil, fmt.Errorf("args: {%s}: %s is a file already; write {%s}", n, arg, arg)
		case arg != n:
			spec.kinds[n] = kindTextFile
		case a.Type.Media():
			spec.kinds[n], spec.media[n] = kindFile, a.Type
		case skills.LanguagePlaceholder(n):
			spec.kinds[n] = kindLang
		default:
			spec.kinds[n] = kindText
		}
	}
	if err := decl.CheckArgv(func(n string) bool { return spec.kinds[n] == kindFile || spec.kinds[n] == kindTextFile }); err != nil {
		return nil, err
	}
	for n, format := range decl.Inputs {
		if spec.kinds[n] != kindFile {
			return nil, fmt.Errorf("inputs.%s: {%s} is not a file of %s, so there is nothing to convert", n, n, s.Name)
		}
		if want := formatModality(format); want != spec.media[n] && (want != skills.Audio || spec.media[n] != skills.Video) {
			return nil, fmt.Errorf("inputs.%s: %s is an %s format, but {%s} is %s", n, format, want, n, spec.media[n])
		}
	}
	spec.textOut = len(s.Outputs) == 0 || s.Outputs[0] == skills.Text
	spec.outExt = strings.TrimPrefix(decl.Out, ".")
	if spec.outExt == "" {
		spec.outExt = defaultExt(s)
	}
	return spec, nil
}

// defaultExt is the extension of a task's product: png, wav, mp4, txt.
func defaultExt(s *skills.Skill) string {
	if len(s.Outputs) == 0 {
		return "txt"
	}
	switch s.Outputs[0] {
	case skills.Image:
		return "png"
	case skills.Audio:
		return "wav"
	case skills.Video:
		return "mp4"
	}
	return "txt"
}

// programs compiles the presets and the user's declarations: one list,
// a user's entry replacing the preset of its name. Declarations that do
// not compile are left out and returned as errors.
func programs(user []skills.Program, cat *skills.Catalog, getenv func(string) string) ([]*program, error) {
	var out []*program
	var errs []error
	replaced := map[string]bool{}
	for _, d := range user {
		replaced[strings.ToLower(d.Name)] = true
	}
	for _, d := range Presets() {
		if replaced[strings.ToLower(d.Name)] {
			continue
		}
		p, err := compile(d, -1, cat, getenv)
		if err != nil {
			errs = append(errs, &DeclarationError{Index: -1, Name: d.Name, Err: err})
			continue
		}
		out = append(out, p)
	}
	seen := map[string]int{}
	for i, d := range user {
		if j, dup := seen[strings.ToLower(d.Name)]; dup {
			errs = append(errs, &DeclarationError{Index: i, Name: d.Name, Err: fmt.Errorf("name: command.programs[%d] is called %s too; give each program its own name", j, d.Name)})
			continue
		}
		seen[strings.ToLower(d.Name)] = i
		p, err := compile(d, i, cat, getenv)
		if err != nil {
			errs = append(errs, &DeclarationError{Index: i, Name: d.Name, Err: err})
			continue
		}
		out = append(out, p)
	}
	return out, errors.Join(errs...)
}
