package sshd_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	gossh "golang.org/x/crypto/ssh"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
	"github.com/chorusai/chorus/internal/scrape"
	"github.com/chorusai/chorus/metrics"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
	"github.com/chorusai/chorus/sshd"
)

// streams hands each turn's answer to the test: the fake controller
// streams what the test sends on the turn's channel, and ends the answer
// when the test closes it. A turn is named by a tag in its request.
type streams struct {
	mu sync.Mutex
	ch map[string]chan string
}

func (s *streams) of(tag string) chan string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch[tag] == nil {
		s.ch[tag] = make(chan string, 16)
	}
	return s.ch[tag]
}

// scriptedTurns makes the fake controller plan one summarisation for a
// request tagged TAG-n (n a digit) and answer it from streams.of(tag).
func scriptedTurns(s *server, st *streams) {
	s.ollama.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		tag := ""
		if i := strings.LastIndex(last, "TAG-"); i >= 0 && i+5 <= len(last) {
			tag = last[i : i+5]
		}
		switch {
		case pipeline.PromptStage(last) == string(pipeline.StagePlanning):
			return fakeollama.Reply{Content: `{"tasks": [{"task": "summarization", "id": 0, "dep": [-1], "args": {"text": "the notes of ` + tag + `"}}]}`}
		case tag != "":
			return fakeollama.Reply{Stream: st.of(tag)}
		}
		return fakeollama.Reply{Content: "ok"} // the server's warm-up
	})
}

// oneSlotWithExpert is the server's engine with one controller slot and a
// summarisation expert on a fake OpenAI-compatible server.
func oneSlotWithExpert(t *testing.T) func(*sshd.Options) {
	experts := fakeopenai.New(t, "bart-large-cnn")
	return func(o *sshd.Options) {
		ctl, err := controller.New(o.Service.Engine().Controller().Host(), "qwen3:8b", controller.Options{Timeout: guard, MaxConcurrent: 1})
		if err != nil {
			t.Fatal(err)
		}
		cat, err := skills.Embedded()
		if err != nil {
			t.Fatal(err)
		}
		router := endpoints.NewRouter(endpoints.ModeLocal, builtin.New(), openai.New(openai.Options{HTTPClient: &http.Client{},
			Servers: []openai.Server{{Name: "experts", URL: experts.URL, Models: map[string][]string{"summarization": {"bart-large-cnn"}}}}}))
		eng := pipeline.New(ctl, cat, router, pipeline.Options{OutputDir: filepath.Join(t.TempDir(), "out")})
		if o.Service, err = conversation.New(conversation.Options{Engine: eng, Dir: o.Config.Env.SessionsDir(), Version: "test"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMetricsOfAScriptedTurn: Prometheus scrapes the metrics listener
// while real ssh clients chat, and every family moves — the chats and the
// turns in flight, the controller's queue (a second chat waits for the one
// slot while the first chat's answer streams), the first token, the expert
// call (its provider: the openai server's name in the config), the turns' outcomes, times and tokens, the queue's waits, and the
// logins refused (an unknown key, a silent connection past the handshake
// deadline, one chat too many).
func TestMetricsOfAScriptedTurn(t *testing.T) {
	t.Parallel()
	var m *metrics.Metrics
	s := startServer(t, 2, oneSlotWithExpert(t), func(o *sshd.Options) {
		m = metrics.New(metrics.Options{RefusalReasons: sshd.RefusalReasons()})
		m.Watch(o.Service.Engine())
		svc, err := conversation.New(conversation.Options{Engine: o.Service.Engine(), Dir: o.Config.Env.SessionsDir(), Version: "test", Observer: m})
		if err != nil {
			t.Fatal(err)
		}
		o.Service, o.Refused = svc, m.Refused
		o.HandshakeTimeout = 300 * time.Millisecond
	})
	st := &streams{ch: map[string]chan string{}}
	scriptedTurns(s, st)
	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	scrapeNow := func() scrape.Samples {
		t.Helper()
		got, err := scrape.Get(ts.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	before := scrapeNow()
	if resp, err := http.Get(ts.URL + "/readyz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz with the controller up: %v %v", resp, err)
	}

	alice, bob := testKey(t, 1), testKey(t, 2)
	s.allow(t, bob)
	ca, ta := s.open(t, alice, 100, 30)
	cb, tb := s.open(t, bob, 100, 30)
	ma, mb := ta.waitFor(t, 0, "Ask anything"), tb.waitFor(t, 0, "Ask anything")
	ta.typeText(t, "summarise the notes TAG-1\r")
	answerA := st.of("TAG-1")
	answerA <- "First words of A"
	ma = ta.waitFor(t, ma, "First words of A")
	// A's answer holds the only slot: B's plan call waits for it.
	tb.typeText(t, "summarise the notes TAG-2\r")
	mb = tb.waitFor(t, mb, "waiting for the controller")

	mid := scrapeNow()
	for series, want := range map[string]float64{"chorus_chats_active": 2, "chorus_turns_active": 2, "chorus_controller_queue_depth": 1,
		"chorus_controller_slots_busy": 1, "chorus_controller_slots": 1, "chorus_first_token_seconds_count": 1,
		`chorus_expert_calls_total{kind="openai",outcome="ok",provider="experts"}`: 1} {
		if mid[series] != want {
			t.Errorf("mid-turn %s = %v, want %v", series, mid[series], want)
		}
	}

	close(answerA)
	ta.waitFor(t, ma, "last ")
	answerB := st.of("TAG-2")
	answerB <- "B answers"
	close(answerB)
	tb.waitFor(t, mb, "B answers")
	tb.waitFor(t, mb, "last ")

	// Refusals: an unknown key; a connection that never speaks, past the
	// handshake deadline; one chat past max_sessions.
	if _, err := s.dial(gossh.PublicKeys(testKey(t, 9))); err == nil {
		t.Fatal("an unknown key logged in")
	}
	silent, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = silent.Read(make([]byte, 256)) // the server's banner, then its close at the deadline
	_, _ = silent.Read(make([]byte, 256))
	silent.Close()
	_, tc := s.open(t, testKey(t, 1), 80, 24)
	tc.waitFor(t, 0, "all 2 chats this server allows are in use")
	ca.Close()
	cb.Close()

	var after scrape.Samples
	deadline := time.Now().Add(guard)
	for {
		after = scrapeNow()
		if after["chorus_chats_active"] == 0 && after[`chorus_ssh_refused_total{reason="handshake_timeout"}`] >= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the chats close as their connections end
	}
	moved := func(series string) bool { return after[series] != before[series] || mid[series] != before[series] }
	for _, series := range []string{
		"chorus_chats_active", "chorus_turns_active", `chorus_turns_total{outcome="ok"}`, "chorus_turn_seconds_count",
		"chorus_first_token_seconds_count", "chorus_controller_queue_depth", "chorus_controller_wait_seconds_count",
		`chorus_controller_tokens_total{kind="prompt",stage="planning"}`, `chorus_controller_tokens_total{kind="prefilled",stage="planning"}`,
		`chorus_controller_tokens_total{kind="decoded",stage="response"}`,
		`chorus_expert_calls_total{kind="openai",outcome="ok",provider="experts"}`, `chorus_expert_seconds_count{kind="openai",provider="experts"}`,
		`chorus_ssh_refused_total{reason="unknown_key"}`, `chorus_ssh_refused_total{reason="handshake_timeout"}`,
		`chorus_ssh_refused_total{reason="sessions_cap"}`, "go_goroutines", "process_cpu_seconds_total",
	} {
		if !moved(series) {
			t.Errorf("%s did not move: before %v, mid-turn %v, after %v", series, before[series], mid[series], after[series])
		}
	}
	if after[`chorus_turns_total{outcome="ok"}`] != 2 || after["chorus_chats_active"] != 0 || after["chorus_turns_active"] != 0 {
		t.Errorf("after: %v turns ok, %v chats, %v turns active", after[`chorus_turns_total{outcome="ok"}`], after["chorus_chats_active"], after["chorus_turns_active"])
	}
	// Labels say kinds, never who or what: only the label names,
	// and no value is a user, a key fingerprint, a path or a request.
	fp := strings.TrimPrefix(gossh.FingerprintSHA256(alice.PublicKey()), "SHA256:")
	labelled := regexp.MustCompile(`^(chorus_\w+)\{(.*)\}$`)
	label := regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)
	allowed := map[string]bool{"outcome": true, "stage": true, "kind": true, "provider": true, "reason": true}
	for series := range after {
		for _, bad := range []string{fp, "alice", "TAG-", "sha256-", "summarise", "notes", s.users, "/"} {
			if strings.HasPrefix(series, "chorus_") && strings.Contains(series, bad) {
				t.Errorf("a label names a user, a key, a path or a request (%q): %s", bad, series)
			}
		}
		m := labelled.FindStringSubmatch(series)
		if m == nil {
			continue
		}
		for _, l := range label.FindAllStringSubmatch(m[2], -1) {
			if !allowed[l[1]] {
				t.Errorf("%s has a label %q beyond outcome, stage, kind, provider, reason", m[1], l[1])
			}
		}
	}
}
