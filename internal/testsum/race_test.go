package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRaceFlag: the race detector runs where cgo works — cgo on and the C
// compiler go env CC names installed — and elsewhere the flag is left out,
// saying what is missing.
func TestRaceFlag(t *testing.T) {
	t.Parallel()
	found := func(string) (string, error) { return "/usr/bin/gcc", nil }
	missing := func(string) (string, error) { return "", exec.ErrNotFound }
	for _, c := range []struct {
		name     string
		env      map[string]string
		look     func(string) (string, error)
		flag, in string
	}{
		{"cgo and gcc", map[string]string{"CGO_ENABLED": "1", "CC": "gcc"}, found, "-race", ""},
		{"CC with flags", map[string]string{"CGO_ENABLED": "1", "CC": "clang -m64"}, found, "-race", ""},
		{"no C compiler: Go turned cgo off", map[string]string{"CGO_ENABLED": "0", "CC": "gcc"}, found, "", "go env CGO_ENABLED is 0"},
		{"CGO_ENABLED=1 by hand, no compiler", map[string]string{"CGO_ENABLED": "1", "CC": "gcc"}, missing, "", "the C compiler gcc (go env CC) is not installed"},
		{"go env fails", nil, found, "", "go env CGO_ENABLED failed"},
		{"CGO_ENABLED empty", map[string]string{"CC": "gcc"}, found, "", `go env CGO_ENABLED is "": no C compiler was found`},
		{"CC empty", map[string]string{"CGO_ENABLED": "1", "CC": " "}, found, "", "go env CC names no C compiler"},
		{"go env CC fails", map[string]string{"CGO_ENABLED": "1"}, found, "", "go env CC failed (no CC)"},
	} {
		goenv := func(k string) (string, error) {
			if c.env == nil {
				return "", errors.New("exit status 2")
			}
			v, ok := c.env[k]
			if !ok && k == "CC" {
				return "", errors.New("no CC")
			}
			return v, nil
		}
		flag, why := raceFlag(goenv, c.look)
		if flag != c.flag || !strings.Contains(why, c.in) || (flag == "") == (why == "") {
			t.Errorf("%s: flag %q why %q, want %q and a reason with %q", c.name, flag, why, c.flag, c.in)
		}
	}
}

// TestTaskTestWithOnlyGo: `go tool task test` on a machine whose only
// program is Go (no C compiler on PATH) runs the suite without -race —
// which would fail there with "-race requires cgo" — and testsum says so
// in one line; with a C compiler it keeps -race.
func TestTaskTestWithOnlyGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool task")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "PATH" && k != "CGO_ENABLED" && k != "CC" {
			env = append(env, kv)
		}
	}
	dry := func(path string) string {
		t.Helper()
		cmd := exec.Command(goBin, "tool", "task", "--dry", "test")
		cmd.Dir, cmd.Env = filepath.Join("..", ".."), append(env, "PATH="+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool task --dry test: %v\n%s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "go test ") {
				return l
			}
		}
		t.Fatalf("no go test command in:\n%s", out)
		return ""
	}
	if line := dry(filepath.Dir(goBin)); strings.Contains(line, "-race") {
		t.Errorf("with only Go on PATH the suite still runs with -race: %s", line)
	}
	if flag, _ := raceFlag(goEnv, exec.LookPath); flag == "-race" {
		if line := dry(os.Getenv("PATH")); !strings.Contains(line, "go test -race ") {
			t.Errorf("with a C compiler the race detector is left out: %s", line)
		}
	}
	if note := raceNote("cgo is off"); strings.Contains(note, "\n") || !strings.Contains(note, "without the race detector") {
		t.Errorf("the note is not one line saying it: %q", note)
	}
}
