package cli

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakeollama"
)

// BenchmarkRunPlanOnly times `chorus run --plan-only` as a process — start,
// configuration, the Ollama checks, one planning call and the plan printed
// — against a controller that answers at once, so what is left is Chorus's
// own overhead: what a user or a script waits for before any model works.
func BenchmarkRunPlanOnly(b *testing.B) {
	bin := chorusBinary(b)
	srv := fakeollama.New(b)
	srv.AddModel(fakeollama.Model{Name: "ctl", ParameterSize: "8B"})
	srv.OnChat(func(*api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: `{"tasks": []}`} })
	env := append(os.Environ(), "OLLAMA_HOST="+srv.URL, "CHORUS_CONTROLLER_MODEL=ctl",
		"XDG_CONFIG_HOME="+b.TempDir(), "XDG_CACHE_HOME="+b.TempDir(), "XDG_DATA_HOME="+b.TempDir(),
		"XDG_STATE_HOME="+b.TempDir(), "HF_TOKEN=", "HF_HOME="+b.TempDir(), "CHORUS_COMMAND_ENABLED=false")
	run := func() {
		cmd := exec.Command(bin, "run", "--plan-only", "hello there")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("chorus run: %v\n%s", err, out)
		}
	}
	run() // warm the file cache
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		run()
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/run")
}
