package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints/mcp"
)

// lockedBuffer is a log's buffer, written from the servers' goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSecretsOfServersAreNotShown: the secrets of an mcp: entry — a
// secret-looking argument (--token X, --password=X, NAME_TOKEN=X) and a
// ?token= in its URL — appear nowhere `chorus mcp list` and the log show:
// not in the status's where (mcp list, --json), not in the start's error,
// not in the log's records. The command and the URL's other parts stay.
func TestSecretsOfServersAreNotShown(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	var log lockedBuffer
	e := mcp.New(mcp.Options{
		Servers: []mcp.Server{
			// sh runs sleep and never answers the handshake: the error
			// names the command line.
			{Name: "slow", Command: "sh", Args: []string{"-c", "sleep 5", "sh", "--token", "tok-arg-1", "--password=pw-arg-2", "GITHUB_TOKEN=tok-arg-3"}},
			{Name: "web", URL: closed.URL + "/mcp?token=tok-url-4&region=eu", Transport: "streamable"},
		},
		StartTimeout: time.Second,
		Logger:       slog.New(slog.NewTextHandler(&log, nil)),
	})
	defer e.Close()
	e.Start(context.Background())
	status := e.Status()
	js, _ := json.Marshal(status)
	for _, secret := range []string{"tok-arg-1", "pw-arg-2", "tok-arg-3", "tok-url-4"} {
		for what, s := range map[string]string{"the status": string(js), "the log": log.String()} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows %s: %s", what, secret, s)
			}
		}
	}
	if len(status) != 2 || status[0].State != "failed" || !strings.Contains(status[0].Where, "sh -c sleep 5 sh --token REDACTED --password=REDACTED GITHUB_TOKEN=REDACTED") ||
		!strings.Contains(status[0].Error, "--token REDACTED") {
		t.Errorf("the stdio server: %+v", status[0])
	}
	if status[1].State != "failed" || !strings.Contains(status[1].Where, "/mcp?token=REDACTED&region=eu") || !strings.Contains(status[1].Error, "?token=REDACTED") {
		t.Errorf("the HTTP server: %+v", status[1])
	}
}
