package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ollama/ollama/api"
	gossh "golang.org/x/crypto/ssh"

	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/scrape"
	"github.com/chorusai/chorus/internal/testkit"
)

// drainGuard bounds waits that end at once in a working build.
const drainGuard = 30 * time.Second

// heldAnswers is a fake controller whose answers the test streams: a
// request with "TAG-n" in it is answered from the channel of its tag,
// ended when the test closes it; plans have no tasks.
type heldAnswers struct {
	mu sync.Mutex
	ch map[string]chan string
}

func (h *heldAnswers) of(tag string) chan string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch[tag] == nil {
		h.ch[tag] = make(chan string, 16)
	}
	return h.ch[tag]
}

func (h *heldAnswers) reply(req *api.ChatRequest) fakeollama.Reply {
	if stageOf(req) == "plan" {
		return fakeollama.Reply{Content: `{"tasks": []}`}
	}
	last := req.Messages[len(req.Messages)-1].Content
	if i := strings.LastIndex(last, "TAG-"); i >= 0 && i+5 <= len(last) {
		return fakeollama.Reply{Stream: h.of(last[i : i+5])}
	}
	return fakeollama.Reply{Content: "ok"} // the server's warm-up
}

// waitText waits until what buf holds after mark, escape sequences
// removed, contains want; it returns the new mark.
func waitText(t *testing.T, buf *testkit.Buffer, mark int, want string) int {
	t.Helper()
	deadline := time.Now().Add(drainGuard)
	for time.Now().Before(deadline) {
		s := buf.String()
		if strings.Contains(ansi.Strip(s[min(mark, len(s)):]), want) {
			return len(s)
		}
		time.Sleep(20 * time.Millisecond) // another process's output: nothing to wait on but its text
	}
	t.Fatalf("%q never came; got:\n%s", want, ansi.Strip(buf.String()[min(mark, len(buf.String())):]))
	return 0
}

// chorusProcess is the built chorus running one command, its output
// kept; the test's end kills it.
type chorusProcess struct {
	cmd            *exec.Cmd
	stdout, stderr *testkit.Buffer
	exited         chan struct{} // closed when the process has ended
}

// startChorus starts the built chorus with args on e's environment.
func (e *cliEnv) startChorus(args ...string) chorusProcess {
	t := e.t
	t.Helper()
	p := chorusProcess{stdout: &testkit.Buffer{}, stderr: &testkit.Buffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(chorusBinary(t), args...)
	p.cmd.Env = e.childEnv()
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// exitCode waits for the process to end and returns its exit code.
func (p chorusProcess) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(drainGuard):
		t.Fatalf("%s did not exit; stderr:\n%s", strings.Join(p.cmd.Args, " "), p.stderr.String())
		return -1
	}
}

// servedChorus is a `chorus serve --ssh` process.
type servedChorus struct {
	chorusProcess
	sshAddr    string
	metricsURL string
}

// startServe starts the built chorus serving ssh and metrics on free
// loopback ports, with key allowed in.
func (e *cliEnv) startServe(key gossh.Signer) *servedChorus {
	t := e.t
	t.Helper()
	keys := filepath.Join(e.env.ConfigDir(), "authorized_keys")
	if err := os.MkdirAll(filepath.Dir(keys), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(key.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &servedChorus{chorusProcess: e.startChorus("serve", "--ssh", "127.0.0.1:0", "--metrics", "127.0.0.1:0")}
	waitText(t, s.stdout, 0, "serving the chat over SSH")
	waitText(t, s.stderr, 0, "metrics on http://")
	s.sshAddr = regexp.MustCompile(`over SSH on (\S+) —`).FindStringSubmatch(s.stdout.String())[1]
	s.metricsURL = regexp.MustCompile(`metrics on (http://\S+/)metrics`).FindStringSubmatch(s.stderr.String())[1]
	return s
}

// sshChat logs in with key and opens a chat in an 100×30 terminal.
func sshChat(t *testing.T, addr string, key gossh.Signer) (*gossh.Client, io.Writer, *testkit.Buffer) {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "dev", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: drainGuard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	_ = sess.Setenv("NO_COLOR", "1")
	if err := sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out := &testkit.Buffer{}
	sess.Stdout, sess.Stderr = out, out
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return c, in, out
}

func drainKey(t *testing.T) gossh.Signer {
	t.Helper()
	s, err := gossh.NewSignerFromKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// savedSSHTurns reads the turns of the one session the ssh user saved.
func (e *cliEnv) savedSSHTurns() []map[string]any {
	e.t.Helper()
	return testkit.SavedTurns(e.t, filepath.Join(e.env.DataDir(), "ssh-users", "sha256-*", "sessions", "*.json"))
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeSIGTERMLetsTheTurnFinish: SIGTERM to `chorus serve --ssh`
// mid-turn drains it — the client is told the server is restarting and
// its turn finishes first, /readyz says 503 meanwhile, the answer streams
// to its end and is saved whole, the client is told its session is saved,
// and the process exits 0. The metrics listener saw the chat and its
// turn.
func TestServeSIGTERMLetsTheTurnFinish(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	held := &heldAnswers{ch: map[string]chan string{}}
	e := newCLIEnv(t, held.reply)
	key := drainKey(t)
	srv := e.startServe(key)
	if code := httpStatus(t, srv.metricsURL+"readyz"); code != 200 {
		t.Fatalf("/readyz of a server ready: %d", code)
	}
	_, in, out := sshChat(t, srv.sshAddr, key)
	mark := waitText(t, out, 0, "Ask anything")
	_, _ = io.WriteString(in, "tell me TAG-1\r")
	answer := held.of("TAG-1")
	answer <- "The first half,"
	mark = waitText(t, out, mark, "The first half,")
	mid, err := scrape.Get(srv.metricsURL + "metrics")
	if err != nil {
		t.Fatal(err)
	}
	if mid["chorus_chats_active"] != 1 || mid["chorus_turns_active"] != 1 || mid["chorus_first_token_seconds_count"] != 1 {
		t.Fatalf("mid-turn metrics: chats %v, turns %v, first tokens %v", mid["chorus_chats_active"], mid["chorus_turns_active"], mid["chorus_first_token_seconds_count"])
	}

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	mark = waitText(t, out, mark, "your turn finishes first")
	waitText(t, srv.stderr, 0, "draining the ssh server")
	if code := httpStatus(t, srv.metricsURL+"readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while draining: %d", code)
	}
	answer <- " then the second half."
	close(answer)
	waitText(t, out, mark, "then the second half.")
	waitText(t, out, mark, "the server is restarting — your session is saved")
	if code := srv.exitCode(t); code != 0 {
		t.Fatalf("exit %d after a drain; stderr:\n%s", code, srv.stderr.String())
	}
	turns := e.savedSSHTurns()
	if len(turns) != 1 || turns[0]["cancelled"] == true || !strings.HasPrefix(turns[0]["answer"].(string), "The first half, then the second half.") {
		t.Fatalf("the turn saved: %v", turns)
	}
}

// TestServeSecondSIGTERMStopsAtOnce: a turn that would not finish keeps
// a drain waiting; a second SIGTERM stops the server at once, the turn
// saved as cancelled with what it had.
func TestServeSecondSIGTERMStopsAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	held := &heldAnswers{ch: map[string]chan string{}}
	e := newCLIEnv(t, held.reply)
	key := drainKey(t)
	srv := e.startServe(key)
	_, in, out := sshChat(t, srv.sshAddr, key)
	mark := waitText(t, out, 0, "Ask anything")
	_, _ = io.WriteString(in, "tell me TAG-1\r")
	held.of("TAG-1") <- "An answer that never ends"
	mark = waitText(t, out, mark, "An answer that never ends")
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	waitText(t, out, mark, "your turn finishes first")
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	waitText(t, srv.stderr, 0, "stopping at once")
	if code := srv.exitCode(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, srv.stderr.String())
	}
	turns := e.savedSSHTurns()
	if len(turns) != 1 || turns[0]["cancelled"] != true || !strings.HasPrefix(turns[0]["answer"].(string), "An answer that never ends") {
		t.Fatalf("the turn saved: %v", turns)
	}
}

// mcpServed is a `chorus mcp serve --http --metrics` process, with a
// client session that hears the progress the server sends.
type mcpServed struct {
	chorusProcess
	metricsURL string
	cs         *sdk.ClientSession
	told       chan string
}

// startMCPServe starts chorus mcp serve --http on e's environment and
// connects a client to it.
func (e *cliEnv) startMCPServe(ctx context.Context) *mcpServed {
	t := e.t
	t.Helper()
	m := &mcpServed{chorusProcess: e.startChorus("mcp", "serve", "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0"), told: make(chan string, 16)}
	waitText(t, m.stderr, 0, "serving MCP on")
	url := regexp.MustCompile(`serving MCP on (http://\S+/mcp)`).FindStringSubmatch(m.stderr.String())[1]
	m.metricsURL = regexp.MustCompile(`metrics on (http://\S+/)metrics`).FindStringSubmatch(m.stderr.String())[1]
	cl := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		m.told <- r.Params.Message
	}})
	var err error
	if m.cs, err = cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.cs.Close() })
	return m
}

// call calls the chorus tool with request, asking for progress; the
// result (nil after an error) comes on the channel.
func (m *mcpServed) call(t *testing.T, ctx context.Context, request string) chan *sdk.CallToolResult {
	result := make(chan *sdk.CallToolResult, 1)
	go func() {
		params := &sdk.CallToolParams{Name: "chorus", Arguments: map[string]any{"request": request}}
		params.SetProgressToken("p1")
		res, err := m.cs.CallTool(ctx, params)
		if err != nil {
			t.Logf("the call: %v", err)
		}
		result <- res
	}()
	return result
}

// waitTold waits until the client has been told want in a progress
// message.
func (m *mcpServed) waitTold(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(drainGuard)
	for {
		select {
		case msg := <-m.told:
			if strings.Contains(msg, want) {
				return
			}
		case <-deadline:
			t.Fatalf("the client was never told %q; stderr:\n%s", want, m.stderr.String())
		}
	}
}

// TestMCPServeHTTPSIGTERMLetsTheCallFinish: SIGTERM to `chorus mcp serve
// --http` mid-call tells the client (it asked for progress) that the
// server is restarting and its call finishes first; the call returns its
// whole answer; the process exits 0.
func TestMCPServeHTTPSIGTERMLetsTheCallFinish(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	held := &heldAnswers{ch: map[string]chan string{}}
	e := newCLIEnv(t, held.reply)
	ctx, cancel := context.WithTimeout(context.Background(), drainGuard)
	defer cancel()
	srv := e.startMCPServe(ctx)
	answer := held.of("TAG-1")
	answer <- "The first half,"
	result := srv.call(t, ctx, "tell me TAG-1")
	srv.waitTold(t, "response") // the answer is streaming
	s, err := scrape.Get(srv.metricsURL + "metrics")
	if err != nil || s["chorus_turns_active"] != 1 {
		t.Fatalf("mid-call metrics: %v turns active, %v", s["chorus_turns_active"], err)
	}
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.waitTold(t, "the server is restarting — your call finishes first")
	if code := httpStatus(t, srv.metricsURL+"readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while draining: %d", code)
	}
	answer <- " then the second half."
	close(answer)
	res := <-result
	if res == nil || res.IsError || !strings.HasPrefix(res.Content[0].(*sdk.TextContent).Text, "The first half, then the second half.") {
		t.Fatalf("the call's result: %+v", res)
	}
	if code := srv.exitCode(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, srv.stderr.String())
	}
}

// TestMCPServeHTTPSecondSIGTERMStopsAtOnce: a call that would not finish
// keeps a drain of `chorus mcp serve --http` waiting; a second SIGTERM
// stops the server at once — the call ends without its answer, the
// process exits 0.
func TestMCPServeHTTPSecondSIGTERMStopsAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the binary")
	}
	held := &heldAnswers{ch: map[string]chan string{}}
	e := newCLIEnv(t, held.reply)
	ctx, cancel := context.WithTimeout(context.Background(), drainGuard)
	defer cancel()
	srv := e.startMCPServe(ctx)
	held.of("TAG-1") <- "An answer that never ends"
	result := srv.call(t, ctx, "tell me TAG-1")
	srv.waitTold(t, "response")
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.waitTold(t, "your call finishes first")
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	waitText(t, srv.stderr, 0, "stopping at once")
	if code := srv.exitCode(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, srv.stderr.String())
	}
	select {
	case res := <-result:
		if res != nil && !res.IsError {
			t.Fatalf("a call cut off by the second signal answered: %+v", res)
		}
	case <-time.After(drainGuard):
		t.Fatal("the call cut off by the second signal never ended")
	}
}
