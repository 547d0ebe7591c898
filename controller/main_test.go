package controller_test

import (
	"os"
	"testing"

	"github.com/chorusai/chorus/internal/ollamatest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	ollamatest.StopShared() // the real Ollama the tests share, if one started
	os.Exit(code)
}
