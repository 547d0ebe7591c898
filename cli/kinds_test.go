package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
	"github.com/chorusai/chorus/internal/mcptest"
)

// kindEnv is the variable that runs the end-to-end tests with the
// controller on another kind of server (TestEndToEndOnOpenAIKind).
const kindEnv = "CHORUS_TEST_CONTROLLER_KIND"

// e2eOnBothKinds are the end-to-end tests that run with the fake Ollama as
// the controller and again with the controller on an OpenAI-compatible
// server. The others assert Ollama's own words (its fixes, pull) or its
// capabilities, which that kind does not have.
var e2eOnBothKinds = []string{
	"TestRunJSONFullTurn", "TestRunPlainPrintsLogAndAnswer", "TestRunPlainStripsTerminalControls", "TestRunPlanOnly",
	"TestRunContinuesASession", "TestRunNeverSendsFilesTheUserDidNotGive",
	"TestRunReadsPipedStdin", "TestRunRendersMarkdownOnATerminal", "TestRunEveryTaskFailedExitsOne",
	"TestRunSaysAConstraintFailureOnce", "TestPipedStdinGrantsNothing", "TestPipedStdinAloneIsTheRequest",
	"TestURLPasswordsNeverShow", "TestEvalJSON", "TestEvalTableReadsIn80Columns", "TestEvalJSONSaysWhy",
	"TestEvalInterruptPrintsWhatItHas", "TestRunShowsNoControllerGarbage",
}

// TestEndToEndOnOpenAIKind runs the end-to-end tests of e2eOnBothKinds
// again with controller.kind openai: the controller reaches a protocol-
// faithful OpenAI-compatible server (SSE, response_format, usage) that
// bridges to the same scripted fake Ollama, so every test keeps its script
// and its checks of what the controller was sent.
func TestEndToEndOnOpenAIKind(t *testing.T) {
	t.Parallel()
	if os.Getenv(kindEnv) != "" {
		t.Skip("already running on the other kind")
	}
	if testing.Short() {
		t.Skip("runs the end-to-end tests again")
	}
	args := []string{"-test.run", "^(" + strings.Join(e2eOnBothKinds, "|") + ")$", "-test.count", "1"}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(os.Args[0], args...)
	// GORACE: a test binary built with -race otherwise sleeps a second
	// as it exits.
	cmd.Env = append(os.Environ(), kindEnv+"=openai", "GORACE="+mcptest.NoExitSleep, builtEnv+"="+chorusBinary(t))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("the end-to-end tests on the openai kind failed (%v):\n%s", err, out)
	}
	if strings.Contains(string(out), "no tests to run") {
		t.Fatalf("none of %v ran:\n%s", e2eOnBothKinds, out)
	}
}

// onControllerKind points the controller of a test's environment env at the
// kind kindEnv names, in front of the test's fake Ollama.
func onControllerKind(t *testing.T, env config.Env, ollama *fakeollama.Server, model string) {
	if os.Getenv(kindEnv) != "openai" {
		return
	}
	srv := openAIBridge(t, ollama, model)
	env["CHORUS_CONTROLLER_KIND"] = "openai"
	env["CHORUS_CONTROLLER_HOST"] = srv.URL + "/v1"
}

// openAIBridge serves the OpenAI-compatible API as vLLM does, answering
// each chat with what the fake Ollama is scripted to answer: the request
// goes to it as Ollama's /api/chat (the schema of response_format as
// format, max_tokens as num_predict), its reply streams back as SSE.
func openAIBridge(t *testing.T, ollama *fakeollama.Server, model string) *fakeopenai.Controller {
	t.Helper()
	srv := fakeopenai.NewController(t, fakeopenai.VLLM, model)
	u, err := url.Parse(ollama.URL)
	if err != nil {
		t.Fatal(err)
	}
	client := api.NewClient(u, http.DefaultClient)
	srv.OnChat(func(ctx context.Context, req *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		areq := &api.ChatRequest{Model: req.Model, Options: map[string]any{}}
		for _, m := range req.Messages {
			msg := api.Message{Role: m.Role, Content: m.Text}
			for _, img := range m.Images {
				msg.Images = append(msg.Images, api.ImageData(img))
			}
			areq.Messages = append(areq.Messages, msg)
		}
		switch req.Format {
		case "json_schema":
			areq.Format = req.Schema
		case "json_object":
			areq.Format = json.RawMessage(`"json"`)
		}
		if req.MaxTokens > 0 {
			areq.Options["num_predict"] = req.MaxTokens
		}
		if req.Temperature != nil {
			areq.Options["temperature"] = *req.Temperature
		}
		ch := make(chan string)
		first := make(chan error, 1)
		var finish string
		var streamErr error
		go func() {
			defer close(ch)
			started := false
			err := client.Chat(ctx, areq, func(r api.ChatResponse) error {
				if !started {
					started = true
					first <- nil
				}
				if r.Message.Content != "" {
					select {
					case ch <- r.Message.Content:
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				if r.Done {
					finish = r.DoneReason
				}
				return nil
			})
			if !started {
				first <- cmp.Or(err, errors.New("no reply"))
				return
			}
			streamErr = err
		}()
		if err := <-first; err != nil {
			var se api.StatusError
			if errors.As(err, &se) {
				return fakeopenai.ChatReply{Status: se.StatusCode, Error: se.ErrorMessage}
			}
			return fakeopenai.ChatReply{Status: http.StatusBadGateway, Error: err.Error()}
		}
		return fakeopenai.ChatReply{Stream: ch, StreamEnd: func() (string, string) {
			if streamErr != nil {
				return "", streamErr.Error()
			}
			return cmp.Or(finish, "stop"), ""
		}}
	})
	return srv
}
