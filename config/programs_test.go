package config

import (
	"errors"
	"strings"
	"testing"
)

// TestPrograms: command.programs is read with its own case (env names,
// bad_input phrases), values as written (${VAR} is the command kind's to
// read when it runs the program), numbers in args as text.
func TestPrograms(t *testing.T) {
	t.Parallel()
	c, err := loadFile(t, `
command:
  programs:
    - name: whisper
      program: whisper-cli
      package: "whisper.cpp: build it"
      tasks: [automatic-speech-recognition]
      args: [-t, 4, -m, /models/ggml-base.en.bin, -nt, -f, "{audio}"]
      inputs: {audio: wav16k}
      env: {WHISPER_Threads: "${MY_THREADS}", API_KEY: sk-literal-secret}
      bad_input: {"Failed To Read": "not audio"}
      timeout: 90s
      concurrency: 2
      license: mit
      size: 148MB
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Command.Programs) != 1 {
		t.Fatalf("programs %+v", c.Command.Programs)
	}
	p := c.Command.Programs[0]
	if p.Name != "whisper" || p.Executable() != "whisper-cli" || strings.Join(p.Args, " ") != "-t 4 -m /models/ggml-base.en.bin -nt -f {audio}" ||
		p.Inputs["audio"] != "wav16k" || p.Env["WHISPER_Threads"] != "${MY_THREADS}" || p.BadInput["Failed To Read"] != "not audio" ||
		p.TimeoutLimit().Seconds() != 90 || p.ConcurrencyLimit() != 2 || p.SizeBytes() != 148_000_000 {
		t.Errorf("read %+v", p)
	}
	// chorus config never shows an env value: it may be a secret.
	if shown := c.Shown().Command.Programs[0].Env["API_KEY"]; strings.Contains(shown, "sk-literal") {
		t.Errorf("chorus config shows env as %q", shown)
	}
}

// TestProgramProblemsNameTheKey: a declaration's mistake is refused at
// start with the key to fix and what to write.
func TestProgramProblemsNameTheKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ yaml, key, msg string }{
		{"command:\n  programs:\n    - tasks: [ocr]\n", "command.programs[0].name", "is not a name"},
		{"command:\n  programs:\n    - name: x\n", "command.programs[0].tasks", "empty"},
		{"command:\n  programs:\n    - name: x\n      tasks: [ocr]\n      argz: [a]\n", "command.programs[0].argz", "did you mean command.programs[0].args?"},
		{"command:\n  programs:\n    - name: x\n      tasks: ocr\n", "command.programs[0]", "are lists"},
		{"command:\n  programs:\n    name: x\n", "command.programs", "is a list of programs"},
		{"command:\n  programs:\n    - name: x\n      tasks: [ocr]\n      output: '{out}'\n", "command.programs[0].output", "no {out} in args"},
		{"command:\n  programs:\n    - name: x\n      tasks: [ocr]\n      timeout: soon\n", "command.programs[0].timeout", "not a duration"},
		{"command:\n  programs:\n    - name: x\n      tasks: [ocr]\n      inputs: {image: tiff}\n", "command.programs[0].inputs.image", "not a format"},
		{"command:\n  programs:\n    - name: x\n      tasks: [ocr]\n      requires: [model.bin]\n", "command.programs[0].requires[0]", "not an absolute path"},
	} {
		_, err := loadFile(t, tc.yaml)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("%q: %v, want key %s and %q", tc.yaml, err, tc.key, tc.msg)
		}
	}
}
