package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

// TestMinimalOllamaServer runs a turn against a server that implements only
// /api/tags and /api/chat, as a hand-written Ollama stand-in might: the
// controller must not declare it down or the model unpulled because the
// informational routes (/api/version, /api/show) are missing.
func TestMinimalOllamaServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/tags":
			fmt.Fprint(w, `{"models":[{"name":"mini:latest","model":"mini:latest","size":1}]}`)
		case "/api/chat":
			var req struct {
				Format json.RawMessage `json:"format"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			w.Header().Set("Content-Type", "application/x-ndjson")
			content := "Hello from a minimal server."
			if len(req.Format) > 0 {
				content = `{"tasks": []}`
			}
			for _, part := range []string{content[:5], content[5:]} {
				b, _ := json.Marshal(map[string]any{"model": "mini", "message": map[string]string{"role": "assistant", "content": part}, "done": false})
				fmt.Fprintf(w, "%s\n", b)
			}
			fmt.Fprint(w, `{"model":"mini","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":7,"eval_duration":1000000}`+"\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctl, err := controller.New(srv.URL, "mini", controller.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if st := ctl.Check(context.Background()); st.Err != nil || !st.Reachable || !st.Pulled {
		t.Fatalf("status = %+v", st)
	}
	if st := ctl.WithModel("other").Check(context.Background()); st.Err == nil || !st.Reachable {
		t.Fatalf("a model the list lacks must be reported as not pulled: %+v", st)
	}
	cat, _ := skills.Embedded()
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal), pipeline.Options{OutputDir: t.TempDir()})
	rep, err := eng.Run(context.Background(), pipeline.Turn{Request: "hi"}, nil)
	if err != nil || rep.Answer != "Hello from a minimal server." {
		t.Fatalf("answer %q, err %v", rep.Answer, err)
	}
}
