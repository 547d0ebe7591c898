package app_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/skills"
)

// TestPrograms: chorus skills' list of programs — the presets and the
// user's command.programs, each with where it is installed or what is
// missing — and a declaration the command kind refuses (here a bare
// {text}, which Check leaves to it) is a UsageError naming its key in
// the configuration file, with the other programs listed all the same.
func TestPrograms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		decl skills.Program
		key  string // "" when it runs
		msg  string
	}{
		{"declared", skills.Program{Name: "shout", Program: "/bin/cat", Tasks: []string{"summarization"}, Stdin: "{text}"}, "", ""},
		{"not installed", skills.Program{Name: "nothere", Program: "/nonexistent/nothere", Package: "nothere-tools", Tasks: []string{"summarization"}, Stdin: "{text}"}, "", ""},
		{"text as an option", skills.Program{Name: "shout", Program: "/bin/cat", Tasks: []string{"summarization"}, Args: []string{"{text}"}},
			"command.programs[0].args[0]", `{text} could start with '-'`},
		{"unknown task", skills.Program{Name: "shout", Program: "/bin/cat", Tasks: []string{"summarise-harder"}, Stdin: "{text}"},
			"command.programs[0].tasks", `unknown task "summarise-harder"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := loadConfig(t)
			cfg.File = "/home/u/.config/chorus/config.yaml"
			cfg.Command.Programs = []skills.Program{tc.decl}
			list, err := app.Programs(cfg)
			presets := slices.ContainsFunc(list, func(s command.Status) bool { return s.Preset && s.Name == "tesseract" })
			if !presets {
				t.Errorf("the presets are not listed: %+v", list)
			}
			if tc.key != "" {
				var ue *app.UsageError
				var ce *config.Error
				if !errors.As(err, &ue) || !errors.As(err, &ce) || !strings.HasPrefix(ce.Key, tc.key) || ce.Source != cfg.File ||
					!strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("Programs: %v, want a UsageError of key %s in %s saying %q", err, tc.key, cfg.File, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(list, func(s command.Status) bool { return s.Name == tc.decl.Name })
			if i < 0 {
				t.Fatalf("%s is not listed: %+v", tc.decl.Name, list)
			}
			s := list[i]
			if s.Preset || s.Index != 0 || s.Executable != tc.decl.Program {
				t.Errorf("status %+v", s)
			}
			if installed := s.Missing == ""; installed != (tc.decl.Package == "") {
				t.Errorf("%s: Missing %q, Path %q", tc.name, s.Missing, s.Path)
			}
			if tc.decl.Package != "" && !strings.Contains(s.Missing+s.Fix, "nothere-tools") {
				t.Errorf("what to install is not named: %+v", s)
			}
		})
	}
}

// TestOllamaHost: the Ollama expert endpoint reaches the controller's
// server when the controller is Ollama; beside another controller kind it
// reaches OLLAMA_HOST from the configuration's environment, normalized,
// or Ollama's default when that is unset or not a host.
func TestOllamaHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, host, env, want string
	}{
		{"", "http://10.0.0.5:11434", "", "http://10.0.0.5:11434"},
		{"ollama", "http://10.0.0.5:11434", "http://elsewhere:1", "http://10.0.0.5:11434"},
		{"openai", "http://vllm:8000/v1", "", "http://127.0.0.1:11434"},
		{"openai", "http://vllm:8000/v1", "gpu-box:11500", "http://gpu-box:11500"},
		{"openai", "http://vllm:8000/v1", "0.0.0.0:11500", "http://127.0.0.1:11500"},
		{"openai", "http://vllm:8000/v1", "ftp://x y", "http://127.0.0.1:11434"},
	} {
		cfg := &config.Config{Env: config.Env{}}
		cfg.Controller.Kind, cfg.Controller.Host = tc.kind, tc.host
		if tc.env != "" {
			cfg.Env["OLLAMA_HOST"] = tc.env
		}
		if got := app.OllamaHost(cfg); got != tc.want {
			t.Errorf("kind %q, OLLAMA_HOST %q: %q, want %q", tc.kind, tc.env, got, tc.want)
		}
	}
}
