package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The package map, as docs/architecture.md draws it: each package of
// Chorus and the packages of Chorus it may import. Imports run one way —
// main → ui → sessions → pipeline → endpoints → skills — with the small
// libraries (text, scope, imaging) at the bottom importing nothing of
// Chorus but text (scope redacts the URLs it names with it). A package not listed here fails the test until its place is
// decided. "x/*" stands for every package under x.
var importRules = map[string][]string{
	"text":    {},
	"imaging": {},
	// httpwire reads Retry-After and bounded bodies for every HTTP client
	// of Chorus; scope's downloads too.
	"httpwire": {},
	"scope":    {"httpwire", "text"},
	"skills":   {"httpwire", "scope", "text"},

	// The openai backend's client carries the key only to its origin.
	"controller": {"scope", "text"},
	"endpoints":  {"httpwire", "scope", "skills", "text"},
	// Each endpoint kind is a room of its own: it may use the contract,
	// the wire format, the Hugging Face client (the local hf protocol
	// reuses it), the image library, the trust rule.
	// endpoints/chattask is the chat-model task table ollama and openai share.
	"endpoints/*": {"endpoints", "endpoints/chattask", "endpoints/hfapi", "endpoints/huggingface", "httpwire", "imaging", "scope", "skills", "text"},
	// config validates the openai list against the tasks that kind serves.
	"config":   {"endpoints", "endpoints/openai", "skills", "text"},
	"pipeline": {"controller", "endpoints", "imaging", "scope", "skills", "text"},
	// Event streams for the tests of what shows a turn (ui, ui/turnview).
	"pipeline/pipelinetest": {"pipeline"},
	"sessions":              {"config", "pipeline", "skills", "text"},
	// The chat service: sessions opened and saved, turns run and recorded,
	// between every front end and the pipeline.
	"conversation": {"pipeline", "recording", "sessions"},

	"ui/theme":    {},
	"ui/media":    {},
	"ui/chat":     {"skills", "text", "ui/media", "ui/theme"},
	"ui/prompt":   {"skills", "text", "ui/theme"},
	"ui/turnview": {"pipeline", "skills", "text", "ui/chat", "ui/theme"},
	"ui/dialog":   {"pipeline", "skills", "text", "ui/chat", "ui/theme", "ui/turnview"},
	// The TUI is a front end of the chat service: it never touches the
	// session store or a recording itself.
	"ui": {"config", "controller", "conversation", "endpoints", "pipeline", "scope", "skills", "text", "ui/*"},

	// chorus eval scores the planning stage: it drives the pipeline,
	// tells a controller that cannot be asked by its errors, and draws the
	// suite's input pictures.
	"eval": {"controller", "imaging", "pipeline"},

	// Recordings wrap the controller and the endpoints of an engine.
	"recording": {"controller", "endpoints", "pipeline", "scope", "skills"},
	// The ssh server runs the UI, one chat per connection.
	"sshd": {"config", "conversation", "pipeline", "ui"},
	// chorus mcp serve: Chorus as an MCP server, one chat of the
	// conversation service per client session. (The MCP client is an
	// endpoint kind, endpoints/mcp, under "endpoints/*".)
	"mcpserve": {"conversation", "pipeline", "skills", "text"},

	// Test support: fakes and helpers that import nothing of Chorus
	// outside internal, and that production code never imports.
	"internal/*": {"internal/*"},

	// The command line wires everything (but test support); the root
	// package is main.go, which only calls it.
	"cli": {"*"},
	"":    {"cli"},
}

// sdkImporters may import the Ollama SDK: the controller and the Ollama
// expert endpoint (and the fake Ollama, which speaks its wire format).
var sdkImporters = []string{"controller", "endpoints/ollama", "internal/fakeollama"}

// mcpImporters may import the MCP SDK: the MCP endpoint kind (Chorus as
// a client), the MCP server and the command that serves it, and the test
// servers.
var mcpImporters = []string{"endpoints/mcp", "mcpserve", "cli", "internal/mcptest"}

const module = "github.com/chorusai/chorus"

// TestImportDirection fails when a package imports against the map: the
// image library importing Chorus, a UI room importing the UI, anything but
// the controller and the Ollama endpoint importing the Ollama SDK,
// production code importing test support.
func TestImportDirection(t *testing.T) {
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(p))
		if pkg == "." {
			pkg = ""
		}
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			imports[pkg][ip] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 10 {
		t.Fatalf("found only %d packages: the walk is broken", len(imports))
	}
	for pkg, imps := range imports {
		rule, ok := ruleFor(pkg)
		if !ok {
			t.Errorf("package %q has no place in the import map (importRules in imports_test.go, and docs/architecture.md)", pkg)
			continue
		}
		for ip := range imps {
			switch {
			case strings.HasPrefix(ip, "github.com/ollama/ollama"):
				if !slices.Contains(sdkImporters, pkg) {
					t.Errorf("%s imports the Ollama SDK (%s): only the controller and endpoints/ollama may", show(pkg), ip)
				}
			case strings.HasPrefix(ip, "github.com/modelcontextprotocol/go-sdk"):
				if !slices.Contains(mcpImporters, pkg) {
					t.Errorf("%s imports the MCP SDK (%s): only endpoints/mcp, mcpserve and cli may", show(pkg), ip)
				}
			case ip == module || strings.HasPrefix(ip, module+"/"):
				to := strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
				if !allows(rule, to) {
					t.Errorf("%s imports %s, against the map (it may import %v)", show(pkg), show(to), rule)
				}
			}
		}
	}
}

// ruleFor finds the rule of pkg: its own, or that of the nearest "x/*".
func ruleFor(pkg string) ([]string, bool) {
	if r, ok := importRules[pkg]; ok {
		return r, true
	}
	for dir := pkg; dir != "." && dir != ""; dir = path.Dir(dir) {
		if r, ok := importRules[path.Dir(dir)+"/*"]; ok && path.Dir(dir) != "." {
			return r, true
		}
	}
	return nil, false
}

func allows(rule []string, to string) bool {
	for _, r := range rule {
		switch {
		case r == "*" && !strings.HasPrefix(to, "internal/"), r == to:
			return true
		case strings.HasSuffix(r, "/*") && strings.HasPrefix(to, strings.TrimSuffix(r, "*")):
			return true
		}
	}
	return false
}

func show(pkg string) string {
	if pkg == "" {
		return "the root package"
	}
	return pkg
}

// TestImportRulesCatchAViolation: the checker itself rejects what the map
// forbids.
func TestImportRulesCatchAViolation(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"imaging", "skills", false},
		{"ui/chat", "ui", false},
		{"ui/chat", "ui/theme", true},
		{"endpoints/openai", "endpoints", true},
		{"endpoints/huggingface", "pipeline", false},
		{"pipeline", "ui", false},
		{"ui", "ui/dialog", true},
		{"internal/fakehf", "pipeline", false},
		{"cli", "internal/fakehf", false},
		{"cli", "ui", true},
		{"", "ui", false},
	} {
		rule, found := ruleFor(tc.from)
		if got := found && allows(rule, tc.to); got != tc.ok {
			t.Errorf("%s → %s allowed = %v, want %v", tc.from, tc.to, got, tc.ok)
		}
	}
}
