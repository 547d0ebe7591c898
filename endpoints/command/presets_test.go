package command_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/skills"
)

// TestPresetsCompile: every preset is a valid declaration typed against
// the embedded catalog, with the facts selection needs.
func TestPresetsCompile(t *testing.T) {
	t.Parallel()
	ep := command.New(command.Options{})
	if err := ep.Err(); err != nil {
		t.Fatal(err)
	}
	for _, p := range command.Presets() {
		if p.License == "" || p.SizeBytes() == 0 || p.Package == "" || p.Description == "" {
			t.Errorf("preset %s lacks a licence, size, package or description: %+v", p.Name, p)
		}
	}
}

// TestDeclarationsRefused: a declaration Chorus cannot run safely or at
// all is refused with its key and the fix, and left out.
func TestDeclarationsRefused(t *testing.T) {
	t.Parallel()
	base := func(mod func(*skills.Program)) skills.Program {
		p := skills.Program{Name: "tool", Tasks: []string{"summarization"}, Args: []string{"--", "{text}"}}
		mod(&p)
		return p
	}
	for _, c := range []struct {
		name string
		p    skills.Program
		want string
	}{
		{"text as an option", base(func(p *skills.Program) { p.Args = []string{"-i", "{text}"} }), `args[1]: {text} could start with '-' and be read as an option: put it after "--" or give it on stdin`},
		{"question as an option", base(func(p *skills.Program) {
			p.Tasks = []string{"visual-question-answering"}
			p.Args = []string{"{image}", "{text}"}
		}), `args[1]: {text} could start with '-'`},
		{"unknown task", base(func(p *skills.Program) { p.Tasks = []string{"mind-reading"} }), `tasks: unknown task "mind-reading"`},
		{"not an argument", base(func(p *skills.Program) { p.Args = []string{"{image}"} }), "args: {image} is not an argument of summarization (it takes {text}"},
		{"convert text", base(func(p *skills.Program) { p.Inputs = map[string]string{"text": "wav16k"} }), "inputs.text: {text} is not a file of summarization"},
		{"unknown format", base(func(p *skills.Program) { p.Inputs = map[string]string{"text": "ogg"} }), `inputs.text: "ogg" is not a format`},
		{"out without {out}", base(func(p *skills.Program) { p.Output = "{out}" }), "output: {out}, but no {out} in args"},
		{"bad output", base(func(p *skills.Program) { p.Output = "clipboard" }), `output: "clipboard" is not a place`},
		{"program with args", base(func(p *skills.Program) { p.Program = "whisper-cli -m x" }), "program: \"whisper-cli -m x\" holds a space"},
		{"bad size", base(func(p *skills.Program) { p.Size = "7B" }), `size: "7B" is not a size on disk`},
		{"bad timeout", base(func(p *skills.Program) { p.Timeout = "soon" }), `timeout: "soon" is not a duration`},
		{"bad env", base(func(p *skills.Program) { p.Env = map[string]string{"A-B": "x"} }), `env: "A-B" is not a variable name`},
		{"options inside", base(func(p *skills.Program) { p.Args = []string{"--opts={options}", "--", "{text}"} }), "{options} stands for several arguments"},
	} {
		cat, _ := catalog()
		ep := command.New(command.Options{Catalog: cat, Programs: []skills.Program{{Name: "ok", Tasks: []string{"summarization"}, Stdin: "{text}"}, c.p}})
		var de *command.DeclarationError
		if err := ep.Err(); !errors.As(err, &de) || de.Key() != "command.programs[1]" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want command.programs[1] … %s", c.name, err, c.want)
			continue
		}
		if err := ep.Check(context.Background(), "summarization", "tool"); !errors.Is(err, endpoints.ErrUnsupported) {
			t.Errorf("%s: a refused declaration still runs: %v", c.name, err)
		}
	}
	// Two programs of one name: which one ran would be a guess.
	ep := command.New(command.Options{Programs: []skills.Program{base(func(*skills.Program) {}), base(func(*skills.Program) {})}})
	if err := ep.Err(); err == nil || !strings.Contains(err.Error(), "command.programs[0] is called tool too") {
		t.Errorf("duplicate names: %v", err)
	}
}

// TestDeclaredReplacesPreset: a user's declaration named like a preset
// replaces it, and is offered as configured.
func TestDeclaredReplacesPreset(t *testing.T) {
	t.Parallel()
	found := func(name string) (string, error) { return "/usr/bin/" + filepath.Base(name), nil }
	ep := command.New(command.Options{LookPath: found, Programs: []skills.Program{{Name: "espeak-ng", Tasks: []string{"text-to-speech"},
		Args: []string{"-v", "en-us", "-w", "{out}", "--stdin"}, Stdin: "{text}", Output: "{out}", License: "gpl-3.0"}}})
	offers, err := ep.Discover(context.Background(), "text-to-speech")
	if err != nil || len(offers) != 1 || !offers[0].Configured || offers[0].Description != "" {
		t.Errorf("offers %+v, %v; want the user's espeak-ng alone", offers, err)
	}
}

// TestPocketsphinxTranscribes runs the preset for real on speech espeak-ng
// makes: any audio format goes through ffmpeg to 16 kHz mono WAV first.
func TestPocketsphinxTranscribes(t *testing.T) {
	t.Parallel()
	testkit.NeedProgram(t, "pocketsphinx_continuous", "pocketsphinx")
	testkit.NeedProgram(t, "espeak-ng", "espeak-ng")
	testkit.NeedProgram(t, "ffmpeg", "ffmpeg")
	ep := command.New(command.Options{})
	if err := ep.Check(context.Background(), "automatic-speech-recognition", "pocketsphinx"); err != nil {
		t.Skipf("pocketsphinx cannot run here: %v", err)
	}
	// espeak-ng writes 22 kHz WAV; pocketsphinx reads only 16 kHz.
	wav := filepath.Join(t.TempDir(), "speech.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, "hello world").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v\n%s", err, out)
	}
	res, err := ep.Infer(context.Background(), endpointstest.Request(t, "automatic-speech-recognition", "pocketsphinx", map[string]string{"audio": wav}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "hello") {
		t.Errorf("pocketsphinx heard %q in «hello world»", res.Text)
	}
}

// TestApertiumTranslates runs the preset for real: ISO 639-1 codes (or a
// language's name) are mapped onto the installed pair's; a pair that is
// not installed is refused so that another expert can try, naming what
// is installed; without src_lang the only pair into the target is used.
func TestApertiumTranslates(t *testing.T) {
	t.Parallel()
	testkit.NeedProgram(t, "apertium", "apertium apertium-eng-spa")
	ep := command.New(command.Options{})
	ctx := context.Background()
	if err := ep.Check(ctx, "translation", "apertium"); err != nil {
		t.Skipf("apertium has no pair here: %v", err)
	}
	var pairs []string
	for _, s := range ep.Statuses() {
		if s.Name == "apertium" {
			pairs = s.Pairs
		}
	}
	if _, version, err := ep.Probe(ctx, "apertium"); err != nil || !strings.Contains(version, ".") {
		t.Errorf("apertium version %q, %v", version, err)
	}
	if !strings.Contains(strings.Join(pairs, " "), "en→es") {
		t.Skipf("the English→Spanish pair is not installed (pairs %v)", pairs)
	}
	for _, args := range []map[string]string{
		{"text": "The house is big.", "src_lang": "en", "tgt_lang": "es"},
		{"text": "The house is big.", "tgt_lang": "Spanish"},
		{"text": "The house is big.", "src_lang": "eng", "tgt_lang": "ES"},
	} {
		res, err := ep.Infer(ctx, endpoints.Request{Task: "translation", Model: "apertium", Args: args})
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !strings.Contains(res.Text, "casa") {
			t.Errorf("%v: %q, want Spanish (casa)", args, res.Text)
		}
	}
	// A text that looks like an option is translated, not read as one.
	res, err := ep.Infer(ctx, endpoints.Request{Task: "translation", Model: "apertium", Args: map[string]string{"text": "-5 °C outside", "tgt_lang": "es"}})
	if err != nil || !strings.HasPrefix(res.Text, "-5 °C") {
		t.Errorf("-5 °C outside: %q, %v", res.Text, err)
	}
	_, err = ep.Infer(ctx, endpoints.Request{Task: "translation", Model: "apertium", Args: map[string]string{"text": "hello", "src_lang": "en", "tgt_lang": "ja"}})
	if !errors.Is(err, endpoints.ErrUnavailable) || !endpoints.Retryable(err) || !strings.Contains(err.Error(), "has no en→ja pair installed (it has en→es") {
		t.Errorf("a pair not installed: %v", err)
	}
	_, err = ep.Infer(ctx, endpoints.Request{Task: "translation", Model: "apertium", Args: map[string]string{"text": "hello", "tgt_lang": "-x"}})
	if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), `tgt_lang "-x" is not a language code`) {
		t.Errorf("a target that is no language: %v", err)
	}
	// Offered with its pairs, as a niche: they are all it translates.
	offers, _ := ep.Discover(ctx, "translation")
	if len(offers) != 1 || !strings.Contains(offers[0].Niche, "en→es") {
		t.Errorf("offers %+v", offers)
	}
}
