package sshd_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ollama/ollama/api"
	gossh "golang.org/x/crypto/ssh"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/sshd"
	"github.com/chorusai/chorus/ui"
)

// guard bounds waits that end at once in a working build.
const guard = 20 * time.Second

// patience bounds a wait that makes progress all along (see waitFor).
const patience = 10 * guard

// server is a chorus serve --ssh on a loopback port, with a fake Ollama
// that answers every request as plain chat.
type server struct {
	srv      *sshd.Server
	addr     string
	hostKey  gossh.PublicKey
	keys     string // the authorized_keys file
	users    string
	log      *testkit.Buffer
	ollama   *fakeollama.Server
	answered chan string
	// stopped closes when Serve has returned, with serveErr.
	stopped  chan struct{}
	serveErr error
}

func startServer(t *testing.T, maxSessions int, tune ...func(*sshd.Options)) *server {
	t.Helper()
	dir, env := testkit.Isolate(t)
	defaults, err := os.ReadFile("../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(defaults, "", env)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{keys: filepath.Join(dir, "authorized_keys"), users: filepath.Join(dir, "users"), log: &testkit.Buffer{}, answered: make(chan string, 8)}
	s.ollama = fakeollama.New(t)
	s.ollama.AddModel(fakeollama.Model{Name: "qwen3:8b", ParameterSize: "8.2B", Capabilities: []string{fakeollama.CapCompletion}})
	s.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			return fakeollama.Reply{Content: `{"tasks": []}`}
		}
		word := "answer"
		if strings.Contains(last, "zebra") {
			word = "zebras"
		}
		return fakeollama.Reply{Content: "Served over ssh: " + word + "."}
	})
	ctl, err := controller.New(s.ollama.URL, "qwen3:8b", controller.Options{Timeout: guard})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	eng := pipeline.New(ctl, cat, endpoints.NewRouter(endpoints.ModeLocal, builtin.New()), pipeline.Options{OutputDir: filepath.Join(dir, "shared-out")})
	if err := os.WriteFile(s.keys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	hostKeyPath := filepath.Join(dir, "data", "ssh_host_ed25519_key")
	// A server that could let nobody in says so before it listens.
	svc, err := conversation.New(conversation.Options{Engine: eng, Dir: cfg.Env.SessionsDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	opts := sshd.Options{Config: cfg, Service: svc, HostKey: hostKeyPath, AuthorizedKeys: s.keys, UsersDir: s.users,
		MaxSessions: maxSessions, Version: "test", Logger: slog.New(slog.NewTextHandler(s.log, nil))}
	for _, f := range tune {
		f(&opts)
	}
	if _, err := sshd.New(opts); !errors.Is(err, sshd.ErrNoKeys) {
		t.Fatalf("an empty authorized_keys: %v", err)
	}
	s.allow(t, testKey(t, 1))
	srv, err := sshd.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.srv = srv
	st, err := os.Stat(hostKeyPath)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v %v", st, err)
	}
	pem, err := os.ReadFile(hostKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	s.hostKey = signer.PublicKey()
	if srv.HostKeyFingerprint() != gossh.FingerprintSHA256(s.hostKey) {
		t.Fatal("the server does not use the host key it wrote")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	s.stopped = make(chan struct{})
	go func() {
		s.serveErr = srv.Serve(ctx, l)
		close(s.stopped)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.stopped:
		case <-time.After(guard):
			t.Error("the server did not stop")
		}
	})
	return s
}

// testKey is a deterministic ed25519 key per seed byte.
func testKey(t testing.TB, seed byte) gossh.Signer {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// allow adds a key to the authorized_keys file.
func (s *server) allow(t *testing.T, k gossh.Signer) {
	t.Helper()
	f, err := os.OpenFile(s.keys, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(gossh.MarshalAuthorizedKey(k.PublicKey())); err != nil {
		t.Fatal(err)
	}
}

func (s *server) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", s.addr, &gossh.ClientConfig{User: "alice", Auth: auth, HostKeyCallback: gossh.FixedHostKey(s.hostKey), Timeout: guard})
}

// term is a client's interactive session: what it typed and what the
// server drew.
type term struct {
	sess  *gossh.Session
	stdin io.WriteCloser
	out   *testkit.Buffer
}

func (s *server) open(t *testing.T, k gossh.Signer, w, h int) (*gossh.Client, *term) {
	t.Helper()
	c, err := s.dial(gossh.PublicKeys(k))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	// The client's terminal: the server must use it, not its own.
	if err := sess.Setenv("NO_COLOR", "1"); err != nil {
		t.Logf("setenv refused: %v", err)
	}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	tm := &term{sess: sess, out: &testkit.Buffer{}}
	sess.Stdout = tm.out
	sess.Stderr = tm.out
	tm.stdin, err = sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return c, tm
}

// waitFor waits until the text drawn since mark (escape sequences removed)
// contains want, and returns the new mark. It gives up when the chat has
// drawn nothing new for guard (a chat that is stuck), or after patience
// in all: a chat that keeps drawing is slow — frames of a large window
// under -race on a loaded machine took over guard for one turn — not
// stuck, and must not fail the test for it.
func (tm *term) waitFor(t *testing.T, mark int, want string) int {
	t.Helper()
	start, drawn := time.Now(), -1
	var lastDrawn time.Time
	for {
		out := tm.out.String()
		if i := strings.Index(ansi.Strip(out[min(mark, len(out)):]), want); i >= 0 {
			return len(out)
		}
		now := time.Now()
		if len(out) != drawn {
			drawn, lastDrawn = len(out), now
		}
		if now.Sub(lastDrawn) > guard || now.Sub(start) > patience {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%q never appeared (%s waited); the screen got:\n%s", want, time.Since(start).Round(time.Millisecond), ansi.Strip(tm.out.String()[min(mark, len(tm.out.String())):]))
	return 0
}

func (tm *term) typeText(t *testing.T, s string) {
	t.Helper()
	if _, err := tm.stdin.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// TestSSHChat: a real SSH client logs in with an authorized key, gets the
// chat's first frame at its terminal's size, types a request and sees the
// answer, resizes its window and gets a frame of the new size, and
// disconnects — after which its session is saved in its own directory and
// the log names its key and address.
func TestSSHChat(t *testing.T) {
	t.Parallel()
	s := startServer(t, 4)
	key := testKey(t, 1)
	client, tm := s.open(t, key, 80, 24)
	mark := tm.waitFor(t, 0, "Ask anything")
	// At 80 columns the key hints leave the copy key out.
	if strings.Contains(ansi.Strip(tm.out.String()), "ctrl+y copy") {
		t.Fatal("the first frame is not 80 columns wide")
	}
	tm.typeText(t, "tell me about zebras\r")
	mark = tm.waitFor(t, mark, "Served over ssh: zebras.")

	if err := tm.sess.WindowChange(48, 160); err != nil {
		t.Fatal(err)
	}
	tm.waitFor(t, mark, "ctrl+y copy")

	// Sound is never played on the server: the chat says where the file
	// would play. (No audio in this chat: it says there is none to play.)
	tm.typeText(t, "\x1ba") // alt+a
	tm.waitFor(t, mark, "no audio in this chat yet")

	client.Close()
	dir := filepath.Join(s.users)
	deadline := time.Now().Add(guard)
	var saved []string
	for time.Now().Before(deadline) {
		saved, _ = filepath.Glob(filepath.Join(dir, "*", "sessions", "*.json"))
		if len(saved) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(saved) != 1 || !strings.Contains(saved[0], "sha256-") {
		t.Fatalf("sessions saved: %v", saved)
	}
	b, err := os.ReadFile(saved[0])
	if err != nil || !strings.Contains(string(b), "tell me about zebras") {
		t.Fatalf("the saved session: %s %v", b, err)
	}
	fp := gossh.FingerprintSHA256(key.PublicKey())
	waitLog(t, s, "ssh chat ended")
	log := s.log.String()
	for _, want := range []string{"ssh chat started", "fingerprint=" + fp, "remote=127.0.0.1:", "ssh chat ended"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

func waitLog(t *testing.T, s *server, want string) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) && !strings.Contains(s.log.String(), want) {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSSHUsersAreSeparate: two keys chat at the same time on the shared
// engine; each has its own directory, and neither's chat can read the
// other's files, even by typing their path.
func TestSSHUsersAreSeparate(t *testing.T) {
	t.Parallel()
	s := startServer(t, 4)
	alice, bob := testKey(t, 1), testKey(t, 2)
	s.allow(t, bob)
	_, ta := s.open(t, alice, 100, 30)
	_, tb := s.open(t, bob, 100, 30)
	ma := ta.waitFor(t, 0, "Ask anything")
	mb := tb.waitFor(t, 0, "Ask anything")
	ta.typeText(t, "zebra facts please\r")
	tb.typeText(t, "anything at all\r")
	ta.waitFor(t, ma, "Served over ssh: zebras.")
	tb.waitFor(t, mb, "Served over ssh: answer.")

	dirs, _ := filepath.Glob(filepath.Join(s.users, "sha256-*"))
	if len(dirs) != 2 {
		t.Fatalf("user directories: %v", dirs)
	}
	// Bob cannot attach a file of Alice's, nor have the planner read it by
	// typing its path.
	secret := filepath.Join(s.users, userDir(alice), "secret.txt")
	if err := os.WriteFile(secret, []byte("alice's"), 0o600); err != nil {
		t.Fatal(err)
	}
	mb = len(tb.out.String())
	tb.typeText(t, "read @"+secret+"\r")
	tb.waitFor(t, mb, "outside your workspace")
}

// userDir is the directory name the server gives a key's user.
func userDir(k gossh.Signer) string {
	sum := sha256.Sum256(k.PublicKey().Marshal())
	return "sha256-" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestSSHRefusals: an unknown key, a password and keyboard-interactive
// logins are refused; a command is answered with a message and status 1;
// port forwarding is refused; past max_sessions a chat is turned away.
func TestSSHRefusals(t *testing.T) {
	t.Parallel()
	s := startServer(t, 1)
	if _, err := s.dial(gossh.PublicKeys(testKey(t, 9))); err == nil {
		t.Fatal("an unknown key logged in")
	}
	waitLog(t, s, "unknown key")
	if !strings.Contains(s.log.String(), "fingerprint="+gossh.FingerprintSHA256(testKey(t, 9).PublicKey())) {
		t.Errorf("the refusal is not logged with the key's fingerprint:\n%s", s.log.String())
	}
	if _, err := s.dial(gossh.Password("hunter2")); err == nil {
		t.Fatal("a password logged in")
	}
	if _, err := s.dial(gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return []string{"x"}, nil })); err == nil {
		t.Fatal("keyboard-interactive logged in")
	}

	c, err := s.dial(gossh.PublicKeys(testKey(t, 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.CombinedOutput("cat /etc/passwd")
	var ee *gossh.ExitError
	if !errors.As(err, &ee) || ee.ExitStatus() != 1 || !strings.Contains(string(out), "chat only") || strings.Contains(string(out), "root:") {
		t.Fatalf("a command: %v %q", err, out)
	}
	if conn, err := c.Dial("tcp", s.addr); err == nil {
		conn.Close()
		t.Fatal("port forwarding was allowed")
	}
	if sess2, err := c.NewSession(); err == nil {
		if err := sess2.RequestSubsystem("sftp"); err == nil {
			t.Fatal("the sftp subsystem was allowed")
		}
	}

	// One chat allowed: the second is turned away with the reason.
	_, tm := s.open(t, testKey(t, 1), 80, 24)
	tm.waitFor(t, 0, "Ask anything")
	_, tm2 := s.open(t, testKey(t, 1), 80, 24)
	tm2.waitFor(t, 0, "all 1 chats this server allows are in use")
}

// TestSSHChatPanicEndsOnlyThatChat: a chat that panics is closed with a
// message to its user and the panic in the log file; the server, its chat
// slot and the other users' chats go on.
func TestSSHChatPanicEndsOnlyThatChat(t *testing.T) {
	t.Parallel()
	s := startServer(t, 1, func(o *sshd.Options) {
		o.NewProgram = func(ctx context.Context, o ui.Options) (*ui.Program, error) {
			if strings.HasSuffix(o.Workspace, userDir(testKey(t, 2))) {
				panic("a bug in one chat")
			}
			return ui.NewProgram(ctx, o)
		}
	})
	s.allow(t, testKey(t, 2))

	_, bad := s.open(t, testKey(t, 2), 80, 24)
	bad.waitFor(t, 0, "this chat hit an internal error and was closed")
	waitLog(t, s, "ssh chat panicked")
	if log := s.log.String(); !strings.Contains(log, "a bug in one chat") || !strings.Contains(log, "goroutine") {
		t.Errorf("the panic and its stack are not in the log:\n%s", log)
	}
	// The one slot is free again, and the next chat works.
	_, tm := s.open(t, testKey(t, 1), 80, 24)
	mark := tm.waitFor(t, 0, "Ask anything")
	tm.typeText(t, "hello\r")
	tm.waitFor(t, mark, "Served over ssh")
}

// TestSSHAbsurdWindowSize: a client may claim any terminal size (the
// protocol carries 32-bit numbers). A chat drawn at 100000×100000 cells
// would take the server's memory and never answer again; the size is
// capped, said in the log, and the chat answers as usual — at the start
// and after a window change as absurd. (The requests are pasted, not
// typed: every key is a frame of 600×200 cells, slow under -race on a
// loaded machine.)
func TestSSHAbsurdWindowSize(t *testing.T) {
	t.Parallel()
	s := startServer(t, 2)
	_, tm := s.open(t, testKey(t, 1), 100000, 100000)
	mark := tm.waitFor(t, 0, "Ask anything")
	tm.typeText(t, "\x1b[200~tell me about zebras\x1b[201~\r")
	mark = tm.waitFor(t, mark, "Served over ssh: zebras.")
	if err := tm.sess.WindowChange(1<<31-1, 1<<31-1); err != nil {
		t.Fatal(err)
	}
	tm.typeText(t, "\x1b[200~anything else\x1b[201~\r")
	mark = tm.waitFor(t, mark, "Served over ssh: answer.")
	// Back to a real size: the chat follows it.
	if err := tm.sess.WindowChange(48, 160); err != nil {
		t.Fatal(err)
	}
	tm.waitFor(t, mark, "ctrl+y copy")
	waitLog(t, s, "ssh window size capped")
	if log := s.log.String(); !strings.Contains(log, "ssh window size capped") || !strings.Contains(log, "claimed_width=100000") {
		t.Errorf("the log does not say the size was capped:\n%s", log)
	}
}
