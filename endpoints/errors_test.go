package endpoints

import (
	"errors"
	"testing"

	"github.com/chorusai/chorus/skills"
)

// TestHTTPErrorText: a failure status is named; a failure the server
// reported inside a successful answer (models_server's {"error": …} with
// HTTP 200) is not labelled "HTTP 200", which reads as a contradiction.
func TestHTTPErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *HTTPError
		want string
	}{
		{&HTTPError{Kind: skills.EndpointLocal, Model: "m/x", Status: 200, Err: ErrUnavailable, Message: "the local server failed"}, "local m/x: the local server failed"},
		{&HTTPError{Kind: skills.EndpointHuggingFace, Provider: "fal-ai", Model: "m/y", Status: 200, Message: "prediction failed"}, "huggingface (fal-ai) m/y: prediction failed"},
		{&HTTPError{Kind: skills.EndpointHuggingFace, Provider: "hf-inference", Model: "m/y", Status: 503, Message: "loading"}, "huggingface (hf-inference) m/y: HTTP 503: loading"},
		{&HTTPError{Kind: skills.EndpointOpenAI, Model: "sd", Status: 404}, "openai sd: HTTP 404: no message"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if e := (&HTTPError{Status: 200, Err: ErrUnavailable}); !errors.Is(e, ErrUnavailable) {
		t.Error("the sentinel is lost")
	}
}
