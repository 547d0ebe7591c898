package pipeline_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

// A Turn is unpacked once, when the turn starts running (newTurnRun):
// everything after works on the turn's own state (turnRun) or on what a
// stage is given, never on the request again.
var takesTurn = []string{"Run", "PlanOnly", "PlanJSON", "newTurnRun"}

// funcs parses every production file under pipeline/ and returns its
// function declarations, methods and plain functions alike, with the
// package each is in.
func funcs(t *testing.T) (decls []*ast.FuncDecl, pkgOf map[*ast.FuncDecl]string, fset *token.FileSet) {
	t.Helper()
	fset = token.NewFileSet()
	pkgOf = map[*ast.FuncDecl]string{}
	files := 0
	for _, p := range testkit.GoFiles(t, ".") {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files++
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				decls = append(decls, fd)
				pkgOf[fd] = path.Dir(p)
			}
		}
	}
	if files < 20 || len(decls) < 200 {
		t.Fatalf("read %d files, %d functions: the walk is broken", files, len(decls))
	}
	return decls, pkgOf, fset
}

// mentionsTurn reports whether the type expression x names the Turn of
// package pipeline: Turn inside it, pipeline.Turn outside.
func mentionsTurn(x ast.Expr, pkg string) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			found = found || pkg == "." && n.Name == "Turn"
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == "pipeline" && n.Sel.Name == "Turn" {
				found = true
			}
			return false
		}
		return true
	})
	return found
}

// TestOnlyTheEntryPointsTakeATurn: the turn's request, files and hooks
// are read where the turn starts, and what a stage needs of them it is
// given — no function under pipeline/ takes a Turn but the engine's
// entry points and newTurnRun.
func TestOnlyTheEntryPointsTakeATurn(t *testing.T) {
	t.Parallel()
	decls, pkgOf, fset := funcs(t)
	var got []string
	for _, fd := range decls {
		var fields []*ast.Field
		if fd.Recv != nil {
			fields = append(fields, fd.Recv.List...)
		}
		fields = append(fields, fd.Type.Params.List...)
		if slices.ContainsFunc(fields, func(f *ast.Field) bool { return mentionsTurn(f.Type, pkgOf[fd]) }) {
			got = append(got, fd.Name.Name)
			if !slices.Contains(takesTurn, fd.Name.Name) || pkgOf[fd] != "." {
				t.Errorf("%s: %s takes a Turn: only %v may — give it what it needs of the turn (turnRun's fields, a stage's own)",
					fset.Position(fd.Pos()), fd.Name.Name, takesTurn)
			}
		}
	}
	for _, name := range takesTurn {
		if !slices.Contains(got, name) {
			t.Errorf("%s takes no Turn: the test no longer sees the entry points (found %v)", name, got)
		}
	}
}

// TestScopeBuiltOnce: a turn's scope — what it may read and fetch — is
// built in one place, called from one place: newTurnRun, once per turn.
// Every stage is handed that one scope; none builds its own from the
// turn.
func TestScopeBuiltOnce(t *testing.T) {
	t.Parallel()
	decls, _, fset := funcs(t)
	calls := func(match func(*ast.CallExpr) bool) (in []string, where []string) {
		for _, fd := range decls {
			if fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && match(c) {
					in = append(in, fd.Name.Name)
					where = append(where, fset.Position(c.Pos()).String())
				}
				return true
			})
		}
		return in, where
	}
	builders, where := calls(func(c *ast.CallExpr) bool {
		sel, ok := c.Fun.(*ast.SelectorExpr)
		id, isID := func() (*ast.Ident, bool) {
			if !ok {
				return nil, false
			}
			i, ok := sel.X.(*ast.Ident)
			return i, ok
		}()
		return isID && id.Name == "scope" && sel.Sel.Name == "New"
	})
	if len(builders) != 1 {
		t.Fatalf("scope.New is called in %d places under pipeline/ (%v), want 1", len(builders), where)
	}
	builder := builders[0]
	if builder == "newTurnRun" {
		return
	}
	callers, where := calls(func(c *ast.CallExpr) bool {
		switch f := c.Fun.(type) {
		case *ast.Ident:
			return f.Name == builder
		case *ast.SelectorExpr:
			return f.Sel.Name == builder
		}
		return false
	})
	if len(callers) != 1 || callers[0] != "newTurnRun" {
		t.Errorf("%s, which builds a turn's scope, is called from %v (%v): want once, from newTurnRun", builder, callers, where)
	}
}
