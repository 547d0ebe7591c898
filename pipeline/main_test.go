package pipeline_test

import (
	"os"
	"testing"

	"github.com/chorusai/chorus/internal/ollamatest"
)

// TestMain stops the one real Ollama the package's tests share
// (ollamatest.Shared) once they ran.
func TestMain(m *testing.M) {
	code := m.Run()
	ollamatest.StopShared()
	os.Exit(code)
}
