package sshd_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/internal/fakeopenai"
	"github.com/chorusai/chorus/internal/scrape"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/metrics"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/sshd"
)

// loadLatency is the fake controller's engine: a GPU serving an 8B model
// (vLLM): 60 ms to the first token, 12 ms a token after it, prefill at
// 40 ms per thousand tokens not in the prefix cache.
var loadLatency = fakeopenai.Latency{FirstToken: 60 * time.Millisecond, PerToken: 12 * time.Millisecond, PerKPrefill: 40 * time.Millisecond}

// loadResult is what one load run measured.
type loadResult struct {
	chats, slots, turns int
	wall                time.Duration
	firstTokens         []time.Duration // per turn: Enter to the first answer token on the client's screen
	ctl                 fakeopenai.ControllerStats
	peakHeap, peakRSS   uint64
	idleHeapPerChat     float64
	peakGoroutines      int
	goroutinesBefore    int
	goroutinesAfter     int
	// cpu is the process's CPU time over the turns (server, clients and
	// fakes together): what the turns cost Chorus, whatever else the
	// machine ran meanwhile.
	cpu time.Duration
}

// idealTurnsPerMin is what the controller's slots allow: min(chats, slots)
// calls at once, each turn needing the controller for the busy time it
// measured.
func (r loadResult) idealTurnsPerMin() float64 {
	perTurn := r.ctl.Busy.Seconds() / float64(r.turns)
	return float64(min(r.chats, r.slots)) * 60 / perTurn
}

func (r loadResult) turnsPerMin() float64 { return float64(r.turns) / r.wall.Minutes() }

func (r loadResult) percentile(p float64) time.Duration {
	s := slices.Clone(r.firstTokens)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// runLoad serves chorus serve --ssh on loopback, with the controller on a
// fake OpenAI-compatible engine of slots slots (controller.max_concurrent
// matching) and a fake OpenAI-compatible expert; opens chats real
// x/crypto/ssh clients, one key each, at 80×24; and has each run turns
// turns — a plan with one expert task (summarization), then the streamed
// answer — one after the other, all chats at once. It measures each
// turn's time to its first answer token on the client's screen, the
// server's peak heap, RSS and goroutines, the heap an idle chat holds, and
// the goroutines left once every chat has closed.
func runLoad(tb testing.TB, chats, slots, turns int) loadResult {
	tb.Helper()
	dir, env := testkit.Isolate(tb)
	defaults, err := os.ReadFile("../config.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Load(defaults, "", env)
	if err != nil {
		tb.Fatal(err)
	}
	fake := fakeopenai.NewController(tb, fakeopenai.VLLM, "qwen3-8b")
	fake.SetSlots(slots)
	fake.SetLatency(loadLatency)
	fake.ForgetRequests()
	fake.OnChat(func(_ context.Context, req *fakeopenai.ChatRequest) fakeopenai.ChatReply {
		last := req.Messages[len(req.Messages)-1].Text
		tag := turnTag(last)
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			plan := `{"tasks": [{"task": "summarization", "id": 0, "dep": [-1], "args": {"text": "the notes of ` + tag + `"}}]}`
			return fakeopenai.ChatReply{Chunks: strings.SplitAfter(plan, " ")}
		}
		words := strings.Repeat(" the plan ran and the expert summarised the notes", 5)
		return fakeopenai.ChatReply{Content: "First" + tag + words + " End" + tag + "."}
	})
	experts := fakeopenai.New(tb, "bart-large-cnn")
	ctl, err := controller.New(fake.URL+"/v1", "qwen3-8b", controller.Options{Kind: "openai", MaxConcurrent: slots, Timeout: 5 * time.Minute})
	if err != nil {
		tb.Fatal(err)
	}
	cat, err := skills.Embedded()
	if err != nil {
		tb.Fatal(err)
	}
	router := endpoints.NewRouter(endpoints.ModeLocal, builtin.New(), openai.New(openai.Options{HTTPClient: &http.Client{},
		Servers: []openai.Server{{Name: "experts", URL: experts.URL, Models: map[string][]string{"summarization": {"bart-large-cnn"}}}}}))
	eng := pipeline.New(ctl, cat, router, pipeline.Options{OutputDir: filepath.Join(dir, "shared-out"), MaxParallel: 4})

	keysFile := filepath.Join(dir, "authorized_keys")
	keys := make([]gossh.Signer, chats)
	var authorized []byte
	for i := range keys {
		keys[i] = testKey(tb, byte(i+1))
		authorized = append(authorized, gossh.MarshalAuthorizedKey(keys[i].PublicKey())...)
	}
	if err := os.WriteFile(keysFile, authorized, 0o600); err != nil {
		tb.Fatal(err)
	}
	hostKeyPath := filepath.Join(dir, "data", "ssh_host_ed25519_key")
	svcOpts := conversation.Options{Engine: eng, Dir: cfg.Env.SessionsDir(), Version: "load"}
	var refused func(string)
	if os.Getenv("CHORUS_LOAD_METRICS") != "" {
		m, stop := withMetrics(tb, eng)
		defer stop()
		svcOpts.Observer, refused = m, m.Refused
	}
	svc, err := conversation.New(svcOpts)
	if err != nil {
		tb.Fatal(err)
	}
	opts := sshd.Options{Config: cfg, Service: svc, HostKey: hostKeyPath, AuthorizedKeys: keysFile,
		UsersDir: filepath.Join(dir, "users"), MaxSessions: chats, MaxUnauthenticated: 2 * chats, MaxUnauthenticatedPerSource: 2 * chats,
		Version: "load", Logger: slog.New(slog.DiscardHandler), Refused: refused}
	srv, err := sshd.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	pem, err := os.ReadFile(hostKeyPath)
	if err != nil {
		tb.Fatal(err)
	}
	hostSigner, err := gossh.ParsePrivateKey(pem)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l) }()
	defer func() {
		cancel()
		<-served
	}()

	res := loadResult{chats: chats, slots: slots, turns: chats * turns}
	settle()
	res.goroutinesBefore = chatGoroutines()
	heapBefore := liveHeap()
	stopSampling := sample(&res)

	// Open every chat and wait for its first frame.
	clients := make([]*loadClient, chats)
	var wg sync.WaitGroup
	errs := make(chan error, chats)
	for i := range clients {
		wg.Go(func() {
			c, err := dialChat(l.Addr().String(), hostSigner.PublicKey(), keys[i])
			if err == nil {
				err = c.wait("Ask anything", 2*time.Minute)
			}
			clients[i] = c
			if err != nil {
				errs <- fmt.Errorf("chat %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		tb.Fatal(err)
	default:
	}
	res.idleHeapPerChat = (float64(liveHeap()) - float64(heapBefore)) / float64(chats)

	// Every chat runs its turns, all at once.
	var mu sync.Mutex
	cpu0 := cpuTime()
	start := time.Now()
	for i, c := range clients {
		wg.Go(func() {
			for k := range turns {
				tag := fmt.Sprintf("C%dT%dZ", i, k)
				sent := time.Now()
				if err := c.send("summarise the notes " + tag + "\r"); err != nil {
					errs <- err
					return
				}
				if err := c.wait("First"+tag, 5*time.Minute); err != nil {
					errs <- fmt.Errorf("chat %d turn %d: %w", i, k, err)
					return
				}
				first := time.Since(sent)
				mu.Lock()
				res.firstTokens = append(res.firstTokens, first)
				mu.Unlock()
				// The turn has ended when the status bar says how long it
				// took ("last 1.2s" instead of the running timer).
				if err := c.wait("End"+tag, 5*time.Minute); err != nil {
					errs <- fmt.Errorf("chat %d turn %d: %w", i, k, err)
					return
				}
				if err := c.wait("last ", 5*time.Minute); err != nil {
					errs <- fmt.Errorf("chat %d turn %d end: %w", i, k, err)
					return
				}
			}
		})
	}
	wg.Wait()
	res.wall = time.Since(start)
	res.cpu = cpuTime() - cpu0
	select {
	case err := <-errs:
		tb.Fatal(err)
	default:
	}
	stopSampling()
	res.ctl = fake.Stats()
	for _, c := range clients {
		c.close()
	}
	// Every chat's goroutines end with its connection.
	deadline := time.Now().Add(30 * time.Second)
	for {
		settle()
		res.goroutinesAfter = chatGoroutines()
		if res.goroutinesAfter <= res.goroutinesBefore || time.Now().After(deadline) {
			break
		}
	}
	return res
}

// chatGoroutines counts the goroutines, less os/signal's loop: the
// process starts it once, with the first signal.Notify, and it never
// ends — not a chat's.
func chatGoroutines() int {
	buf := make([]byte, 8<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	return strings.Count("\n"+stacks, "\ngoroutine ") - strings.Count(stacks, "\nos/signal.loop()")
}

// settle lets finished goroutines exit and the idle HTTP connections close.
func settle() {
	http.DefaultClient.CloseIdleConnections()
	for range 20 {
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
}

// turnTag finds a chat's turn tag ("C3T1Z") in a stage message.
func turnTag(s string) string {
	i := strings.LastIndex(s, "summarise the notes C")
	if i < 0 {
		return ""
	}
	rest := s[i+len("summarise the notes "):]
	if j := strings.IndexByte(rest, 'Z'); j > 0 {
		return rest[:j+1]
	}
	return ""
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// sample records the peak heap, RSS and goroutines until stopped.
func sample(r *loadResult) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			r.peakHeap = max(r.peakHeap, ms.HeapInuse)
			r.peakRSS = max(r.peakRSS, testkit.RSS())
			r.peakGoroutines = max(r.peakGoroutines, runtime.NumGoroutine())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// loadClient is one user's ssh session: it types, and watches what the
// server draws for marks, escape sequences removed as they arrive.
type loadClient struct {
	client *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser

	mu   sync.Mutex
	text []byte // the drawn text since the last mark found
	seen chan struct{}
	esc  escState
}

func dialChat(addr string, hostKey gossh.PublicKey, key gossh.Signer) (*loadClient, error) {
	client, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "load", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.FixedHostKey(hostKey), Timeout: time.Minute})
	if err != nil {
		return nil, err
	}
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, err
	}
	c := &loadClient{client: client, sess: sess, seen: make(chan struct{}, 1)}
	_ = sess.Setenv("NO_COLOR", "1")
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		client.Close()
		return nil, err
	}
	sess.Stdout, sess.Stderr = c, io.Discard
	if c.stdin, err = sess.StdinPipe(); err != nil {
		client.Close()
		return nil, err
	}
	if err := sess.Shell(); err != nil {
		client.Close()
		return nil, err
	}
	return c, nil
}

// Write keeps the text of what the server draws.
func (c *loadClient) Write(p []byte) (int, error) {
	c.mu.Lock()
	for _, b := range p {
		if c.esc.printable(b) {
			c.text = append(c.text, b)
		}
	}
	c.mu.Unlock()
	select {
	case c.seen <- struct{}{}:
	default:
	}
	return len(p), nil
}

// wait blocks until mark has been drawn since the last mark found.
func (c *loadClient) wait(mark string, limit time.Duration) error {
	deadline := time.After(limit)
	for {
		c.mu.Lock()
		i := strings.Index(string(c.text), mark)
		if i >= 0 {
			c.text = c.text[i+len(mark):]
		}
		c.mu.Unlock()
		if i >= 0 {
			return nil
		}
		select {
		case <-c.seen:
		case <-deadline:
			c.mu.Lock()
			defer c.mu.Unlock()
			return fmt.Errorf("%q never appeared; the last text drawn: %q", mark, string(c.text[max(0, len(c.text)-400):]))
		}
	}
}

func (c *loadClient) send(s string) error {
	_, err := c.stdin.Write([]byte(s))
	return err
}

func (c *loadClient) close() {
	if c == nil {
		return
	}
	c.sess.Close()
	c.client.Close()
}

// escState strips escape sequences from a byte stream: CSI, OSC and the
// other string sequences, and two-byte escapes.
type escState int

const (
	escNone escState = iota
	escStart
	escCSI
	escString
	escStringEnd
)

func (s *escState) printable(b byte) bool {
	switch *s {
	case escStart:
		switch b {
		case '[':
			*s = escCSI
		case ']', 'P', 'X', '^', '_':
			*s = escString
		default:
			*s = escNone
		}
		return false
	case escCSI:
		if b >= 0x40 && b <= 0x7e {
			*s = escNone
		}
		return false
	case escString:
		switch b {
		case 0x07:
			*s = escNone
		case 0x1b:
			*s = escStringEnd
		}
		return false
	case escStringEnd:
		*s = escNone
		return false
	}
	if b == 0x1b {
		*s = escStart
		return false
	}
	return b >= 0x20 || b >= 0x80
}

// TestSSHLoadLeavesNothingBehind runs a small load — four chats of two
// turns on two controller slots — and checks that every turn answered
// and that closing the chats leaves no goroutine behind.
func TestSSHLoadLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("a load run")
	}
	r := runLoad(t, 4, 2, 2)
	if len(r.firstTokens) != 8 || r.ctl.PeakActive > 2 {
		t.Fatalf("%d turns answered, %d controller calls at once (2 slots)", len(r.firstTokens), r.ctl.PeakActive)
	}
	if r.goroutinesAfter > r.goroutinesBefore {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before the chats, %d after they closed:\n%s", r.goroutinesBefore, r.goroutinesAfter, buf[:runtime.Stack(buf, true)])
	}
}

// BenchmarkSSHLoad is the load benchmark of docs/deploy.md: N ssh chats of
// three turns each against a controller with K = 4 slots.
//
//	go test ./sshd -run '^$' -bench SSHLoad -benchtime 1x -timeout 30m
//
// CHORUS_LOAD_CHATS lists the chat counts (default 1,8,32,64).
// CHORUS_LOAD_METRICS=1 serves the metrics (serve.metrics) and scrapes
// them every second meanwhile, as a demanding Prometheus would: what
// they cost.
func BenchmarkSSHLoad(b *testing.B) {
	counts := []int{1, 8, 32, 64}
	if s := os.Getenv("CHORUS_LOAD_CHATS"); s != "" {
		counts = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatal(err)
			}
			counts = append(counts, n)
		}
	}
	const slots, turns = 4, 3
	for _, n := range counts {
		b.Run(fmt.Sprintf("chats=%d", n), func(b *testing.B) {
			for range b.N {
				r := runLoad(b, n, slots, turns)
				b.ReportMetric(r.turnsPerMin(), "turns/min")
				b.ReportMetric(100*r.turnsPerMin()/r.idealTurnsPerMin(), "%-of-slots")
				b.ReportMetric(r.percentile(0.5).Seconds(), "s-first-p50")
				b.ReportMetric(r.percentile(0.95).Seconds(), "s-first-p95")
				b.ReportMetric(float64(r.peakHeap)/1e6, "MB-peak-heap")
				b.ReportMetric(float64(r.peakRSS)/1e6, "MB-peak-rss")
				b.ReportMetric(r.idleHeapPerChat/1e6, "MB/idle-chat")
				b.ReportMetric(float64(r.peakGoroutines), "goroutines-peak")
				b.ReportMetric(float64(r.goroutinesAfter-r.goroutinesBefore), "goroutines-left")
				b.ReportMetric(r.ctl.Busy.Seconds()/float64(r.turns), "s-controller/turn")
				b.ReportMetric(r.cpu.Seconds()/float64(r.turns), "cpu-s/turn")
			}
		})
	}
}

// withMetrics are the metrics chorus serve --metrics gives a server on
// eng — the chat services' observer, the refusals, the controller queue —
// scraped every second until stopped, as a Prometheus with a 1 s scrape
// interval would.
func withMetrics(tb testing.TB, eng *pipeline.Engine) (*metrics.Metrics, func()) {
	m := metrics.New(metrics.Options{RefusalReasons: sshd.RefusalReasons()})
	m.Watch(eng)
	ts := httptest.NewServer(m.Handler())
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if _, err := scrape.Get(ts.URL + "/metrics"); err != nil {
					tb.Error(err)
				}
			}
		}
	})
	return m, func() {
		close(done)
		wg.Wait()
		ts.Close()
	}
}
