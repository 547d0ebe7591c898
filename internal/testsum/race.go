package main

import (
	"fmt"
	"os/exec"
	"strings"
)

// raceFlag is go test's -race where the race detector can run: it needs
// cgo, so Go's cgo must be on — go env CGO_ENABLED says 1; Go turns it off
// by itself where it finds no C compiler — and the C compiler go env CC
// names must be there (CGO_ENABLED=1 set by hand does not install one).
// Elsewhere flag is "" and why says what is missing, for the one line that
// tells the run went without it. goenv reads `go env KEY`; lookPath finds a
// program (exec.LookPath).
func raceFlag(goenv func(key string) (string, error), lookPath func(string) (string, error)) (flag, why string) {
	cgo, err := goenv("CGO_ENABLED")
	if err != nil {
		return "", fmt.Sprintf("go env CGO_ENABLED failed (%v)", err)
	}
	if cgo != "1" {
		return "", "cgo is off (go env CGO_ENABLED is " + cmpOr(cgo, `""`) + ": no C compiler was found)"
	}
	cc, err := goenv("CC")
	if err != nil {
		return "", fmt.Sprintf("go env CC failed (%v)", err)
	}
	fields := strings.Fields(cc)
	if len(fields) == 0 {
		return "", "go env CC names no C compiler"
	}
	if _, err := lookPath(fields[0]); err != nil {
		return "", "the C compiler " + fields[0] + " (go env CC) is not installed"
	}
	return "-race", ""
}

// goEnv runs `go env key`.
func goEnv(key string) (string, error) {
	out, err := exec.Command("go", "env", key).Output()
	return strings.TrimSpace(string(out)), err
}

// raceNote is the one line a run without the race detector starts with.
func raceNote(why string) string {
	return "testsum: the tests run without the race detector: " + why + " — install a C compiler (gcc or clang) to run it"
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
