package pipeline_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/pipeline"
)

// deadRouter points the Hugging Face endpoint at an address nothing
// listens on, through a client that counts its connection attempts.
func deadRouter(t *testing.T) (addr string, dials *atomic.Int32, opt rigOption) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	dials = new(atomic.Int32)
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, a)
	}}}
	return addr, dials, withHFOptions(func(o *huggingface.Options) { o.BaseURL, o.HTTPClient = "http://"+addr, client })
}

// A router that refuses connections costs one attempt per turn: the first
// call marks its host down (one host_down event), every other candidate on
// it — the other providers of the same model, the other models, the other
// task's — is skipped without a call, and the tasks' errors say so instead
// of "all N attempts failed". The next turn tries again, once.
func TestRefusedRouterCostsOneAttemptPerTurn(t *testing.T) {
	t.Parallel()
	addr, dials, dead := deadRouter(t)
	r := newRig(t, dead, withOptions(pipeline.Options{ControllerTasks: true, MaxParallel: 1}))
	r.planJSON(task(1, "text-to-video", nil, map[string]string{"text": "a fox in the snow"}),
		task(2, "text-to-video", nil, map[string]string{"text": "a hare in the rain"}))
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "make two videos"}); err != nil {
		t.Fatal(err)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d connection attempts to the dead router in one turn, want 1", n)
	}
	downs := eventsOf[pipeline.HostDownEvent](r)
	if len(downs) != 1 || downs[0].Host != addr || downs[0].Endpoint != "huggingface" || downs[0].Reason != "connection refused" {
		t.Fatalf("host_down events %+v, want one for %s", downs, addr)
	}
	if line := pipeline.HostDownText(downs[0]); line != "Hugging Face's router is unreachable at "+addr+" (connection refused) — its other candidates are skipped this turn" {
		t.Errorf("line %q", line)
	}
	// Whichever task ran first found the router down; the other tried
	// nothing.
	first, second := r.taskEnd(1), r.taskEnd(2)
	if len(first.Attempts) == 0 {
		first, second = second, first
	}
	if first.Status != pipeline.StatusError || len(first.Attempts) != 1 || strings.Contains(first.Error, "attempts failed") ||
		!strings.Contains(first.Error, "not reachable") || !strings.Contains(first.Error, "2 candidates on "+addr+" skipped: unreachable this turn (connection refused)") {
		t.Errorf("the task that found it: %d attempts, error %q", len(first.Attempts), first.Error)
	}
	if second.Status != pipeline.StatusError || len(second.Attempts) != 0 || second.Error != "not run: 3 candidates on "+addr+" skipped: unreachable this turn (connection refused)" {
		t.Errorf("the other task: %d attempts, error %q", len(second.Attempts), second.Error)
	}

	r.evMu.Lock()
	r.events = nil
	r.evMu.Unlock()
	if _, err := r.run(context.Background(), pipeline.Turn{Request: "make two videos"}); err != nil {
		t.Fatal(err)
	}
	if n := dials.Load(); n != 2 || len(eventsOf[pipeline.HostDownEvent](r)) != 1 {
		t.Fatalf("the next turn: %d attempts in all, %d host_down events; want it tried again, once", n, len(eventsOf[pipeline.HostDownEvent](r)))
	}
}
