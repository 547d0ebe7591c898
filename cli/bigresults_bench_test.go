package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/mcptest"
	"github.com/chorusai/chorus/internal/testkit"
)

// BenchmarkBigResults measures what big tool results cost one turn of the
// chorus binary: a plan of six calls to an MCP tool (this test binary's
// fake) that each return 30 MB of text, and a summary of the first that
// the controller writes itself, run with `chorus run --json`. It
// reports the process's peak RSS, the size of the session it saved, the
// largest prompt any controller call sent, and what went to stdout.
// CHORUS_BENCH_BINARY measures another build (an earlier commit's, for the
// figures before a change); without it, this tree's is built.
//
//	go test ./cli -run '^$' -bench BigResults -benchtime 1x -count 3
func BenchmarkBigResults(b *testing.B) {
	const tasks, size = 6, 30_000_000
	bin := os.Getenv("CHORUS_BENCH_BINARY")
	if bin == "" {
		bin = chorusBinary(b)
	}
	var mu sync.Mutex
	maxPrompt := 0
	ol := fakeollama.New(b)
	ol.ForgetRequests() // the fake would keep every prompt
	ol.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	ol.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
		}
		mu.Lock()
		maxPrompt = max(maxPrompt, n)
		mu.Unlock()
		if stageOf(req) == "plan" {
			var ts []string
			for i := 1; i <= tasks; i++ {
				ts = append(ts, fmt.Sprintf(`{"task":"fake.big","id":%d,"dep":[],"args":{}}`, i))
			}
			ts = append(ts, fmt.Sprintf(`{"task":"summarization","id":%d,"dep":[1],"args":{"text":"<resource>-1"}}`, tasks+1))
			return fakeollama.Reply{Content: `{"tasks":[` + strings.Join(ts, ",") + `]}`}
		}
		return fakeollama.Reply{Content: "The pages are in."}
	})
	var peakRSS, session, stdout float64
	for range b.N {
		home := b.TempDir()
		dirs := map[string]string{}
		for _, d := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "HF_HOME"} {
			dirs[d] = filepath.Join(home, d)
		}
		cfgDir := filepath.Join(dirs["XDG_CONFIG_HOME"], "chorus")
		if err := os.MkdirAll(cfgDir, 0o700); err != nil {
			b.Fatal(err)
		}
		cfg := fmt.Sprintf("mcp:\n  - name: fake\n    command: %s\n    env: %s\n    trust: true\n", os.Args[0], mcptest.EnvYAML("serve", fmt.Sprintf("%s: \"%d\"", mcptest.BigEnv, size)))
		if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte(cfg), 0o600); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "run", "--json", "--out", filepath.Join(home, "out"), "fetch the six pages")
		cmd.Env = append(os.Environ(), "OLLAMA_HOST="+ol.URL, "CHORUS_CONTROLLER_MODEL=ctl", "CHORUS_INFERENCE_MODE=local",
			"CHORUS_OLLAMA_EXPERTS=false", "CHORUS_COMMAND_ENABLED=false", "HF_TOKEN=")
		for k, v := range dirs {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			b.Fatalf("chorus run: %v\n%s", err, errb.String())
		}
		rss, err := testkit.PeakRSSOf(cmd.ProcessState)
		if err != nil {
			b.Skipf("no peak RSS here: %v", err)
		}
		peakRSS = max(peakRSS, float64(rss)/(1<<20))
		stdout = float64(out.Len()) / 1e6
		files, _ := filepath.Glob(filepath.Join(dirs["XDG_DATA_HOME"], "chorus", "sessions", "*.json"))
		if len(files) != 1 {
			b.Fatalf("%d session files", len(files))
		}
		st, err := os.Stat(files[0])
		if err != nil {
			b.Fatal(err)
		}
		session = float64(st.Size()) / 1e6
	}
	b.ReportMetric(peakRSS, "MB-peak-rss")
	b.ReportMetric(session, "MB-session")
	b.ReportMetric(float64(maxPrompt)/1e3, "KB-max-prompt")
	b.ReportMetric(stdout, "MB-stdout")
}
