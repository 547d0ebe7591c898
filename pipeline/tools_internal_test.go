package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	tr := e.newTurnRun(context.Background(), turn, nil)
	msgs := tr.script.With(tr.planner.Message(context.Background()))
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
