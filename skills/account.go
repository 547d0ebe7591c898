package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/chorusai/chorus/httpwire"
	"github.com/chorusai/chorus/text"
)

// Account is whom a Hugging Face token belongs to, as the Hub's whoami-v2
// says: chorus doctor shows it, proving the token works.
type Account struct {
	// Name is the user (or organisation) the token belongs to.
	Name string
	// TokenName is the token's display name, and Role its access: "read",
	// "write" or "fineGrained".
	TokenName, Role string
}

// accountError is a failed whoami: its message says what to do, and it
// unwraps to the sentinel that classifies it (ErrHubUnauthorized, …).
type accountError struct {
	msg string
	err error
}

func (e *accountError) Error() string { return e.msg }
func (e *accountError) Unwrap() error { return e.err }

// Whoami asks the Hub (GET {BaseURL}/api/whoami-v2) whom h.Token belongs
// to. A missing or refused token is ErrHubUnauthorized, a Hub that does
// not answer ErrHubUnreachable, each with the fix in its message.
func (h *Hub) Whoami(ctx context.Context) (Account, error) {
	where := text.RedactURL(h.base())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.base()+"/api/whoami-v2", nil)
	if err != nil {
		return Account{}, fmt.Errorf("the Hugging Face Hub URL %s: %w — fix huggingface.hub_url", where, err)
	}
	req.Header.Set("Accept", "application/json")
	if h.Token != "" {
		req.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := h.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Account{}, ctx.Err()
		}
		return Account{}, &accountError{err: errors.Join(ErrHubUnreachable, err),
			msg: fmt.Sprintf("the Hugging Face Hub at %s does not answer (%s) — check the network, or huggingface.hub_url", where, transportReason(err))}
	}
	defer resp.Body.Close()
	body, err := httpwire.ReadBody(resp, 1<<20)
	switch code := resp.StatusCode; {
	case err != nil:
		return Account{}, &accountError{err: errors.Join(ErrHubUnreachable, err), msg: fmt.Sprintf("the Hugging Face Hub at %s: the answer was cut off (%v)", where, err)}
	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && h.Token == "":
		return Account{}, &accountError{err: ErrHubUnauthorized,
			msg: "no Hugging Face token — set huggingface.token or HF_TOKEN (create one at https://huggingface.co/settings/tokens)"}
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return Account{}, &accountError{err: ErrHubUnauthorized,
			msg: fmt.Sprintf("the Hugging Face Hub refused the token (HTTP %d: %s) — it is wrong, expired or revoked: make a new one at https://huggingface.co/settings/tokens and set it in HF_TOKEN or huggingface.token", code, hubMessage(body))}
	case code != http.StatusOK:
		return Account{}, &accountError{err: ErrHubUnavailable,
			msg: fmt.Sprintf("the Hugging Face Hub at %s answered HTTP %d (%s) — try again later, or check huggingface.hub_url", where, code, hubMessage(body))}
	}
	var v struct {
		Name string `json:"name"`
		Auth struct {
			AccessToken struct {
				DisplayName string `json:"displayName"`
				Role        string `json:"role"`
			} `json:"accessToken"`
		} `json:"auth"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Name == "" {
		return Account{}, &accountError{err: ErrHubUnavailable,
			msg: fmt.Sprintf("the answer at %s/api/whoami-v2 is not the Hub's — is huggingface.hub_url the Hub (https://huggingface.co)?", where)}
	}
	return Account{Name: v.Name, TokenName: v.Auth.AccessToken.DisplayName, Role: v.Auth.AccessToken.Role}, nil
}
