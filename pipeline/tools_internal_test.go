package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/endpoints/mcp"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/skills"
)

// manyToolsServer serves n tools over streamable HTTP with the Go SDK's
// server: a server with many tools, as Hugging Face's can be.
func manyToolsServer(t *testing.T, n int) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "many", Version: "1"}, nil)
	for i := range n {
		srv.AddTool(&sdk.Tool{Name: fmt.Sprintf("tool_number_%02d", i), Description: fmt.Sprintf("Does thing number %d to a piece of text. More words follow.", i),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}, "count": map[string]any{"type": "integer"}}, "required": []string{"text"}},
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
			})
	}
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(h.Close)
	return h.URL
}

// planningPrompt builds the planning call of the budget test's turn on
// the default catalog plus the tools of servers.
func planningPrompt(t *testing.T, mode endpoints.Mode, servers ...mcp.Server) (string, int, []*skills.Skill) {
	t.Helper()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ep := mcp.New(mcp.Options{Servers: servers})
	t.Cleanup(func() { ep.Close() })
	ep.Start(context.Background())
	for _, st := range ep.Status() {
		if st.State != "running" {
			t.Fatalf("server %s: %+v", st.Name, st)
		}
	}
	tools := ep.Skills()
	for _, s := range tools {
		cat.Put(s)
	}
	ctl, _ := controller.New("http://127.0.0.1:1", "ctl", controller.Options{Timeout: time.Second})
	router := endpoints.NewRouter(mode, builtin.New(), command.New(command.Options{}), huggingface.New(huggingface.Options{Token: "hf_x"}),
		retrieval.New(retrieval.Options{WikipediaURL: retrieval.DefaultWikipediaURL}), ep)
	e := New(ctl, cat, router, Options{ControllerTasks: true})
	turn := Turn{Request: "make /home/ann/street.png look like autumn and write an Instagram post about it",
		Attachments: []string{"/home/ann/street.png"}}
	script := e.newTranscript(context.Background(), turn)
	msgs := script.with(e.planMessage(context.Background(), turn))
	return msgs[0].Content, tokensOf(msgs), tools
}

// TestPlanningPromptBudgetWithTools: with MCP servers configured — the
// reference server's 13 tools, then 40 more — the planning call still
// stays within 1,500 tokens; every tool is named in it, in full while
// there is room, then grouped by server, then by name; the catalog's
// runnable skills are all still listed in full.
func TestPlanningPromptBudgetWithTools(t *testing.T) {
	node, script := mcptest.Everything(t)
	everything := mcp.Server{Name: "everything", Command: node, Args: []string{script, "stdio"}}
	small := mcp.Server{Name: "two", URL: manyToolsServer(t, 2)}
	many := mcp.Server{Name: "many", URL: manyToolsServer(t, 40), Index: 2}
	for _, tc := range []struct {
		name    string
		servers []mcp.Server
		full    bool
	}{
		{"two tools", []mcp.Server{small}, true},
		{"server-everything", []mcp.Server{everything}, false},
		{"everything and 40 more", []mcp.Server{everything, many}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head, n, tools := planningPrompt(t, endpoints.ModeHybrid, tc.servers...)
			t.Logf("planning prompt with %d tools: %d tokens", len(tools), n)
			if n > 1500 {
				t.Errorf("the planning prompt is %d tokens, over 1,500", n)
			}
			for _, s := range []string{"image-editing(", "social-media-post(", "text-to-image("} {
				if !strings.Contains(head, "\n- "+s) {
					t.Errorf("catalog skill %s is no longer listed", s)
				}
			}
			named := 0
			for _, s := range tools {
				if strings.Contains(head, s.Tool.Name) {
					named++
				}
			}
			if tc.full {
				if named != len(tools) || !strings.Contains(head, "\n- two.tool_number_00(text,count:integer?) → text: Does thing number 0 to a piece of text\n") {
					t.Errorf("a server with two tools is not listed in full:\n%s", head)
				}
				return
			}
			if named < 13 {
				t.Errorf("only %d of %d tools are named:\n%s", named, len(tools), head)
			}
			if !strings.Contains(head, "- everything.{") {
				t.Errorf("server-everything is not grouped:\n%s", head)
			}
		})
	}
}

// toolSkill is a tool skill with the given arguments' JSON schemas.
func toolSkill(t *testing.T, name string, props map[string]string) *skills.Skill {
	t.Helper()
	s := &skills.Skill{Name: name, Description: "A tool.", Outputs: []skills.Modality{skills.Text},
		Tool:   &skills.Tool{Server: "srv", Name: strings.TrimPrefix(name, "srv."), Params: map[string]skills.Param{}},
		Models: []skills.Model{{ID: name, Endpoints: []skills.EndpointKind{skills.EndpointMCP}}}}
	for k, js := range props {
		var sch skills.Schema
		if err := json.Unmarshal([]byte(js), &sch); err != nil {
			t.Fatal(err)
		}
		s.Args = append(s.Args, skills.Arg{Name: k, Type: skills.Text})
		s.Tool.Params[k] = skills.Param{Property: k, Schema: &sch}
	}
	return s
}

// TestValidatorConvertsToolArguments: before anything runs, a tool's
// arguments are converted to its schema — a repair is noted and written
// back into the plan, an argument that cannot be converted drops the task
// naming it, and a text argument naming a file the turn may not read
// drops the task (a stdio server could open it).
func TestValidatorConvertsToolArguments(t *testing.T) {
	cat, _ := skills.Embedded()
	cat.Put(toolSkill(t, "srv.sum", map[string]string{"a": `{"type":"number"}`, "unit": `{"type":"string","enum":["celsius","fahrenheit"]}`}))
	cat.Put(toolSkill(t, "srv.read", map[string]string{"path": `{"type":"string"}`}))
	ctl, _ := controller.New("http://127.0.0.1:1", "ctl", controller.Options{Timeout: time.Second})
	e := New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, builtin.New()), Options{})
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := e.validate([]Task{
		{ID: 1, Task: "srv.sum", Args: map[string]string{"a": "2.0", "unit": "Farenheit"}},
		{ID: 2, Task: "srv.sum", Args: map[string]string{"a": "two", "unit": "celsius"}},
		{ID: 3, Task: "srv.read", Args: map[string]string{"path": secret}},
		{ID: 4, Task: "srv.read", Args: map[string]string{"path": "notes for later"}},
	}, Constraints{}, Turn{Request: "add"}, nil)
	notes := strings.Join(plan.Notes, "\n")
	if len(plan.Tasks) != 2 || plan.Tasks[0].ID != 1 || plan.Tasks[1].ID != 4 {
		t.Fatalf("kept %+v\n%s", plan.Tasks, notes)
	}
	if a := plan.Tasks[0].Args; a["a"] != "2" || a["unit"] != "fahrenheit" {
		t.Errorf("not repaired: %v", a)
	}
	for _, want := range []string{`task 1: argument a: read "2.0" as 2`, `task 1: argument unit: read "Farenheit" as "fahrenheit"`,
		`srv.sum: argument a: "two" is not a number`, secret + " is not a file you gave this turn"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestValidatorFillsAToolsDefault: a required argument the plan leaves
// out is filled from the tool's schema default (noted, and sent, so a
// server that checks required arguments gets it); one without a default
// still drops the task, naming the argument and the type it needs.
func TestValidatorFillsAToolsDefault(t *testing.T) {
	cat, _ := skills.Embedded()
	cat.Put(toolSkill(t, "srv.run", map[string]string{"a": `{"type":"integer"}`,
		"mode": `{"type":"string","enum":["fast","slow"],"default":"fast"}`, "count": `{"type":"integer","default":3}`}))
	ctl, _ := controller.New("http://127.0.0.1:1", "ctl", controller.Options{Timeout: time.Second})
	e := New(ctl, cat, endpoints.NewRouter(endpoints.ModeHybrid, builtin.New()), Options{})
	plan := e.validate([]Task{
		{ID: 1, Task: "srv.run", Args: map[string]string{"a": "1"}},
		{ID: 2, Task: "srv.run", Args: map[string]string{"mode": "slow"}},
	}, Constraints{}, Turn{Request: "run"}, nil)
	notes := strings.Join(plan.Notes, "\n")
	if len(plan.Tasks) != 1 || plan.Tasks[0].ID != 1 {
		t.Fatalf("kept %+v\n%s", plan.Tasks, notes)
	}
	if a := plan.Tasks[0].Args; a["mode"] != "fast" || a["count"] != "3" || a["a"] != "1" {
		t.Errorf("defaults not filled: %v", a)
	}
	for _, want := range []string{`task 1: argument mode: the plan gives none; using the tool's default "fast"`,
		`task 1: argument count: the plan gives none; using the tool's default 3`,
		`srv.run needs the argument "a" (integer) and the plan gives none`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
