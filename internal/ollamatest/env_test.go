package ollamatest

import (
	"slices"
	"strings"
	"testing"
)

// TestServerEnvHoldsNoSecrets: the ollama server a test starts gets the
// variables it runs with (PATH, the locale, the GPU's), its own settings
// over the developer's, and none of the developer's tokens and keys.
func TestServerEnvHoldsNoSecrets(t *testing.T) {
	t.Parallel()
	own := []string{
		"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMPDIR=/tmp/x", "LD_LIBRARY_PATH=/opt/cuda/lib", "CUDA_VISIBLE_DEVICES=0",
		"HOME=/home/dev", "OLLAMA_HOST=0.0.0.0:11434", "OLLAMA_DEBUG=1",
		"HF_TOKEN=hf_secret", "HUGGING_FACE_HUB_TOKEN=hf_secret2", "OPENAI_API_KEY=sk-secret", "CHORUS_OPENAI_KEY=sk-chorus",
		"CHORUS_HUGGINGFACE_TOKEN=hf_chorus", "AWS_SECRET_ACCESS_KEY=aws", "GITHUB_TOKEN=ghp",
	}
	env := serverEnv(own, "127.0.0.1:5000", "/tmp/srv", 4)
	for _, kv := range env {
		if strings.Contains(kv, "secret") || strings.Contains(kv, "sk-") || strings.Contains(kv, "hf_") || strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "GITHUB_") {
			t.Errorf("the server's environment holds %q", kv)
		}
	}
	for _, want := range []string{"PATH=/usr/bin", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TMPDIR=/tmp/x", "LD_LIBRARY_PATH=/opt/cuda/lib", "CUDA_VISIBLE_DEVICES=0",
		"OLLAMA_DEBUG=1", "OLLAMA_HOST=127.0.0.1:5000", "OLLAMA_MODELS=/tmp/srv/models", "HOME=/tmp/srv", "OLLAMA_NUM_PARALLEL=4"} {
		if !slices.Contains(env, want) {
			t.Errorf("the server's environment lacks %q: %q", want, env)
		}
	}
	for _, gone := range []string{"OLLAMA_HOST=0.0.0.0:11434", "HOME=/home/dev"} {
		if slices.Contains(env, gone) {
			t.Errorf("the developer's %q is left beside the server's own", gone)
		}
	}
}
