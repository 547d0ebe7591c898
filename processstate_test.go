package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

// processState are the few tests that still change the process's
// environment or working folder, by file, each with why it must: what it
// sets is read by something outside Chorus's options. A test that sets
// process state cannot run in parallel, and races every test that reads
// it; configuration comes through config.Env instead, the trust gate's
// home and working folder through pipeline.Options (Home, WorkDir; cli's
// through the environment's HOME and cli.Options.WorkDir), the sessions
// folder and the test hooks through options.
var processState = map[string]string{
	// Real programs and libraries read the process's environment: the
	// audio players (found on PATH, told SDL_AUDIODRIVER), a stdio MCP
	// server's environment (built from the process's: the secrets put
	// there must not reach it), and the OpenAI library (OPENAI_API_KEY,
	// which must never be sent).
	"ui/media/audio_test.go":           "the players on PATH and their variables",
	"endpoints/mcp/everything_test.go": "secrets a stdio server must not inherit",
	"endpoints/mcp/faults_test.go":     "a secret a stdio server must not inherit",
	"controller/openai_test.go":        "OPENAI_API_KEY, which the library reads itself",
}

// TestNoProcessStateInTests fails when a test (or test support under
// internal/) sets an environment variable or changes the working folder —
// t.Setenv, t.Chdir, os.Setenv, os.Unsetenv, os.Clearenv, os.Chdir — in a
// file processState does not list, and when a listed file no longer does,
// so the list stays as short as it can be.
func TestNoProcessStateInTests(t *testing.T) {
	fset := token.NewFileSet()
	found := map[string]bool{}
	files := 0
	for _, p := range testkit.GoFiles(t, ".") {
		if !strings.HasSuffix(p, "_test.go") && !strings.HasPrefix(p, "internal/") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files++
		for _, call := range processCalls(f) {
			found[p] = true
			if _, ok := processState[p]; !ok {
				t.Errorf("%s: %s sets process state, which the tests beside it share — pass the environment in (config.Env, an option) instead, "+
					"or, if something outside Chorus reads it, list the file in processState with why", fset.Position(call.Pos()), render(call.Fun))
			}
		}
	}
	if files < 100 {
		t.Fatalf("found only %d test files: the walk is broken", files)
	}
	for p := range processState {
		if !found[p] {
			t.Errorf("%s sets no process state any more: take it off processState", p)
		}
	}
}

// processCalls are f's calls that set process state: Setenv or Chdir on a
// *testing.T, B or F or a testing.TB (a parameter of that type), and
// os.Setenv, Unsetenv, Clearenv and Chdir.
func processCalls(f *ast.File) []*ast.CallExpr {
	tests := map[string]bool{} // names of parameters of a testing type
	ast.Inspect(f, func(n ast.Node) bool {
		var ft *ast.FuncType
		switch n := n.(type) {
		case *ast.FuncDecl:
			ft = n.Type
		case *ast.FuncLit:
			ft = n.Type
		default:
			return true
		}
		for _, field := range ft.Params.List {
			if slices.Contains([]string{"*testing.T", "*testing.B", "*testing.F", "testing.TB"}, render(field.Type)) {
				for _, name := range field.Names {
					tests[name.Name] = true
				}
			}
		}
		return true
	})
	var calls []*ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		switch {
		case !ok:
		case tests[x.Name] && (sel.Sel.Name == "Setenv" || sel.Sel.Name == "Chdir"),
			x.Name == "os" && slices.Contains([]string{"Setenv", "Unsetenv", "Clearenv", "Chdir"}, sel.Sel.Name):
			calls = append(calls, call)
		}
		return true
	})
	return calls
}

// render is the source text of a type or selector expression.
func render(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + render(e.X)
	case *ast.SelectorExpr:
		return render(e.X) + "." + e.Sel.Name
	}
	return "?"
}
