package app_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/app"
	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/internal/testkit"
)

func TestMain(m *testing.M) {
	// This test binary doubles as an MCP server (the fake).
	mcptest.FakeMain()
	os.Exit(m.Run())
}

// loadConfig is the documented defaults with the user's folders in the
// test's own, and the fake MCP server (this binary) configured as "fake".
func loadConfig(t *testing.T) *config.Config {
	t.Helper()
	_, env := testkit.Isolate(t)
	env["CHORUS_CONTROLLER_MODEL"] = "ctl"
	defaults, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(defaults, "", env)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP = []config.MCPServer{{Name: "fake", Command: os.Args[0], Env: mcptest.Env("serve")}}
	return cfg
}

// children lists the processes this test process started that still run
// (Linux: /proc/self/task/*/children).
func children(t *testing.T) []int {
	t.Helper()
	files, _ := filepath.Glob("/proc/self/task/*/children")
	if len(files) == 0 {
		t.Skip("no /proc/self/task/*/children here")
	}
	var pids []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// waitGone waits (up to 10 s) until none of pids is a child any more.
func waitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := slices.DeleteFunc(children(t), func(p int) bool { return !slices.Contains(pids, p) })
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("MCP server processes %v still run after Close", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestNewStartsMCPAndCloseStopsIt: the App's engine has the MCP server's
// tools as skills, MCP says it runs, and Close stops the process New
// started — the lifecycle the command line's package variables held.
func TestNewStartsMCPAndCloseStopsIt(t *testing.T) {
	cfg := loadConfig(t)
	before := children(t)
	a, err := app.New(cfg, app.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	started := slices.DeleteFunc(children(t), func(p int) bool { return slices.Contains(before, p) })
	if len(started) != 1 {
		t.Fatalf("New started %d processes, want the one MCP server", len(started))
	}
	if st := a.MCP(); len(st) != 1 || st[0].State != "running" {
		t.Fatalf("MCP status %+v, want fake running", st)
	}
	if _, ok := a.Engine().Catalog().Skill("fake.echo"); !ok {
		t.Errorf("the catalog has no fake.echo skill: %v", a.Engine().Catalog().Names())
	}
	if a.Service() == nil || a.Service().Engine() != a.Engine() || a.Replaying() || a.Note() != "" || len(a.Warnings()) != 0 {
		t.Errorf("a live App: service %v, replaying %v, note %q, warnings %q", a.Service(), a.Replaying(), a.Note(), a.Warnings())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, started)
	if err := a.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// TestNewRefusalStopsWhatItStarted: an --allow-tool that names a tool the
// server does not offer is bad usage, and the MCP server New had started
// to learn that is stopped — nothing is left running on an error.
func TestNewRefusalStopsWhatItStarted(t *testing.T) {
	cfg := loadConfig(t)
	before := children(t)
	a, err := app.New(cfg, app.Options{AllowTools: []string{"fake.nosuch"}})
	var ue *app.UsageError
	if a != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), `offers Chorus no tool "nosuch"`) {
		t.Fatalf("New = %v, %v; want a UsageError naming the tool", a, err)
	}
	started := slices.DeleteFunc(children(t), func(p int) bool { return slices.Contains(before, p) })
	waitGone(t, started)

	// serve --ssh checks serve.allow_tools the same way, naming the key.
	a, err = app.New(cfg, app.Options{AllowTools: []string{"fake.nosuch"}, AllowToolsFrom: "serve.allow_tools"})
	if a != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), `serve.allow_tools fake.nosuch: the MCP server fake offers Chorus no tool "nosuch"`) {
		t.Fatalf("New = %v, %v; want a UsageError naming serve.allow_tools", a, err)
	}
}

// TestNewWarnsOfAnAllowedToolOfAServerThatDidNotStart: an --allow-tool
// for a server that did not start cannot be checked: it is a warning, with
// the server's own failure, not a refusal.
func TestNewWarnsOfAnAllowedToolOfAServerThatDidNotStart(t *testing.T) {
	cfg := loadConfig(t)
	cfg.MCP[0].Env[mcptest.FakeEnv] = "nostart"
	a, err := app.New(cfg, app.Options{AllowTools: []string{"fake.echo"}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	w := strings.Join(a.Warnings(), "\n")
	if !strings.Contains(w, "permission denied") || !strings.Contains(w, "--allow-tool fake.echo: the MCP server fake did not start") {
		t.Errorf("warnings %q, want the server's failure and the unchecked --allow-tool", w)
	}
}

// TestUsageErrors: what is wrong in the configuration or a flag is a
// UsageError (the command line's exit status 2), named with its key.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*config.Config, *app.Options)
		want string
	}{
		{"constraints.prefer", func(c *config.Config, _ *app.Options) { c.Constraints.Prefer = "fastest" }, "constraints.prefer"},
		{"controller.kind", func(c *config.Config, _ *app.Options) { c.Controller.Kind = "carrier-pigeon" }, "controller.kind"},
		{"replay speed", func(_ *config.Config, o *app.Options) { o.Replay = app.Replay{Path: "x.json", Speed: -1} }, "--replay-speed"},
		{"replay file", func(_ *config.Config, o *app.Options) {
			o.Replay = app.Replay{Path: filepath.Join(t.TempDir(), "none.json"), Speed: 1}
		}, "--replay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := loadConfig(t)
			cfg.MCP = nil
			var opts app.Options
			tc.edit(cfg, &opts)
			_, err := app.New(cfg, opts)
			var ue *app.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want a UsageError naming %s", err, tc.want)
			}
		})
	}
}
