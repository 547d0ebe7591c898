package fakeollama

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
)

// SetPullable makes name available from the fake registry: POST /api/pull
// "downloads" it with progress, after which it is listed and served as m
// (m.Name defaults to name).
func (s *Server) SetPullable(name string, m Model) {
	m.Name = cmp.Or(m.Name, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullable[key(name)] = m
}

// SetPullDelay sets the wait between pull progress reports (0 by default),
// so a test can cancel a pull in the middle.
func (s *Server) SetPullDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullDelay = d
}

// layer is one blob of a model manifest.
type layer struct {
	digest string
	size   int64
}

func blobDigest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	var req api.PullRequest
	if !bindJSON(w, r, &req) {
		return
	}
	name := cmp.Or(req.Model, req.Name) //nolint:staticcheck // SA1019: older clients still send "name"; the fake answers them as Ollama does
	if !validName(name) {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	s.mu.Lock()
	m, pullable := s.pullable[key(name)]
	existing, present := s.models[key(name)]
	delay := s.pullDelay
	s.mu.Unlock()
	cacheHit := false
	if !pullable && present {
		m, cacheHit = *existing, true
	}
	m = m.withDefaults()

	stream := req.Stream == nil || *req.Stream
	var nd *ndjson
	var latest api.ProgressResponse
	progress := func(p api.ProgressResponse) error {
		latest = p
		if stream {
			return nd.send(p)
		}
		return nil
	}
	if stream {
		nd = startNDJSON(w)
	}
	fail := func(msg string) {
		if stream {
			nd.send(map[string]string{"error": msg}) //nolint:errcheck
			return
		}
		writeError(w, http.StatusInternalServerError, msg)
	}

	err := s.pull(r.Context(), m, pullable || present, cacheHit, delay, progress)
	if err != nil {
		if r.Context().Err() == nil {
			fail(err.Error())
		}
		return
	}
	if !stream {
		writeJSON(w, http.StatusOK, latest)
	}
}

// pull plays PullModel's progress sequence and installs m when it succeeds.
func (s *Server) pull(ctx context.Context, m Model, found, cacheHit bool, delay time.Duration, progress func(api.ProgressResponse) error) error {
	step := func(p api.ProgressResponse) error {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return progress(p)
	}
	if err := step(api.ProgressResponse{Status: "pulling manifest"}); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("pull model manifest: file does not exist")
	}
	layers := []layer{
		{blobDigest(m.Digest, "model"), m.Size},
		{blobDigest(m.Digest, "template"), 1429},
		{blobDigest(m.Digest, "license"), 11357},
		{blobDigest(m.Digest, "params"), 77},
		{blobDigest(m.Digest, "config"), 487},
	}
	for _, l := range layers {
		status := fmt.Sprintf("pulling %s", l.digest[7:19])
		fractions := []int64{4}
		if !cacheHit && l.size > 1<<20 {
			fractions = []int64{0, 1, 2, 3, 4}
		}
		for _, f := range fractions {
			if err := step(api.ProgressResponse{Status: status, Digest: l.digest, Total: l.size, Completed: l.size * f / 4}); err != nil {
				return err
			}
		}
	}
	for _, st := range []string{"verifying sha256 digest", "writing manifest"} {
		if err := step(api.ProgressResponse{Status: st}); err != nil {
			return err
		}
	}
	m.ModifiedAt = time.Now().UTC()
	s.mu.Lock()
	s.models[key(m.Name)] = &m
	s.mu.Unlock()
	return progress(api.ProgressResponse{Status: "success"})
}
