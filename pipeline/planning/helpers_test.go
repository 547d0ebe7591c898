package planning

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/scope"
	"github.com/chorusai/chorus/skills"
)

// turn is what a test's turn gives its planner, as pipeline.Turn gives
// it: the request, the files attached, the chat log, what the user gave
// in the chat's earlier turns.
type turn struct {
	Request     string
	Attachments []string
	History     []flow.Message
	Earlier     []given
}

// given is what the user gave in an earlier turn of the chat
// (pipeline.Given).
type given struct {
	Request     string
	Attachments []string
}

// scope is what the turn may read, granted as the engine grants it
// (pipeline's turnScope): the attachments and the paths typed, this turn
// and in the chat's earlier ones. A chat log read from a session grants
// nothing by itself (the files Chorus wrote in its output folder aside,
// which these tests do not use).
func (t turn) scope() *scope.Scope {
	sc := scope.New(scope.Options{Outputs: os.TempDir()})
	for _, a := range t.Attachments {
		_ = sc.Allow(a, scope.Attached)
	}
	sc.AllowTyped(t.Request)
	for _, g := range t.Earlier {
		for _, a := range g.Attachments {
			_ = sc.Allow(a, scope.ChatLog)
		}
		sc.AllowTyped(g.Request)
	}
	return sc
}

// tester plans on the embedded catalog, at most max tasks a plan.
type tester struct {
	cat *skills.Catalog
	max int
}

func testPlanner(t testing.TB) *tester {
	t.Helper()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return &tester{cat: cat, max: 6}
}

// planner is the planner of turn t.
func (e *tester) planner(t turn) *Planner {
	return &Planner{Catalog: e.cat, Scope: t.scope(), MaxTasks: e.max, Request: t.Request, Attachments: t.Attachments, History: t.History}
}

// validate validates tasks as a plan of turn t.
func (e *tester) validate(tasks []flow.Task, cons flow.Constraints, t turn, notes []string) flow.Plan {
	return e.planner(t).Validate(tasks, cons, notes)
}

// touch creates a file with the given name and returns its absolute path.
func touch(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// typedTurn is a turn whose request names the given files, as a user who
// typed their paths: the plan may use them.
func typedTurn(paths ...string) turn {
	return turn{Request: "use " + strings.Join(paths, " ")}
}

func ids(p flow.Plan) []int {
	var out []int
	for _, t := range p.Tasks {
		out = append(out, t.ID)
	}
	return out
}

func hasNote(p flow.Plan, sub string) bool {
	return slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, sub) })
}
