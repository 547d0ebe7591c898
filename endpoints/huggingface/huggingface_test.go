package huggingface

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/endpointstest"
	"github.com/chorusai/chorus/endpoints/hfapi"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/testkit"
	"github.com/chorusai/chorus/skills"
)

func hfMustJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body %q is not a JSON object: %v", b, err)
	}
	return m
}

func hfB64File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(data)
}

// TestHFTaskShapes runs every catalog task through the fake server and
// checks the request the server received and the Result built from its
// answer.
func TestHFTaskShapes(t *testing.T) {
	f := testkit.WriteInputs(t)
	rawImage := func(t *testing.T, r fakehf.Request) {
		if ct := r.Headers.Get("Content-Type"); ct != "image/png" {
			t.Errorf("Content-Type = %q, want image/png", ct)
		}
		testkit.SameFile(t, r.Body, f.PNG)
	}
	jsonBody := func(want func(*testing.T, map[string]any)) func(*testing.T, fakehf.Request) {
		return func(t *testing.T, r fakehf.Request) {
			if ct := r.Headers.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			want(t, hfMustJSON(t, r.Body))
		}
	}
	inputsText := func(want string) func(*testing.T, fakehf.Request) {
		return jsonBody(func(t *testing.T, m map[string]any) {
			if m["inputs"] != want {
				t.Errorf("inputs = %#v, want %q", m["inputs"], want)
			}
			if _, ok := m["parameters"]; ok {
				t.Errorf("unexpected parameters: %v", m["parameters"])
			}
		})
	}
	equalJSON := func(t *testing.T, got any, want string) {
		t.Helper()
		g, _ := json.Marshal(got)
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		wb, _ := json.Marshal(w)
		if string(g) != string(wb) {
			t.Errorf("got %s, want %s", g, wb)
		}
	}

	cases := []struct {
		task    string
		args    map[string]string
		route   string
		request func(*testing.T, fakehf.Request)
		result  func(*testing.T, endpoints.Result)
	}{
		{"text-classification", map[string]string{"text": "I hate rain"}, "", inputsText("I hate rain"),
			endpointstest.WantText("NEGATIVE (1.00), POSITIVE (0.00)")},
		{"token-classification", map[string]string{"text": "Sarah lives in London"}, "", inputsText("Sarah lives in London"),
			endpointstest.WantText("Sarah (PER 0.99), London (PER 0.99)")},
		{"text2text-generation", map[string]string{"text": "fix: teh cat"}, "", inputsText("fix: teh cat"),
			endpointstest.WantText("generated from: fix: teh cat")},
		{"summarization", map[string]string{"text": "First point. Second point."}, "", inputsText("First point. Second point."),
			endpointstest.WantText("First point.")},
		{"translation", map[string]string{"text": "hello", "src_lang": "en", "tgt_lang": "de"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":"hello","parameters":{"src_lang":"en","tgt_lang":"de"}}`)
			}), endpointstest.WantText("[en→de] HELLO")},
		{"translation", map[string]string{"text": "hello"}, "", inputsText("hello"), endpointstest.WantText("HELLO")},
		{"question-answering", map[string]string{"text": "Where does Sarah live?", "context": "Sarah lives in London"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":{"question":"Where does Sarah live?","context":"Sarah lives in London"}}`)
			}), endpointstest.WantText("lives (0.91)")},
		{"conversational", map[string]string{"text": "hi there"}, "/v1/chat/completions",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"model":"m/conversational","messages":[{"role":"user","content":"hi there"}]}`)
			}), endpointstest.WantText("You said: hi there")},
		{"text-generation", map[string]string{"text": "Once upon a time"}, "/v1/chat/completions",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"model":"m/text-generation","messages":[{"role":"user","content":"Once upon a time"}]}`)
			}), endpointstest.WantText("You said: Once upon a time")},
		{"sentence-similarity", map[string]string{"text": "a cat sits", "sentences": "a cat sits\n\na dog runs\n"}, "/pipeline/sentence-similarity",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":{"source_sentence":"a cat sits","sentences":["a cat sits","a dog runs"]}}`)
			}), endpointstest.WantText("\"a cat sits\": 1.00\n\"a dog runs\": 0.20")},
		{"tabular-classification", map[string]string{"text": "alcohol,acidity\n12.1,0.5\n9.8,0.7"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":{"data":{"alcohol":["12.1","9.8"],"acidity":["0.5","0.7"]}}}`)
			}), endpointstest.WantText("row 1: 0, row 2: 1")},
		{"tabular-classification", map[string]string{"text": `[{"alcohol": 12.1, "acidity": "0.5"}, {"alcohol": 9.8, "acidity": "0.7"}]`}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":{"data":{"alcohol":["12.1","9.8"],"acidity":["0.5","0.7"]}}}`)
			}), endpointstest.WantText("row 1: 0, row 2: 1")},
		{"image-to-text", map[string]string{"image": f.PNG}, "", rawImage,
			endpointstest.WantText("a 40x30 photo of a cat sitting on a sofa")},
		{"image-classification", map[string]string{"image": f.PNG}, "", rawImage,
			endpointstest.WantText("tabby, tabby cat (0.70), Egyptian cat (0.21), tiger cat (0.06), remote control (0.02), sofa (0.01)")},
		{"object-detection", map[string]string{"image": f.PNG}, "", rawImage,
			endpointstest.WantText("2 objects: cat (1.00) at [0,0,20,30], remote (0.87) at [20,15,39,29]")},
		{"depth-estimation", map[string]string{"image": f.PNG}, "", rawImage,
			func(t *testing.T, r endpoints.Result) {
				endpointstest.WantBlob("image/png", testkit.ImageSize(40, 30))(t, r)
				if string(r.Data) != `{"depth_blob":0}` {
					t.Errorf("Data = %s", r.Data)
				}
			}},
		{"image-segmentation", map[string]string{"image": f.PNG}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				if m["inputs"] != hfB64File(t, f.PNG) {
					t.Errorf("inputs is not the base64 image")
				}
			}),
			func(t *testing.T, r endpoints.Result) {
				if r.Text != "2 segments: cat (0.99), couch (0.95)" {
					t.Errorf("Text = %q", r.Text)
				}
				if len(r.Blobs) != 2 || r.Blobs[0].MIME != "image/png" || r.Blobs[1].MIME != "image/png" {
					t.Fatalf("Blobs = %v, want two PNG masks", endpointstest.BlobTypes(r))
				}
				testkit.ImageSize(40, 30)(t, r.Blobs[1].Data)
				// Data keeps the masks with their labels, for Annotate.
				var segs []struct{ Label, Mask string }
				if err := json.Unmarshal(r.Data, &segs); err != nil || len(segs) != 2 || segs[1].Label != "couch" {
					t.Fatalf("Data = %.200s, want the server's segments", r.Data)
				}
				if m, _ := base64.StdEncoding.DecodeString(segs[1].Mask); !bytes.Equal(m, r.Blobs[1].Data) {
					t.Error("Blobs are not the masks of Data, in order")
				}
			}},
		{"image-to-image", map[string]string{"image": f.PNG}, "", rawImage, endpointstest.WantBlob("image/png", testkit.ImageSize(40, 30))},
		{"image-to-image", map[string]string{"image": f.PNG, "text": "make it snowy"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":"`+hfB64File(t, f.PNG)+`","parameters":{"prompt":"make it snowy"}}`)
			}), endpointstest.WantBlob("image/png", testkit.ImageSize(40, 30))},
		{"image-editing", map[string]string{"image": f.PNG, "text": "add a hat"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":"`+hfB64File(t, f.PNG)+`","parameters":{"prompt":"add a hat"}}`)
			}), endpointstest.WantBlob("image/png", testkit.ImageSize(40, 30))},
		{"zero-shot-image-classification", map[string]string{"image": f.PNG, "labels": "cat, dog,"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":"`+hfB64File(t, f.PNG)+`","parameters":{"candidate_labels":["cat","dog"]}}`)
			}), endpointstest.WantText("cat (0.70), dog (0.30)")},
		{"zero-shot-object-detection", map[string]string{"image": f.PNG, "labels": "cat,dog"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":"`+hfB64File(t, f.PNG)+`","parameters":{"candidate_labels":["cat","dog"]}}`)
			}), endpointstest.WantText("2 objects: cat (0.90) at [0,0,39,29], dog (0.80) at [1,1,38,28]")},
		{"visual-question-answering", map[string]string{"image": f.PNG, "text": "what is this?"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":{"image":"`+hfB64File(t, f.PNG)+`","question":"what is this?"}}`)
			}), endpointstest.WantText("a cat (40x30 image) (0.93)")},
		{"document-question-answering", map[string]string{"image": f.PNG, "text": "what is the total?"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":{"image":"`+hfB64File(t, f.PNG)+`","question":"what is the total?"}}`)
			}), endpointstest.WantText("page 40x30 (0.87)")},
		{"mask-generation", map[string]string{"image": f.PNG}, "", rawImage,
			func(t *testing.T, r endpoints.Result) {
				if r.Text != "1 segment: mask (0.97)" || len(r.Blobs) != 1 {
					t.Errorf("Text = %q, %d blobs", r.Text, len(r.Blobs))
				}
			}},
		{"mask-generation", map[string]string{"image": f.PNG, "point": "3, 4", "box": "0,0,10,12"}, "",
			jsonBody(func(t *testing.T, m map[string]any) {
				equalJSON(t, m, `{"inputs":"`+hfB64File(t, f.PNG)+`","parameters":{"input_points":[[[3,4]]],"input_boxes":[[0,0,10,12]]}}`)
			}),
			func(t *testing.T, r endpoints.Result) {
				if len(r.Blobs) != 1 || r.Blobs[0].MIME != "image/png" {
					t.Errorf("Blobs = %v", endpointstest.BlobTypes(r))
				}
			}},
		{"text-to-image", map[string]string{"text": "a red fox"}, "", inputsText("a red fox"),
			endpointstest.WantBlob("image/jpeg", testkit.ImageSize(9, 8))},
		{"text-to-speech", map[string]string{"text": "hello"}, "", inputsText("hello"),
			endpointstest.WantBlob("audio/wav", func(t *testing.T, b []byte) {
				if n, _, err := fakehf.WAVInfo(b); err != nil || n != 5*160 {
					t.Errorf("WAV has %d samples (%v), want %d", n, err, 5*160)
				}
			})},
		{"text-to-video", map[string]string{"text": "a dancing fox"}, "", inputsText("a dancing fox"),
			endpointstest.WantBlob("video/mp4", func(t *testing.T, b []byte) {
				if !bytes.Contains(b, []byte("a dancing fox")) {
					t.Error("video does not carry the prompt")
				}
			})},
		{"automatic-speech-recognition", map[string]string{"audio": f.WAV}, "",
			func(t *testing.T, r fakehf.Request) {
				if ct := r.Headers.Get("Content-Type"); ct != "audio/wav" {
					t.Errorf("Content-Type = %q", ct)
				}
				testkit.SameFile(t, r.Body, f.WAV)
			}, endpointstest.WantText("hello from 0.50 seconds of audio")},
		{"audio-classification", map[string]string{"audio": f.WAV}, "",
			func(t *testing.T, r fakehf.Request) { testkit.SameFile(t, r.Body, f.WAV) },
			endpointstest.WantText("Speech (0.70), Music (0.21), Silence (0.09)")},
		{"audio-to-audio", map[string]string{"audio": f.WAV}, "",
			func(t *testing.T, r fakehf.Request) { testkit.SameFile(t, r.Body, f.WAV) },
			func(t *testing.T, r endpoints.Result) {
				endpointstest.WantBlob("audio/wav", func(t *testing.T, b []byte) {
					if n, _, err := fakehf.WAVInfo(b); err != nil || n != 8000 {
						t.Errorf("WAV has %d samples (%v)", n, err)
					}
				})(t, r)
				if !strings.Contains(r.Text, "speech_enhanced") || bytes.Contains(r.Data, []byte(`"blob":`)) {
					t.Errorf("Text = %q, Data = %s", r.Text, r.Data)
				}
			}},
		{"video-classification", map[string]string{"video": f.MP4}, "",
			func(t *testing.T, r fakehf.Request) {
				if ct := r.Headers.Get("Content-Type"); ct != "video/mp4" {
					t.Errorf("Content-Type = %q", ct)
				}
				testkit.SameFile(t, r.Body, f.MP4)
			}, endpointstest.WantText("playing guitar (0.70), singing (0.21), dancing (0.09)")},
	}

	srv := fakehf.New(t)
	srv.RequireToken("hf_test")
	ep := New(Options{BaseURL: srv.URL, Token: "hf_test"})
	covered := map[string]bool{}
	for i, tc := range cases {
		model := "m/" + tc.task
		if tc.task == "image-to-image" || tc.task == "mask-generation" || tc.task == "translation" || tc.task == "tabular-classification" {
			model += "-" + string(rune('a'+i))
		}
		covered[tc.task] = true
		t.Run(model, func(t *testing.T) {
			srv.Model(model, tc.task)
			res, err := ep.Infer(context.Background(), endpointstest.Request(t, tc.task, model, tc.args))
			if err != nil {
				t.Fatalf("Infer: %v", err)
			}
			reqs := srv.RequestsFor(model)
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodPost || r.Route != tc.route || r.Headers.Get("Authorization") != "Bearer hf_test" {
				t.Errorf("request %s %s route %q auth %q", r.Method, r.Path, r.Route, r.Headers.Get("Authorization"))
			}
			tc.request(t, r)
			tc.result(t, res)
		})
	}
	for _, task := range []string{"token-classification", "text-classification", "text2text-generation", "summarization",
		"translation", "question-answering", "conversational", "text-generation", "sentence-similarity",
		"tabular-classification", "image-to-text", "text-to-image", "visual-question-answering",
		"document-question-answering", "image-segmentation", "image-classification", "image-to-image",
		"object-detection", "depth-estimation", "text-to-speech", "automatic-speech-recognition", "audio-to-audio",
		"audio-classification", "text-to-video", "video-classification", "zero-shot-image-classification",
		"zero-shot-object-detection", "mask-generation", "image-editing"} {
		if !covered[task] {
			t.Errorf("task %s has no shape test", task)
		}
		if !hfapi.Supported(task) {
			t.Errorf("hfapi.Supported(%q) = false", task)
		}
	}
}

func newTestHF(srv *fakehf.Server, opts Options) *Endpoint {
	opts.BaseURL = srv.URL
	if opts.Token == "" {
		opts.Token = "hf_test"
	}
	if opts.Backoff == 0 {
		opts.Backoff = time.Millisecond
	}
	return New(opts)
}

func TestHFLoadingThenReady(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/sum", "summarization").LoadingFor(2, 0.02)
	var log endpointstest.ProgressLog
	res, err := newTestHF(srv, Options{MaxWait: 10 * time.Second}).Infer(context.Background(), endpointstest.Summarize("m/sum", log.Add))
	if err != nil {
		t.Fatalf("Infer: %v", err)
	}
	if res.Text != "One." {
		t.Errorf("Text = %q", res.Text)
	}
	reqs := srv.RequestsFor("m/sum")
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"", "true", "true"} {
		if got := reqs[i].Headers.Get("X-Wait-For-Model"); got != want {
			t.Errorf("request %d X-Wait-For-Model = %q, want %q", i, got, want)
		}
	}
	p := log.All()
	if len(p) != 2 {
		t.Fatalf("progress = %+v, want two loading reports", p)
	}
	for _, x := range p {
		if !strings.Contains(x.Message, "loading m/sum") || x.Wait != 20*time.Millisecond {
			t.Errorf("progress %+v, want a loading report with the estimated 20ms wait", x)
		}
	}
	if gap := reqs[1].Start.Sub(reqs[0].End); gap < 20*time.Millisecond {
		t.Errorf("retried after %v, before the estimated load time", gap)
	}
}

func TestHFLoadingGivesUpAfterMaxWait(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/sum", "summarization").LoadingFor(1000, 0.01)
	_, err := newTestHF(srv, Options{MaxWait: 60 * time.Millisecond}).Infer(context.Background(), endpointstest.Summarize("m/sum", nil))
	if !errors.Is(err, endpoints.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), "still loading") || !strings.Contains(err.Error(), "huggingface.max_wait") {
		t.Errorf("err = %q, want it to say the model is still loading and name huggingface.max_wait", err)
	}
	if n := len(srv.Requests()); n < 2 || n > 10 {
		t.Errorf("%d requests in 60ms of 10ms waits", n)
	}
	// With waiting turned off it gives up at once.
	srv.Model("m/sum2", "summarization").LoadingFor(1, 0.01)
	_, err = newTestHF(srv, Options{MaxWait: -1}).Infer(context.Background(), endpointstest.Summarize("m/sum2", nil))
	if !errors.Is(err, endpoints.ErrUnavailable) || len(srv.RequestsFor("m/sum2")) != 1 {
		t.Fatalf("err = %v after %d requests, want ErrUnavailable after 1", err, len(srv.RequestsFor("m/sum2")))
	}
}

func TestHFLoadingLongerThanDeadline(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/sum", "summarization").LoadingFor(1, 600)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := newTestHF(srv, Options{MaxWait: time.Hour}).Infer(ctx, endpointstest.Summarize("m/sum", nil))
	if !errors.Is(err, endpoints.ErrUnavailable) || time.Since(start) > 10*time.Second {
		t.Fatalf("err = %v after %v, want an immediate ErrUnavailable so another candidate can run", err, time.Since(start))
	}
}

func TestHFCancelWhileWaitingForModel(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/sum", "summarization").LoadingFor(1, 120)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reported := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := newTestHF(srv, Options{MaxWait: time.Hour}).Infer(ctx, endpointstest.Summarize("m/sum", func(endpoints.Progress) { close(reported) }))
		done <- err
	}()
	<-reported // the endpoint is now waiting out the 120 s load
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Infer did not return after cancellation")
	}
}

func TestHFCancelDuringRequest(t *testing.T) {
	srv := fakehf.New(t)
	release := srv.Model("m/sum", "summarization").Hold()
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := newTestHF(srv, Options{}).Infer(ctx, endpointstest.Summarize("m/sum", nil))
		done <- err
	}()
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if err := srv.WaitInFlight(wctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, endpoints.ErrUnreachable) {
			t.Fatalf("err = %v, want context.Canceled and not ErrUnreachable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Infer did not return after cancellation")
	}
}

func TestHFRateLimit(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/ok", "summarization").RateLimit(2)
	var log endpointstest.ProgressLog
	if _, err := newTestHF(srv, Options{Backoff: 5 * time.Millisecond}).Infer(context.Background(), endpointstest.Summarize("m/ok", log.Add)); err != nil {
		t.Fatalf("Infer: %v", err)
	}
	p := log.All()
	if len(p) != 2 || p[0].Wait != 5*time.Millisecond || p[1].Wait != 10*time.Millisecond || !strings.Contains(p[0].Message, "HTTP 429") {
		t.Fatalf("progress = %+v, want two 429 reports with doubling waits", p)
	}
	if n := len(srv.RequestsFor("m/ok")); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}

	srv.Model("m/busy", "summarization").RateLimit(100)
	_, err := newTestHF(srv, Options{MaxRetries: 2}).Infer(context.Background(), endpointstest.Summarize("m/busy", nil))
	var he *endpoints.HTTPError
	if !errors.Is(err, endpoints.ErrRateLimited) || !errors.As(err, &he) || he.Status != 429 {
		t.Fatalf("err = %v, want ErrRateLimited in an HTTPError", err)
	}
	if n := len(srv.RequestsFor("m/busy")); n != 3 {
		t.Errorf("%d requests, want 1 + 2 retries", n)
	}
}

func TestHFRetryAfterHonoured(t *testing.T) {
	srv := fakehf.New(t)
	// Retry-After: 0 must win over a one-hour backoff, which would give up.
	srv.Model("m/now", "summarization").RateLimit(1).RetryAfter(0)
	if _, err := newTestHF(srv, Options{Backoff: time.Hour}).Infer(context.Background(), endpointstest.Summarize("m/now", nil)); err != nil {
		t.Fatalf("Retry-After: 0 not honoured: %v", err)
	}
	// A Retry-After far beyond the wait budget gives up at once.
	srv.Model("m/later", "summarization").RateLimit(1).RetryAfter(3600)
	start := time.Now()
	_, err := newTestHF(srv, Options{MaxWait: time.Second}).Infer(context.Background(), endpointstest.Summarize("m/later", nil))
	if !errors.Is(err, endpoints.ErrRateLimited) || !strings.Contains(err.Error(), "1h0m0s") || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	// 18446744074 s is 2^64 ns and a little: multiplied unchecked it
	// wraps to a 0.3 s wait and a retry, instead of giving up.
	srv.Model("m/never", "summarization").RateLimit(1).RetryAfter(18446744074)
	_, err = newTestHF(srv, Options{}).Infer(context.Background(), endpointstest.Summarize("m/never", nil))
	if !errors.Is(err, endpoints.ErrRateLimited) || len(srv.RequestsFor("m/never")) != 1 {
		t.Fatalf("huge Retry-After: err = %v after %d requests, want ErrRateLimited after 1", err, len(srv.RequestsFor("m/never")))
	}
	for n, want := range map[int]time.Duration{0: time.Second, 1: 2 * time.Second, 4: 16 * time.Second, 5: maxBackoff, 70: maxBackoff, 1 << 30: maxBackoff} {
		if got := backoffFor(time.Second, n); got != want {
			t.Errorf("backoff before retry %d = %v, want %v", n, got, want)
		}
	}
}

func TestHFUnauthorized(t *testing.T) {
	srv := fakehf.New(t)
	srv.RequireToken("hf_good")
	srv.Model("m/sum", "summarization")
	_, err := newTestHF(srv, Options{Token: "hf_bad"}).Infer(context.Background(), endpointstest.Summarize("m/sum", nil))
	if !errors.Is(err, endpoints.ErrUnauthorized) {
		t.Fatalf("err = %v, want ErrUnauthorized", err)
	}
	for _, want := range []string{"rejected the token (HTTP 401)", "HF_TOKEN", "huggingface.token", "https://huggingface.co/settings/tokens"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %q, want it to mention %q", err, want)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests; a 401 must not be retried", n)
	}
	// Without any token the message says one is needed.
	ep := New(Options{BaseURL: srv.URL})
	if _, err := ep.Infer(context.Background(), endpointstest.Summarize("m/sum", nil)); !errors.Is(err, endpoints.ErrUnauthorized) || !strings.Contains(err.Error(), "needs a token") {
		t.Errorf("no token: err = %v", err)
	}
}

func TestHFForbidden(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("meta-llama/Llama-Guard", "text-classification").Gated()
	srv.Model("m/x", "text-classification").Status(403, "This authentication method does not have sufficient permissions to call Inference Providers")
	ep := newTestHF(srv, Options{})
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-classification", Model: "meta-llama/Llama-Guard", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnauthorized) || !strings.Contains(err.Error(), "gated") || !strings.Contains(err.Error(), "https://huggingface.co/meta-llama/Llama-Guard") {
		t.Errorf("gated: err = %v", err)
	}
	_, err = ep.Infer(context.Background(), endpoints.Request{Task: "text-classification", Model: "m/x", Args: map[string]string{"text": "x"}})
	if !errors.Is(err, endpoints.ErrUnauthorized) || !strings.Contains(err.Error(), "Make calls to Inference Providers") {
		t.Errorf("permission: err = %v", err)
	}
}

func TestHFNotServed(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/400", "summarization").Status(400, "Model not supported by provider hf-inference")
	srv.Model("m/410", "summarization").Status(410, "https://api-inference.huggingface.co is no longer supported. Please use https://router.huggingface.co instead.")
	ep := newTestHF(srv, Options{})
	for _, model := range []string{"m/unregistered", "m/400", "m/410"} {
		_, err := ep.Infer(context.Background(), endpointstest.Summarize(model, nil))
		var he *endpoints.HTTPError
		if !errors.Is(err, endpoints.ErrUnavailable) || !errors.As(err, &he) || !strings.Contains(err.Error(), "not served by Hugging Face's hf-inference provider") {
			t.Errorf("%s: err = %v, want ErrUnavailable naming the provider", model, err)
		}
		if !endpoints.Retryable(err) {
			t.Errorf("%s: not retryable; the executor must try the next candidate", model)
		}
		if n := len(srv.RequestsFor(model)); n != 1 {
			t.Errorf("%s: %d requests, want no retry", model, n)
		}
	}
}

func TestHFServerErrors(t *testing.T) {
	srv := fakehf.New(t)
	srv.Model("m/flaky", "summarization").Fail(1, 502, "Bad Gateway")
	ep := newTestHF(srv, Options{})
	if _, err := ep.Infer(context.Background(), endpointstest.Summarize("m/flaky", nil)); err != nil {
		t.Fatalf("one 502 then success: %v", err)
	}
	for _, code := range []int{500, 502, 503, 504} {
		model := "m/broken" + http.StatusText(code)
		model = strings.ReplaceAll(model, " ", "")
		srv.Model(model, "summarization").Status(code, "boom")
		_, err := ep.Infer(context.Background(), endpointstest.Summarize(model, nil))
		var he *endpoints.HTTPError
		if !errors.Is(err, endpoints.ErrUnavailable) || !errors.As(err, &he) || he.Status != code || !strings.Contains(err.Error(), "boom") {
			t.Errorf("HTTP %d: err = %v, want ErrUnavailable in an HTTPError with the server's message", code, err)
		}
		if n := len(srv.RequestsFor(model)); n != 2 {
			t.Errorf("HTTP %d: %d requests, want exactly one retry", code, n)
		}
	}
	srv.Model("m/422", "summarization").Status(422, "Input validation error: inputs too long")
	if _, err := ep.Infer(context.Background(), endpointstest.Summarize("m/422", nil)); !errors.Is(err, endpoints.ErrBadInput) {
		t.Errorf("422: err = %v, want ErrBadInput", err)
	}
}

func TestHFUnreachable(t *testing.T) {
	srv := fakehf.New(t)
	base := srv.URL
	srv.Close()
	_, err := New(Options{BaseURL: base, Token: "hf_x"}).Infer(context.Background(), endpointstest.Summarize("m/sum", nil))
	if !errors.Is(err, endpoints.ErrUnreachable) || !strings.Contains(err.Error(), base) || !strings.Contains(err.Error(), "huggingface.base_url") {
		t.Fatalf("err = %v, want ErrUnreachable naming %s and the setting", err, base)
	}
}

func TestHFBadInput(t *testing.T) {
	srv := fakehf.New(t)
	f := testkit.WriteInputs(t)
	ep := newTestHF(srv, Options{})
	missing := filepath.Join(t.TempDir(), "gone.png")
	cases := []struct {
		task string
		args map[string]string
		want string
	}{
		// A path the executor could not hand over as a file is refused
		// without the endpoint learning whether it exists.
		{"image-to-text", map[string]string{"image": missing}, "argument image (" + missing + ") was not given as a file this turn may read"},
		{"image-to-text", map[string]string{}, `"image" argument`},
		{"image-to-text", map[string]string{"image": t.TempDir()}, "is a directory"},
		{"image-to-text", map[string]string{"image": f.Text}, "not image"},
		{"image-to-text", map[string]string{"image": "https://example.com/cat.png"}, "is a URL"},
		{"automatic-speech-recognition", map[string]string{"audio": f.PNG}, "not audio"},
		{"summarization", map[string]string{"text": "  "}, `"text" argument`},
		{"question-answering", map[string]string{"text": "who?"}, `"context" argument`},
		{"sentence-similarity", map[string]string{"text": "a"}, `"sentences" argument`},
		{"zero-shot-image-classification", map[string]string{"image": f.PNG, "labels": " , "}, `"labels" argument`},
		{"image-editing", map[string]string{"image": f.PNG}, "edit instruction"},
		{"mask-generation", map[string]string{"image": f.PNG, "point": "3"}, "point"},
		{"mask-generation", map[string]string{"image": f.PNG, "box": "1,2,x,4"}, `"x" is not a number`},
		{"tabular-classification", map[string]string{"text": "just a header"}, "header row"},
		{"tabular-classification", map[string]string{"text": `{"a": [1], "b": [1, 2]}`}, "has"},
	}
	for _, tc := range cases {
		srv.Model("m/"+tc.task, tc.task)
		_, err := ep.Infer(context.Background(), endpointstest.Request(t, tc.task, "m/"+tc.task, tc.args))
		if !errors.Is(err, endpoints.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err = %v, want ErrBadInput mentioning %q", tc.task, tc.args, err, tc.want)
		}
		if endpoints.Retryable(err) {
			t.Errorf("%s: bad input must not be retried on another model", tc.task)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
	if _, err := ep.Infer(context.Background(), endpoints.Request{Task: "summarization", Model: "../../etc", Args: map[string]string{"text": "x"}}); !errors.Is(err, endpoints.ErrBadInput) {
		t.Errorf("path-escaping model id: err = %v", err)
	}
}

func TestHFUnsupportedTasks(t *testing.T) {
	srv := fakehf.New(t)
	ep := newTestHF(srv, Options{})
	for _, task := range []string{"canny-control", "openpose-text-to-image", "time-travel"} {
		_, err := ep.Infer(context.Background(), endpoints.Request{Task: task, Model: "m/x", Args: map[string]string{"text": "x", "image": "x"}})
		if !errors.Is(err, endpoints.ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", task, err)
		}
		if err := ep.Check(context.Background(), task, "m/x"); !errors.Is(err, endpoints.ErrUnsupported) {
			t.Errorf("Check %s = %v, want ErrUnsupported", task, err)
		}
	}
	_, err := ep.Infer(context.Background(), endpoints.Request{Task: "canny-control", Model: "canny-control", Args: map[string]string{"image": "x"}})
	if !strings.Contains(err.Error(), "local.protocol: jarvis") {
		t.Errorf("ControlNet error %q does not say where it runs", err)
	}
	if !hfapi.IsControlNetTask("depth-text-to-image") || hfapi.IsControlNetTask("text-to-image") || hfapi.IsControlNetTask("depth-estimation") {
		t.Error("IsControlNetTask misclassifies")
	}
}

func TestHFCheck(t *testing.T) {
	srv := fakehf.New(t)
	err := New(Options{BaseURL: srv.URL}).Check(context.Background(), "summarization", "m/x")
	if err == nil || !errors.Is(err, endpoints.ErrUnauthorized) || !strings.HasPrefix(err.Error(), "no Hugging Face token — set HF_TOKEN or huggingface.token") {
		t.Fatalf("Check without token = %v", err)
	}
	if err := newTestHF(srv, Options{}).Check(context.Background(), "summarization", "m/x"); err != nil {
		t.Fatalf("Check with token = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("Check made %d network requests", n)
	}
	if k := New(Options{}).Kind(); k != skills.EndpointHuggingFace {
		t.Errorf("Kind = %s", k)
	}
	var _ endpoints.Endpoint = (*Endpoint)(nil)
}

func TestHFUnexpectedAnswers(t *testing.T) {
	srv := fakehf.New(t)
	ep := newTestHF(srv, Options{})
	respond := func(status int, ctype, body string) fakehf.ResponderFunc {
		return func(*http.Request, []byte) (int, string, []byte) { return status, ctype, []byte(body) }
	}
	srv.Model("m/shape", "summarization").Respond(respond(200, "application/json", `{"unexpected": true}`))
	srv.Model("m/html", "summarization").Respond(respond(200, "text/html", `<html>hi</html>`))
	srv.Model("m/err200", "summarization").Respond(respond(200, "application/json", `{"error": "CUDA out of memory"}`))
	for model, want := range map[string]string{"m/shape": "unexpected shape", "m/html": "where JSON was expected", "m/err200": "CUDA out of memory"} {
		_, err := ep.Infer(context.Background(), endpointstest.Summarize(model, nil))
		if !errors.Is(err, endpoints.ErrUnavailable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want ErrUnavailable mentioning %q", model, err, want)
		}
	}
	// Binary answers with a generic type are sniffed; depth maps come back
	// as an image body or as a bare tensor.
	f := testkit.WriteInputs(t)
	srv.Model("m/t2i", "text-to-image").Respond(func(*http.Request, []byte) (int, string, []byte) {
		return 200, "application/octet-stream", fakehf.PNG(3, 2)
	})
	res, err := ep.Infer(context.Background(), endpoints.Request{Task: "text-to-image", Model: "m/t2i", Args: map[string]string{"text": "x"}})
	if err != nil || len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" {
		t.Errorf("sniffed blob: %v %v", err, endpointstest.BlobTypes(res))
	}
	srv.Model("m/depth-img", "depth-estimation").Respond(func(*http.Request, []byte) (int, string, []byte) {
		return 200, "image/png", fakehf.PNG(4, 4)
	})
	res, err = ep.Infer(context.Background(), endpointstest.Request(t, "depth-estimation", "m/depth-img", map[string]string{"image": f.PNG}))
	if err != nil || len(res.Blobs) != 1 || res.Blobs[0].MIME != "image/png" {
		t.Errorf("depth image body: %v %v", err, endpointstest.BlobTypes(res))
	}
	srv.Model("m/depth-tensor", "depth-estimation").Respond(respond(200, "application/json", `{"predicted_depth": [[[0, 1, 2], [3, 4, 5]]]}`))
	res, err = ep.Infer(context.Background(), endpointstest.Request(t, "depth-estimation", "m/depth-tensor", map[string]string{"image": f.PNG}))
	if err != nil || len(res.Blobs) != 1 {
		t.Fatalf("depth tensor: %v %v", err, endpointstest.BlobTypes(res))
	}
	testkit.ImageSize(3, 2)(t, res.Blobs[0].Data)
	// Legacy shapes the API has used: zero-shot {labels, scores}, a bare QA object.
	srv.Model("m/zs", "zero-shot-image-classification").Respond(respond(200, "application/json", `{"labels": ["a", "b"], "scores": [0.2, 0.8]}`))
	res, err = ep.Infer(context.Background(), endpointstest.Request(t, "zero-shot-image-classification", "m/zs", map[string]string{"image": f.PNG, "labels": "a,b"}))
	if err != nil || res.Text != "b (0.80), a (0.20)" {
		t.Errorf("legacy zero-shot: %v %q", err, res.Text)
	}
}
