package skills

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProgramCheck: a declaration's shape is checked before any catalog
// is read, and each mistake is refused naming its field and what to
// write; a declaration the presets' way passes.
func TestProgramCheck(t *testing.T) {
	t.Parallel()
	ok := Program{Name: "tesseract", Tasks: []string{"image-to-text"}, Args: []string{"{image}", "stdout", "{options}"}}
	with := func(change func(p *Program)) Program {
		p := ok
		p.Args = slices.Clone(ok.Args)
		change(&p)
		return p
	}
	for _, tc := range []struct {
		name string
		p    Program
		want string // "" passes
	}{
		{"preset shape", ok, ""},
		{"stdin text", with(func(p *Program) {
			p.Name, p.Args, p.Stdin = "espeak-ng", []string{"-w", "{out}"}, "{text}"
			p.Output = OutputFile
		}), ""},
		{"text after dashes", with(func(p *Program) { p.Args = []string{"-v", "{lang}", "--", "{text}"} }), ""},
		{"text inside an option", with(func(p *Program) { p.Args = []string{"--prompt={text}"} }), ""},
		// Check does not know the tasks' file arguments: a bare {text}
		// is left to the command kind, which does.
		{"bare free text left to the kind", with(func(p *Program) { p.Args = []string{"{text}"} }), ""},
		{"named output", with(func(p *Program) { p.Output, p.Args = OutputNamed, []string{"-o", "{outdir}", "{image}"} }), ""},
		{"every fact", with(func(p *Program) {
			p.Size, p.Timeout, p.Requires, p.Concurrency = "150MB", "2m", []string{"/usr/share/model"}, 2
			p.Env, p.Inputs = map[string]string{"OMP_NUM_THREADS": "1"}, map[string]string{"image": "png"}
			p.Args, p.Pairs = []string{"{src_lang}-{tgt_lang}", "{image}"}, []string{"-l"}
		}), ""},
		{"absolute program with a space", with(func(p *Program) { p.Program = "/opt/my tools/ocr" }), ""},

		{"empty name", with(func(p *Program) { p.Name = "" }), `name: "" is not a name`},
		{"name with a slash", with(func(p *Program) { p.Name = "a/b" }), `name: "a/b" is not a name`},
		{"name too long", with(func(p *Program) { p.Name = strings.Repeat("a", 65) }), "is not a name"},
		{"program with its arguments", with(func(p *Program) { p.Program = "tesseract --psm 7" }), `program: "tesseract --psm 7" holds a space`},
		{"no tasks", with(func(p *Program) { p.Tasks = nil }), "tasks: empty"},
		{"unknown output", with(func(p *Program) { p.Output = "file" }), `output: "file" is not a place`},
		{"{out} unused", with(func(p *Program) { p.Output = OutputFile }), "output: {out}, but no {out} in args"},
		{"named without outdir", with(func(p *Program) { p.Output = OutputNamed }), "output: named, but no {outdir}"},
		{"bad extension", with(func(p *Program) { p.Out = "w a v" }), `out: "w a v" is not a file extension`},
		{"options inside an entry", with(func(p *Program) { p.Args = []string{"--x={options}"} }), "args[0]: {options} stands for several arguments"},
		// {image} first: Check cannot tell it is a file, and must still
		// see the {options} mistakes after it.
		{"options on stdin", with(func(p *Program) { p.Stdin = "{options}" }), "stdin: {options} are arguments"},
		{"options misplaced after a file", with(func(p *Program) { p.Args = append(p.Args, "--psm={options}") }), "args[3]: {options} stands for several arguments"},
		{"unknown input format", with(func(p *Program) { p.Inputs = map[string]string{"image": "webp"} }), `inputs.image: "webp" is not a format`},
		{"input not in argv", with(func(p *Program) { p.Inputs = map[string]string{"audio": "wav16k"} }), "inputs.audio: no {audio} in args or stdin"},
		{"size not a size", with(func(p *Program) { p.Size = "big" }), `size: "big" is not a size on disk`},
		{"size in parameters", with(func(p *Program) { p.Size = "7B" }), `size: "7B" is not a size on disk`},
		{"timeout not a duration", with(func(p *Program) { p.Timeout = "5 minutes" }), `timeout: "5 minutes" is not a duration`},
		{"negative timeout", with(func(p *Program) { p.Timeout = "-1s" }), `timeout: "-1s"`},
		{"relative requirement", with(func(p *Program) { p.Requires = []string{"/ok", "models/en"} }), `requires[1]: "models/en" is not an absolute path`},
		{"negative concurrency", with(func(p *Program) { p.Concurrency = -1 }), "concurrency: -1"},
		{"bad env name", with(func(p *Program) { p.Env = map[string]string{"MY-VAR": "x"} }), `env: "MY-VAR" is not a variable name`},
		{"pairs without languages", with(func(p *Program) { p.Pairs = []string{"-l"} }), "pairs: lists language pairs, but no {src_lang} or {tgt_lang}"},
	} {
		err := tc.p.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Check = %v, want it to pass", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Check = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestProgramCheckArgv: no value the plan wrote can become an option — a
// free-text placeholder standing alone before "--" is refused, and the
// refusal says where to put it; files (absolute paths), language codes,
// a text file and the endpoint's own placeholders may stand anywhere.
func TestProgramCheckArgv(t *testing.T) {
	t.Parallel()
	isFile := func(name string) bool { return name == "image" || name == "audio" }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"{image}", "{out}", "{outdir}", "{options}"}, ""},
		{[]string{"-l", "{src_lang}", "{tgt_lang}", "{lang}", "{language}"}, ""},
		{[]string{"-f", "{text_file}"}, ""},
		{[]string{"--", "{text}"}, ""},
		{[]string{"--text={text}"}, ""},
		{[]string{"{text}"}, `args[0]: {text} could start with '-' and be read as an option: put it after "--" or give it on stdin (stdin: "{text}")`},
		{[]string{"{image}", "{question}", "--"}, "args[1]: {question} could start with '-'"},
		{[]string{"{text}", "x{options}"}, "args[1]: {options} stands for several arguments"},
		{[]string{"{options}x"}, "args[0]: {options} stands for several arguments"},
	} {
		err := Program{Args: tc.args}.CheckArgv(isFile)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: CheckArgv = %v, want it to pass", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: CheckArgv = %v, want %q", tc.args, err, tc.want)
		}
	}
	// The complaint about a bare text is one Check leaves to the command
	// kind; a misplaced {options} it does not.
	var later *mayBeOption
	if err := (Program{Args: []string{"{text}"}}).CheckArgv(func(string) bool { return false }); !errors.As(err, &later) {
		t.Errorf("a bare {text}: %T %v, want *mayBeOption", err, err)
	}
	if err := (Program{Args: []string{"a{options}"}}).CheckArgv(func(string) bool { return false }); errors.As(err, &later) {
		t.Errorf("a misplaced {options} is a plain error, got %T", err)
	}
}

// TestProgramDefaults: what an unset field means — Name is the program,
// one run at a time, five minutes, stdout — and how the install fix reads
// Package.
func TestProgramDefaults(t *testing.T) {
	t.Parallel()
	zero := Program{Name: "espeak-ng"}
	if zero.Executable() != "espeak-ng" || zero.ConcurrencyLimit() != 1 || zero.TimeoutLimit() != DefaultProgramTimeout ||
		zero.OutputPlace() != OutputStdout || zero.SizeBytes() != 0 {
		t.Errorf("defaults: %q %d %v %q %d", zero.Executable(), zero.ConcurrencyLimit(), zero.TimeoutLimit(), zero.OutputPlace(), zero.SizeBytes())
	}
	set := Program{Name: "ocr", Program: " /opt/ocr/bin/ocr ", Concurrency: 3, Timeout: " 90s ", Output: " named ", Size: "150MB"}
	if set.Executable() != "/opt/ocr/bin/ocr" || set.ConcurrencyLimit() != 3 || set.TimeoutLimit() != 90*time.Second ||
		set.OutputPlace() != OutputNamed || set.SizeBytes() != 150_000_000 {
		t.Errorf("set: %q %d %v %q %d", set.Executable(), set.ConcurrencyLimit(), set.TimeoutLimit(), set.OutputPlace(), set.SizeBytes())
	}
	for _, bad := range []string{"soon", "0s", "-3m"} {
		if got := (Program{Timeout: bad}).TimeoutLimit(); got != DefaultProgramTimeout {
			t.Errorf("timeout %q: %v, want the default", bad, got)
		}
	}
	for _, tc := range []struct{ pkg, want string }{
		{"", "install it, or give its absolute path as program:"},
		{"pocketsphinx", "apt-get install pocketsphinx"},
		{"pocketsphinx  pocketsphinx-en-us", "apt-get install pocketsphinx pocketsphinx-en-us"},
		{"libc++1", "apt-get install libc++1"},
		{"pip install rembg[cli]", "pip install rembg[cli]"},
		{"Rembg", "Rembg"}, // not a Debian package name: said as written
	} {
		if got := (Program{Package: tc.pkg}).Fix(); got != tc.want {
			t.Errorf("Fix for package %q = %q, want %q", tc.pkg, got, tc.want)
		}
	}
}

// TestPlaceholders: an argv entry's placeholders are found in order and
// replaced one value each, never split; braces around anything else, and
// a name with no value, stay as written.
func TestPlaceholders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		entry string
		names []string
		exp   string
	}{
		{"{image}", []string{"image"}, "/tmp/a b.png"},
		{"--out={out}", []string{"out"}, "--out=/o/x.wav"},
		{"{src_lang}-{tgt_lang}", []string{"src_lang", "tgt_lang"}, "en-es"},
		{"{Image} {} {9x} {{text}}", []string{"text"}, "{Image} {} {9x} {-rf /}"},
		{"{missing}", []string{"missing"}, "{missing}"},
		{"plain", nil, "plain"},
	} {
		if got := Placeholders(tc.entry); !slices.Equal(got, tc.names) {
			t.Errorf("Placeholders(%q) = %q, want %q", tc.entry, got, tc.names)
		}
		values := map[string]string{"image": "/tmp/a b.png", "out": "/o/x.wav", "src_lang": "en", "tgt_lang": "es", "text": "-rf /"}
		if got := Expand(tc.entry, values); got != tc.exp {
			t.Errorf("Expand(%q) = %q, want %q", tc.entry, got, tc.exp)
		}
	}
	for name, want := range map[string]bool{"lang": true, "language": true, "src_lang": true, "tgt_lang": true, "slang": false, "text": false} {
		if LanguagePlaceholder(name) != want {
			t.Errorf("LanguagePlaceholder(%q) = %v", name, !want)
		}
	}
	for name, want := range map[string]bool{"text_file": true, "prompt_file": true, "_file": false, "file": false, "text": false} {
		if TextFilePlaceholder(name) != want {
			t.Errorf("TextFilePlaceholder(%q) = %v", name, !want)
		}
	}
}
