package endpoints

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chorusai/chorus/skills"
)

func TestWhyFailedIsOneShortLine(t *testing.T) {
	fal := &HTTPError{Kind: skills.EndpointHuggingFace, Provider: "fal-ai", Model: "hexgrad/Kokoro-82M", Status: 404, Message: "Application 'kokoro' not found\nat the queue", Err: ErrUnavailable}
	rep := &HTTPError{Kind: skills.EndpointHuggingFace, Provider: "replicate", Model: "hexgrad/Kokoro-82M", Status: 404, Message: "The requested resource could not be found.", Err: ErrUnavailable}
	busy := &HTTPError{Kind: skills.EndpointHuggingFace, Provider: "hf-inference", Status: 503, Said: "Service Unavailable",
		Message: `hf-inference failed to run the model (server said: "Service Unavailable") — try another model or try again later`, Err: ErrUnavailable}
	all := &AllFailed{Msg: fal.Error() + "; " + rep.Error(), Errs: []error{fal, rep}}
	for _, c := range []struct {
		err  error
		want string
	}{
		{all, "not served by fal-ai (404), replicate (404)"},
		{&AllFailed{Msg: "x", Errs: []error{fal, busy}}, "not served by fal-ai (404); hf-inference failed (503): Service Unavailable"},
		{fmt.Errorf("wrapped: %w", busy), "hf-inference failed (503): Service Unavailable"},
		{&HTTPError{Kind: skills.EndpointLocal, Status: 401}, "local refused the token (401)"},
		{&HTTPError{Kind: skills.EndpointHuggingFace, Provider: "together", Status: 429, Message: "slow down"}, "rate limited by together (429)"},
		{&HTTPError{Kind: skills.EndpointLocal, Status: 200, Message: "CUDA out of memory"}, "local: CUDA out of memory"},
		{fmt.Errorf("call: %w", context.DeadlineExceeded), "timed out"},
		{errors.New("espeak-ng is not installed\n— apt install espeak-ng"), "espeak-ng is not installed — apt install espeak-ng"},
	} {
		if got := WhyFailed(c.err); got != c.want {
			t.Errorf("WhyFailed(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	// It still classifies as the last failure.
	if !errors.Is(all, ErrUnavailable) {
		t.Error("AllFailed does not wrap its last failure")
	}
	var he *HTTPError
	if !errors.As(all, &he) || he.Provider != "replicate" {
		t.Errorf("errors.As(AllFailed) = %v", he)
	}
}
