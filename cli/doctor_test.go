package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDoctorCommand: chorus doctor against the fakes — every check passes
// and --json is the documented object, exit 0; with Ollama down and a typo
// in the configuration, the plain listing says ✗ with each fix, the other
// checks still run, and the exit status is 1.
func TestDoctorCommand(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t, nil)
	stdout, stderr, code := e.run("doctor", "--json")
	var rep struct {
		OK        bool  `json:"ok"`
		ElapsedMS int64 `json:"elapsed_ms"`
		Checks    []struct {
			ID, Name, Status, Detail, Fix string
			ElapsedMS                     int64 `json:"elapsed_ms"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json is not one object: %v\n%s", err, stdout)
	}
	ids := map[string]string{}
	for _, c := range rep.Checks {
		ids[c.ID] = c.Status
	}
	if code != 0 || !rep.OK || ids["controller.server"] != "ok" || ids["controller.model"] != "ok" || ids["huggingface.token"] != "ok" ||
		ids["huggingface.router"] != "ok" || ids["programs"] != "skip" || ids["folder.sessions"] != "ok" {
		t.Fatalf("exit %d stderr %q: %+v", code, stderr, rep)
	}

	e.ollama.Stop()
	e.writeUserConfig("controller:\n  modle: ctl\n")
	stdout, stderr, code = e.run("doctor")
	for _, want := range []string{
		"✗ configuration: config: controller.modle", "→ did you mean controller.model?",
		"✗ Ollama: Ollama is not reachable at " + e.ollama.URL, "→ start it with `ollama serve`",
		"– controller model ctl: not checked", "✓ Hugging Face token: valid", "checks failed",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, stdout)
		}
	}
	if code != 1 || !strings.Contains(stderr, "2 of ") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
