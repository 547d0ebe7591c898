package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/testkit"
)

// The package map, as docs/architecture.md draws it: each package of
// Chorus and the packages of Chorus it may import. Imports run one way —
// main → cli → app, sshd, mcpserve, metrics, eval → ui → conversation →
// sessions, recording → pipeline → controller, endpoints → skills — with
// config beside and the small libraries (text, scope, imaging, httpwire,
// dirlock) at the bottom, importing nothing of Chorus but each other
// (scope reads downloads through httpwire and redacts URLs with text). A
// package not listed here fails the test until its place is decided.
// "x/*" stands for every package under x.
var importRules = map[string][]string{
	"text":    {},
	"imaging": {},
	// httpwire reads Retry-After and bounded bodies for every HTTP client
	// of Chorus; scope's downloads too.
	"httpwire": {},
	// dirlock holds a folder with flock, for the session store's saves and
	// each chorus mcp serve's folder.
	"dirlock": {},
	"scope":   {"httpwire", "text"},
	"skills":  {"httpwire", "scope", "text"},

	// The openai backend's client carries the key only to its origin.
	"controller": {"httpwire", "scope", "text"},
	// A scripted controller for tests: a Backend answering in process, at
	// its chunks' pace (httpwire.Sleep).
	"controller/controllertest": {"controller", "httpwire"},
	"endpoints":                 {"httpwire", "scope", "skills", "text"},
	// Each endpoint kind is a room of its own: it may use the contract,
	// the wire format, the Hugging Face client (the local hf protocol
	// reuses it), the image library, the trust rule.
	// endpoints/chattask is the chat-model task table ollama and openai share.
	"endpoints/*": {"endpoints", "endpoints/chattask", "endpoints/hfapi", "endpoints/huggingface", "httpwire", "imaging", "scope", "skills", "text"},
	// config reads and checks the configuration; which tasks an endpoint
	// kind serves is the kind's to say (Config.CheckOpenAITasks is given
	// it), so config imports no endpoint kind — only the contract's modes
	// and provider lists.
	"config": {"endpoints", "skills", "text"},
	// The engine runs a turn through its stages, each a package of its
	// own (pipeline/planning, selection, execution, response: stagePackages),
	// over the vocabulary they share (pipeline/flow). Only the engine
	// imports a stage (TestImportDirection); a stage imports the
	// vocabulary and the layers below, never the engine or another stage.
	"pipeline":           {"controller", "endpoints", "imaging", "pipeline/*", "scope", "skills", "text"},
	"pipeline/flow":      {"controller", "endpoints", "scope", "skills", "text"},
	"pipeline/planning":  stage,
	"pipeline/selection": stage,
	"pipeline/execution": stage,
	"pipeline/response":  stage,
	// Event streams for the tests of what shows a turn (ui, ui/turnview).
	"pipeline/pipelinetest": {"pipeline"},
	"sessions":              {"dirlock", "pipeline", "skills", "text"},
	// The chat service: sessions opened and saved, turns run and recorded,
	// between every front end and the pipeline.
	// It answers the front ends' questions about the controller and the
	// catalog, under its own names (conversation/controller.go).
	"conversation": {"controller", "pipeline", "recording", "sessions", "skills"},

	"ui/theme":    {},
	"ui/media":    {},
	"ui/chat":     {"skills", "text", "ui/media", "ui/theme"},
	"ui/prompt":   {"skills", "text", "ui/theme"},
	"ui/turnview": {"pipeline", "skills", "text", "ui/chat", "ui/theme"},
	"ui/dialog":   {"pipeline", "skills", "text", "ui/chat", "ui/theme", "ui/turnview"},
	// The TUI is a front end of the chat service: it never touches the
	// session store or a recording itself.
	// What it asks of the controller or the catalog (models, pull, the
	// server's state, hints, previews) are methods of conversation.Chat:
	// it imports neither controller nor endpoints (TestFrontEndsAskTheChat).
	"ui": {"config", "conversation", "pipeline", "scope", "skills", "text", "ui/*"},

	// chorus eval scores the planning stage: it drives the pipeline,
	// tells a controller that cannot be asked by its errors, and draws the
	// suite's input pictures; its failure cases run whole turns on
	// scripted experts (an endpoint of every kind, the catalog's skills).
	"eval": {"controller", "endpoints", "imaging", "pipeline", "skills"},

	// Recordings wrap the controller and the endpoints of an engine, and
	// replay at the recorded pace with httpwire.Sleep.
	"recording": {"controller", "endpoints", "httpwire", "pipeline", "scope", "skills"},
	// The ssh server runs the UI, one chat per connection.
	"sshd": {"config", "conversation", "pipeline", "ui"},
	// chorus mcp serve: Chorus as an MCP server, one chat of the
	// conversation service per client session. (The MCP client is an
	// endpoint kind, endpoints/mcp, under "endpoints/*".)
	"mcpserve": {"conversation", "dirlock", "pipeline", "skills", "text"},
	// A server's metrics and health for its operator: the chat service's
	// observer, the controller's queue stats, the engine's readiness.
	"metrics": {"controller", "conversation", "pipeline"},

	// Test support: fakes and helpers that import nothing of Chorus
	// outside internal, and that production code never imports.
	"internal/*": {"internal/*"},

	// One running Chorus: the engine built from the configuration (or a
	// recording), the chat service over it, its lifecycle. Every front
	// end starts from it; no front end builds an engine itself.
	"app": {"config", "controller", "conversation", "endpoints", "endpoints/*", "pipeline", "recording", "skills", "text"},

	// chorus doctor's checks: the controller, the Hub, the command
	// endpoint's programs and the MCP servers, each as a chat would reach
	// them (app builds the controller and the servers' list).
	"doctor": {"app", "config", "controller", "endpoints/*", "httpwire", "scope", "skills", "text"},

	// The command line wires everything (but test support); the root
	// package is main.go, which only calls it.
	"cli": {"*"},
	"":    {"cli"},
}

// stage is what a stage of the pipeline may import: the vocabulary the
// stages share and the layers below — never the engine, never another
// stage.
var stage = []string{"controller", "endpoints", "imaging", "pipeline/flow", "scope", "skills", "text"}

// stagePackages are the stages of a turn: only the engine (package
// pipeline) imports them — a front end, the chat service or a tool goes
// through the engine, so the stages can change behind it.
var stagePackages = []string{"pipeline/planning", "pipeline/selection", "pipeline/execution", "pipeline/response"}

// sdkImporters may import the Ollama SDK: the controller and the Ollama
// expert endpoint (and the fake Ollama, which speaks its wire format).
var sdkImporters = []string{"controller", "endpoints/ollama", "internal/fakeollama"}

// mcpImporters may import the MCP SDK: the MCP endpoint kind (Chorus as
// a client), the MCP server and the command that serves it, and the test
// servers.
var mcpImporters = []string{"endpoints/mcp", "mcpserve", "cli", "internal/mcptest"}

// promImporters may import the Prometheus client: metrics holds every
// metric in one registry value, and internal/scrape reads them back in
// tests — no package keeps counters of its own.
var promImporters = []string{"metrics", "internal/scrape"}

const module = "github.com/chorusai/chorus"

// TestImportDirection fails when a package imports against the map: the
// image library importing Chorus, a UI room importing the UI, anything but
// the controller and the Ollama endpoint importing the Ollama SDK,
// production code importing test support.
func TestImportDirection(t *testing.T) {
	imports := map[string]map[string]bool{}
	for _, p := range testkit.GoFiles(t, ".") {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		pkg := path.Dir(p)
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
			case strings.HasPrefix(ip, "github.com/prometheus/"):
				if !slices.Contains(promImporters, pkg) {
					t.Errorf("%s imports the Prometheus client (%s): only metrics may — tell it what happened instead", show(pkg), ip)
				}
			case ip == module || strings.HasPrefix(ip, module+"/"):
				to := strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
				if slices.Contains(stagePackages, to) && pkg != "pipeline" {
					t.Errorf("%s imports the stage %s: only the engine (pipeline) may — ask the engine instead", show(pkg), to)
					continue
				}
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
		{"pipeline", "pipeline/planning", true},
		{"pipeline/planning", "pipeline/flow", true},
		{"pipeline/planning", "pipeline/selection", false},
		{"pipeline/response", "pipeline", false},
		{"pipeline/flow", "pipeline/execution", false},
		{"ui", "pipeline/response", false},
	} {
		rule, found := ruleFor(tc.from)
		if got := found && allows(rule, tc.to); got != tc.ok {
			t.Errorf("%s → %s allowed = %v, want %v", tc.from, tc.to, got, tc.ok)
		}
	}
}

// builders are the calls that make an engine or a chat service, with the
// packages that may make them: every front end starts from one app.App
// (the TUI, chorus run, serve --ssh, mcp serve, replays), so none can
// drift in how it starts. recording wraps an engine to record or replay it.
var builders = map[string][]string{
	module + "/conversation.New": {"app"},
	module + "/pipeline.New":     {"app", "recording"},
}

// TestOnlyAppBuildsTheEngine fails when production code outside the
// allowed packages calls conversation.New or pipeline.New.
func TestOnlyAppBuildsTheEngine(t *testing.T) {
	found := 0
	for _, p := range testkit.GoFiles(t, ".") {
		if strings.HasSuffix(p, "_test.go") || strings.HasPrefix(p, "internal/") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]string{} // local name → import path
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			name := path.Base(ip)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = ip
		}
		pkg := path.Dir(p)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || names[x.Name] == "" {
				return true
			}
			call := names[x.Name] + "." + sel.Sel.Name
			if allowed, ok := builders[call]; ok {
				found++
				if !slices.Contains(allowed, pkg) {
					t.Errorf("%s calls %s: only %v may — take the engine and the service from app.App", p, strings.TrimPrefix(call, module+"/"), allowed)
				}
			}
			return true
		})
	}
	if found < 2 {
		t.Fatalf("found %d calls of the builders: the walk is broken", found)
	}
}

// frontEnds are the packages that show chats: they talk to the chat
// service (conversation) and never hold the engine or the controller.
var frontEnds = []string{"ui", "ui/*", "sshd", "mcpserve"}

// TestFrontEndsAskTheChat fails when a front end calls Engine() or
// Controller() — reaching around the chat service into the pipeline: what
// it needs of them is a method of conversation.Chat or Service.
func TestFrontEndsAskTheChat(t *testing.T) {
	files := 0
	for _, p := range testkit.GoFiles(t, ".") {
		pkg := path.Dir(p)
		if strings.HasSuffix(p, "_test.go") || !allows(frontEnds, pkg) {
			continue
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 0 {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Engine" || sel.Sel.Name == "Controller") {
					t.Errorf("%s: %s calls %s(): ask the chat service (conversation.Chat) instead", fset.Position(call.Pos()), pkg, sel.Sel.Name)
				}
			}
			return true
		})
	}
	if files < 20 {
		t.Fatalf("read only %d files of the front ends: the walk is broken", files)
	}
}
