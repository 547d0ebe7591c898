package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/mcptest"
)

// TestRunMCPMemoryGraph: the real knowledge-graph server
// (@modelcontextprotocol/server-memory, stdio) end to end through
// `chorus run`, a fake controller planning the calls. One turn creates two
// entities and a relation between them (tools that change things: allowed
// with --allow-tool) and reads the graph back after them (read_graph, dep
// on both); a second run — a new server process over the same
// MEMORY_FILE_PATH — finds one of them by a word of its observations.
// The objects and arrays the plan writes reach the tools as JSON, and
// what the tools answer reaches the answer stage.
func TestRunMCPMemoryGraph(t *testing.T) {
	t.Parallel()
	node, script := mcptest.Memory(t)
	plans := []string{
		`{"tasks":[` +
			`{"task":"memory.create_entities","id":1,"dep":[],"args":{"entities":[` +
			`{"name":"Ada Lovelace","entityType":"person","observations":["wrote the first published program"]},` +
			`{"name":"Analytical Engine","entityType":"machine","observations":["designed by Charles Babbage"]}]}},` +
			`{"task":"memory.create_relations","id":2,"dep":[1],"args":{"relations":[{"from":"Ada Lovelace","to":"Analytical Engine","relationType":"programmed"}]}},` +
			`{"task":"memory.read_graph","id":3,"dep":[2],"args":{}}]}`,
		`{"tasks":[{"task":"memory.search_nodes","id":1,"dep":[],"args":{"query":"Babbage"}}]}`,
	}
	e := scriptedEnv(t, "The graph holds what you asked.", plans...)
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := fmt.Sprintf("mcp:\n  - name: memory\n    command: %s\n    args: [%q]\n    env: {MEMORY_FILE_PATH: %q}\n    trust: true\n", node, script, memory)
	e.writeUserConfig(cfg)

	stdout, stderr, code := e.run("run", "--json", "--allow-tool", "memory.create_entities", "--allow-tool", "memory.create_relations",
		"--out", e.out, "remember that Ada Lovelace programmed the Analytical Engine, then show me the graph")
	if code != 0 {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	ends := eventsOf(t, stdout, "task_end")
	if len(ends) != 3 {
		t.Fatalf("task_end %v\nstdout %s\nstderr %s", ends, stdout, stderr)
	}
	for _, end := range ends {
		if end["status"] != "ok" || end["endpoint"] != "mcp" {
			t.Fatalf("task_end %v\nstderr %s", end, stderr)
		}
	}
	var graph struct {
		Entities []struct {
			Name         string   `json:"name"`
			EntityType   string   `json:"entityType"`
			Observations []string `json:"observations"`
		} `json:"entities"`
		Relations []struct {
			From, To, RelationType string
		} `json:"relations"`
	}
	read := ends[2]
	if read["model"] != "memory.read_graph" {
		t.Fatalf("the third task is %v", read["model"])
	}
	if err := json.Unmarshal([]byte(graphText(t, read)), &graph); err != nil {
		t.Fatalf("read_graph answered %v: %v", read, err)
	}
	if len(graph.Entities) != 2 || graph.Entities[0].Name != "Ada Lovelace" || graph.Entities[1].EntityType != "machine" ||
		len(graph.Entities[0].Observations) != 1 || graph.Entities[0].Observations[0] != "wrote the first published program" ||
		len(graph.Relations) != 1 || graph.Relations[0].RelationType != "programmed" || graph.Relations[0].To != "Analytical Engine" {
		t.Fatalf("the graph read back: %+v", graph)
	}
	if saved, err := os.ReadFile(memory); err != nil || !strings.Contains(string(saved), `"Ada Lovelace"`) {
		t.Fatalf("the server kept the graph in %s: %q %v", memory, saved, err)
	}
	answerPrompt := ""
	for _, req := range e.ollama.ChatRequests() {
		if m := req.Messages[len(req.Messages)-1].Content; strings.HasPrefix(m, "STAGE: ANSWER") {
			answerPrompt = m
		}
	}
	if !strings.Contains(answerPrompt, "Analytical Engine") || !strings.Contains(answerPrompt, "programmed") {
		t.Fatalf("the graph did not reach the answer stage:\n%s", answerPrompt)
	}

	// A new run, a new server over the same file: the graph is still there.
	stdout, stderr, code = e.run("run", "--json", "--out", e.out, "what do you remember about Babbage?")
	if code != 0 {
		t.Fatalf("second run: exit %d stderr %s", code, stderr)
	}
	found := eventsOf(t, stdout, "task_end")
	if len(found) != 1 || found[0]["status"] != "ok" || !strings.Contains(graphText(t, found[0]), `"Analytical Engine"`) || strings.Contains(graphText(t, found[0]), `"Ada Lovelace","entityType"`) {
		t.Fatalf("search_nodes Babbage: %v", found)
	}
}

// graphText is what a memory tool answered: its text result (the graph as
// JSON), or its structured data.
func graphText(t *testing.T, end map[string]any) string {
	t.Helper()
	if s, _ := end["result"].(string); s != "" {
		return s
	}
	b, err := json.Marshal(end["data"])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
