package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

// maxFuncLines bounds a non-test function, from its func keyword to its
// closing brace: past it a function does several things, and its steps
// want names of their own. internal/ (test support) is exempt.
const maxFuncLines = 100

// maxEngineParams bounds a pipeline Engine method's parameters: the state
// of a turn travels as one value (pipeline's turnRun), not as a list.
const maxEngineParams = 5

// TestFunctionSizes fails when a non-test function outside internal/ is
// longer than maxFuncLines, or a pipeline Engine method takes more than
// maxEngineParams parameters.
func TestFunctionSizes(t *testing.T) {
	fset := token.NewFileSet()
	funcs := 0
	for _, p := range testkit.GoFiles(t, ".") {
		if strings.HasSuffix(p, "_test.go") || strings.HasPrefix(p, "internal/") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			funcs++
			name := fd.Name.Name
			recv := receiver(fd)
			if recv != "" {
				name = recv + "." + name
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s is %d lines, over %d: give its steps functions of their own", p, name, n, maxFuncLines)
			}
			if recv == "Engine" && path.Dir(p) == "pipeline" {
				if n := fd.Type.Params.NumFields(); n > maxEngineParams {
					t.Errorf("%s: %s takes %d parameters, over %d: put the turn's state on the turnRun (pipeline/turnrun.go)", p, name, n, maxEngineParams)
				}
			}
		}
	}
	if funcs < 1000 {
		t.Fatalf("found only %d functions: the walk is broken", funcs)
	}
}

// receiver is the name of fd's receiver type, "" for a function.
func receiver(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return ""
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
