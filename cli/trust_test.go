package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
	"github.com/chorusai/chorus/sessions"
)

// pipedSecrets makes a home with a private key and a loopback server that
// counts its hits, and a fake controller whose plan names both.
func pipedSecrets(t *testing.T) (e *cliEnv, key, secret, url string, hits *atomic.Int32) {
	t.Helper()
	home := t.TempDir()
	secret = "-----BEGIN OPENSSH PRIVATE KEY----- cGlwZWQtc2VjcmV0"
	key = filepath.Join(home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	hits = new(atomic.Int32)
	lo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(fakehf.PNG(4, 4))
	}))
	t.Cleanup(lo.Close)
	url = lo.URL + "/x.png"
	e = newCLIEnv(t, func(req *api.ChatRequest) fakeollama.Reply {
		if stageOf(req) == "plan" {
			return fakeollama.Reply{Content: `{"tasks": [
				{"task": "summarization", "id": 1, "dep": [], "args": {"text": "~/.ssh/id_rsa"}},
				{"task": "image-to-text", "id": 2, "dep": [], "args": {"image": "` + url + `"}},
				{"task": "summarization", "id": 3, "dep": [], "args": {"text": "` + key + `"}}]}`}
		}
		return fakeollama.Reply{Content: "Done."}
	})
	e.env["HOME"] = home
	e.serveSkill("image-to-text")
	e.serveSkill("summarization")
	return e, key, secret, url, hits
}

// leaks says where secret went: stdout, stderr, the controller, Hugging Face.
func leaks(e *cliEnv, secret, stdout, stderr string) []string {
	var where []string
	if strings.Contains(stdout, secret) || strings.Contains(stderr, secret) {
		where = append(where, "the output")
	}
	for _, req := range e.hf.Requests() {
		if strings.Contains(string(req.Body), secret) {
			where = append(where, "Hugging Face ("+req.Model+")")
		}
	}
	for _, req := range e.ollama.ChatRequests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, secret) {
				where = append(where, "the controller")
			}
		}
	}
	return where
}

// TestPipedStdinGrantsNothing (issue 17, 1): with a request given as
// arguments, piped stdin is data the user passed, not paths the user typed:
// a private key's path and a loopback URL inside it are neither read nor
// fetched — not this turn, and not in a later turn of the session it was
// saved into. The controller still reads the piped text.
func TestPipedStdinGrantsNothing(t *testing.T) {
	e, _, secret, url, hits := pipedSecrets(t)
	st := sessions.Store{Dir: e.env.SessionsDir()}
	s := st.New("")
	s.Model = "ctl"
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.exec(strings.NewReader("~/.ssh/id_rsa "+url+"\n"), "run", "--json", "--session", s.ID, "summarize")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if where := leaks(e, secret, stdout, stderr); len(where) > 0 {
		t.Fatalf("a path in piped stdin was read: the key reached %v", where)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("a loopback URL in piped stdin was fetched %d time(s)", n)
	}
	if p := lastPlanPrompt(e); !strings.Contains(p, "summarize") || !strings.Contains(p, "~/.ssh/id_rsa "+url) {
		t.Fatalf("the controller did not get the request and the piped text:\n%s", p)
	}
	if !strings.Contains(stdout, "is not a file you gave this turn — attach it with @path or --attach") || !strings.Contains(stdout, "neither you nor a task of this turn gave that URL") {
		t.Fatalf("the refusal is not explained:\n%s", stdout)
	}

	// The piped text saved with the session grants nothing later either.
	stdout, stderr, code = e.exec(nil, "run", "--json", "--session", s.ID, "and now the same again")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if where := leaks(e, secret, stdout, stderr); len(where) > 0 {
		t.Fatalf("a path piped in an earlier turn was read: the key reached %v", where)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("a loopback URL piped in an earlier turn was fetched %d time(s)", n)
	}
	back, err := st.Load(s.ID)
	if err != nil || len(back.Turns) != 2 || back.Turns[0].Request != "summarize" || !strings.Contains(back.Turns[0].Input, url) {
		t.Fatalf("the session does not keep the request and the piped input apart: %+v, %v", back, err)
	}
}

// TestPipedStdinAloneIsTheRequest: with no arguments the piped text is the
// request the user wrote, and what it names is granted as if typed.
func TestPipedStdinAloneIsTheRequest(t *testing.T) {
	e, _, secret, url, hits := pipedSecrets(t)
	stdout, stderr, code := e.exec(strings.NewReader("summarize ~/.ssh/id_rsa and caption "+url+"\n"), "run", "--json")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if hits.Load() == 0 {
		t.Fatalf("the URL of the piped request was not fetched:\n%s", stdout)
	}
	if len(leaks(e, secret, "", "")) == 0 {
		t.Fatalf("the file the piped request named was not given to its task:\n%s", stdout)
	}
}

// TestURLPasswordsNeverShow (issue 17, 9): a password inside a configured
// URL — an OpenAI-compatible server's, Ollama's — is never shown or
// logged: not on stderr or stdout (plain or --json), not in the answer or
// what the controller reads, not in the log file, not by `chorus config`
// or `chorus models list`.
func TestURLPasswordsNeverShow(t *testing.T) {
	t.Parallel()
	const pass = "S3cretPass"
	e := newCLIEnv(t, onePlan("text-to-image", `{"text":"a red square"}`))
	refusing := fakeopenai.New(t, "sd-turbo")
	refusing.RequireKey("sk-other") // 401: the message names the server
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // unreachable: the message names the server
	dir := e.env.ConfigDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	withPass := func(u string) string { return strings.Replace(u, "http://", "http://admin:"+pass+"@", 1) }
	cfg := `inference_mode: local
openai:
  - url: ` + withPass(refusing.URL) + `/v1
    models:
      text-to-image: [sd-turbo]
  - url: ` + withPass(gone.URL) + `/v1
    models:
      text-to-image: [sd-turbo]
retrieval:
  searxng_url: ` + withPass(gone.URL) + `
`
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var shown []string
	check := func(what, s string) {
		if strings.Contains(s, pass) {
			shown = append(shown, what)
		}
	}
	stdout, stderr, _ := e.run("--debug", "run", "draw a red square")
	check("run's stdout", stdout)
	check("run's stderr", stderr)
	if !strings.Contains(stderr+stdout, "admin:REDACTED@") {
		t.Errorf("the server's URL is not named, redacted:\n%s\n%s", stdout, stderr)
	}
	stdout, stderr, _ = e.run("run", "--json", "draw a red square")
	check("run --json", stdout+stderr)
	for _, req := range e.ollama.ChatRequests() {
		for _, m := range req.Messages {
			check("the controller's prompt", m.Content)
		}
	}
	log, _ := os.ReadFile(filepath.Join(e.env.StateDir(), "chorus.log"))
	if len(log) == 0 {
		t.Fatal("no log file")
	}
	check("the log file", string(log))
	stdout, stderr, _ = e.run("config")
	check("chorus config", stdout+stderr)
	if !strings.Contains(stdout, "admin:REDACTED@") {
		t.Errorf("chorus config does not show the URL, redacted:\n%s", stdout)
	}
	stdout, stderr, _ = e.run("models", "list", "text-to-image")
	check("chorus models list", stdout+stderr)

	// Ollama's address, unreachable, named in the failure.
	e.env["OLLAMA_HOST"] = withPass(gone.URL)
	stdout, stderr, _ = e.run("run", "hi")
	check("an unreachable Ollama's error", stdout+stderr)
	if len(shown) > 0 {
		t.Fatalf("the password in a configured URL was shown in %v", shown)
	}
}
