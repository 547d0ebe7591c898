package skills_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/skills"
)

// TestWhoami: the Hub says whom a token belongs to; a token it refuses, no
// token, and a Hub that does not answer each get an error that names the
// fix and classifies it.
func TestWhoami(t *testing.T) {
	t.Parallel()
	srv := fakehf.New(t)
	srv.RequireToken("hf_good")
	ctx := context.Background()
	acct, err := (&skills.Hub{BaseURL: srv.Root, Token: "hf_good"}).Whoami(ctx)
	if err != nil || acct.Name != "chorus-tester" || acct.Role != "read" || acct.TokenName != "chorus" {
		t.Fatalf("good token: %+v, %v", acct, err)
	}
	for _, c := range []struct {
		token, fix string
		is         error
	}{
		{"hf_bad", "make a new one at https://huggingface.co/settings/tokens", skills.ErrHubUnauthorized},
		{"", "set huggingface.token or HF_TOKEN", skills.ErrHubUnauthorized},
	} {
		_, err := (&skills.Hub{BaseURL: srv.Root, Token: c.token}).Whoami(ctx)
		if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.fix) {
			t.Errorf("token %q: %v", c.token, err)
		}
	}
	srv.Close()
	if _, err := (&skills.Hub{BaseURL: srv.Root, Token: "hf_good"}).Whoami(ctx); !errors.Is(err, skills.ErrHubUnreachable) || !strings.Contains(err.Error(), "huggingface.hub_url") {
		t.Errorf("a Hub that is down: %v", err)
	}
}
