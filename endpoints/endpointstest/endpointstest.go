// Package endpointstest is for tests of endpoints: it builds requests the
// way the executor does, with the media arguments handed over as files
// that passed the trust rule (package scope).
package endpointstest

import (
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/scope"
)

// MediaArgs are the argument names that carry files in the skill catalog:
// the media modalities, and mask-overlay's mask.
var MediaArgs = []string{"image", "audio", "video", "mask"}

// WithFiles returns req with Files holding each media argument that names
// an existing file, granted as if the user had attached it. An argument
// that names no file (a missing path, a URL) is left out, so the endpoint
// meets it as it would a path the turn may not read. Args is not changed.
func WithFiles(t testing.TB, req endpoints.Request) endpoints.Request {
	t.Helper()
	s := scope.New(scope.Options{})
	files := map[string]scope.File{}
	for _, name := range MediaArgs {
		p, ok := req.Args[name]
		if !ok || p == "" {
			continue
		}
		s.AllowFile(p, scope.Attached)
		if f, err := s.Check(p); err == nil {
			files[name] = f
		}
	}
	req.Files = files
	return req
}

// Request is WithFiles for a request of task on model with args.
func Request(t testing.TB, task, model string, args map[string]string) endpoints.Request {
	t.Helper()
	return WithFiles(t, endpoints.Request{Task: task, Model: model, Args: args})
}
