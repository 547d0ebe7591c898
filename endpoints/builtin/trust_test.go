package builtin

import (
	"errors"
	"strings"
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/scope"
)

// TestBuiltinReadsOnlyGivenFiles: the image tools decode only files handed
// over in req.Files. An image or a mask named only in Args — a system
// file, a key under ~, a path an expert wrote — is refused, naming the
// argument, and nothing of it is read.
func TestBuiltinReadsOnlyGivenFiles(t *testing.T) {
	dir := t.TempDir()
	good := testkit.WriteImage(t, dir, "good.png", testkit.GradientImage(32, 24), "png")
	secret := testkit.WriteImage(t, dir, "secret.png", testkit.GradientImage(8, 8), "png")
	ep := New()
	for _, c := range []struct {
		model, arg string
		args       map[string]string
	}{
		{ModelCanny, "image", map[string]string{"image": "/etc/passwd"}},
		{ModelResize, "image", map[string]string{"image": "~/.ssh/id_rsa", "text": "50%"}},
		{ModelCrop, "image", map[string]string{"image": "../../.ssh/id_rsa", "box": "1,1,4,4"}},
		{ModelMaskOverlay, "mask", map[string]string{"image": good, "mask": secret}},
	} {
		req := endpoints.Request{Model: c.model, Args: c.args}
		if c.arg == "mask" {
			// Only the image is granted.
			req = endpointstest.WithFiles(t, endpoints.Request{Model: c.model, Args: map[string]string{"image": good}})
			req.Args = c.args
		}
		_, err := ep.Infer(t.Context(), req)
		if !errors.Is(err, endpoints.ErrBadInput) || !errors.Is(err, scope.ErrDenied) {
			t.Errorf("%s %v: err = %v, want a refusal", c.model, c.args, err)
			continue
		}
		if !strings.Contains(err.Error(), "argument "+c.arg) || !strings.Contains(err.Error(), c.args[c.arg]) {
			t.Errorf("%s: err = %q, want it to name argument %s and its path", c.model, err, c.arg)
		}
	}
}
