package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/builtin"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/endpoints/huggingface"
	"github.com/chorusai/chorus/endpoints/local"
	"github.com/chorusai/chorus/endpoints/ollama"
	"github.com/chorusai/chorus/endpoints/openai"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/internal/fakehf"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/internal/fakeopenai"
	"github.com/chorusai/chorus/skills"
)

// TestCatalogReach counts, for the serving stacks a user may have, how
// many of the catalog's skills have a runnable candidate — by an expert,
// and counting the skills the controller may do itself — and logs the
// table (go test -v -run TestCatalogReach ./pipeline/). Nothing is
// installed for real: programs are "found", servers are the fakes with
// their models loaded, the Hugging Face check is offline. It fails when a
// skill is reachable on no stack at all, or a stack reaches less than one
// it contains.
func TestCatalogReach(t *testing.T) {
	t.Parallel()
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctl, _ := controller.New("http://127.0.0.1:1", "ctl", controller.Options{Timeout: time.Second})

	found := func(name string) (string, error) { return "/usr/bin/" + filepath.Base(name), nil }
	programs := func() endpoints.Endpoint { return command.New(command.Options{LookPath: found}) }
	hf := func() endpoints.Endpoint {
		return huggingface.New(huggingface.Options{Token: "hf_x", BaseURL: "http://127.0.0.1:1/unused"})
	}
	wiki := func() endpoints.Endpoint {
		return retrieval.New(retrieval.Options{WikipediaURL: retrieval.DefaultWikipediaURL})
	}
	// models_server with every model models_server.py loads.
	j := fakehf.NewJarvis(t)
	for id, task := range fakehf.JarvisServed {
		j.Model(id, task)
	}
	jarvis := func() endpoints.Endpoint {
		return local.New(local.Options{URL: j.URL, Protocol: local.ProtocolJarvis, CheckTTL: time.Hour})
	}
	// A LocalAI-style OpenAI-compatible server on this machine serving
	// every task the kind has a route for, one model each.
	models := map[string][]string{}
	var ids []string
	for _, task := range openai.Tasks() {
		id := "local-" + task
		models[task] = []string{id}
		ids = append(ids, id)
	}
	oa := fakeopenai.New(t, ids...)
	openAI := func() endpoints.Endpoint {
		return openai.New(openai.Options{Servers: []openai.Server{{Name: "localai", URL: oa.URL, Models: models}}})
	}
	// Ollama with a vision model and a chat model pulled.
	oll := fakeollama.New(t)
	oll.AddModel(fakeollama.Model{Name: "qwen2.5vl:7b", Capabilities: []string{fakeollama.CapCompletion, fakeollama.CapVision}})
	oll.AddModel(fakeollama.Model{Name: "qwen3:8b", Capabilities: []string{fakeollama.CapCompletion}})
	ollamaEP := func() endpoints.Endpoint { return ollama.New(ollama.Options{Host: oll.URL}) }
	// A server speaking the Inference API's payloads (protocol hf) with
	// every local model of the catalog loaded.
	hfSrv := fakehf.New(t)
	for _, s := range cat.All() {
		for _, m := range s.Models {
			if m.ServedBy(skills.EndpointLocal) {
				hfSrv.Model(m.ID, s.Name)
			}
		}
	}
	hfLocal := func() endpoints.Endpoint {
		return local.New(local.Options{URL: hfSrv.URL, Protocol: local.ProtocolHF, CheckTTL: time.Hour})
	}
	searx := func() endpoints.Endpoint {
		return retrieval.New(retrieval.Options{SearxNGURL: "http://127.0.0.1:8888"})
	}

	stacks := []struct {
		name string
		mode endpoints.Mode
		eps  func() []endpoints.Endpoint
		// within lists stacks whose reach this one must include.
		within []string
	}{
		{"huggingface, with a token", endpoints.ModeHuggingFace, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), hf(), wiki()}
		}, nil},
		{"local, an OpenAI-compatible server", endpoints.ModeLocal, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), openAI()}
		}, nil},
		{"local, models_server", endpoints.ModeLocal, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), jarvis()}
		}, nil},
		{"local, an hf-protocol server", endpoints.ModeLocal, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), hfLocal()}
		}, nil},
		{"offline: built-ins and programs", endpoints.ModeLocal, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), programs()}
		}, nil},
		{"offline, with Ollama experts", endpoints.ModeLocal, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), programs(), ollamaEP()}
		}, []string{"offline: built-ins and programs"}},
		{"local, everything (OpenAI-compatible, models_server, Ollama, programs, SearxNG)", endpoints.ModeLocal, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), programs(), openAI(), jarvis(), ollamaEP(), searx()}
		}, []string{"local, an OpenAI-compatible server", "local, models_server", "offline, with Ollama experts"}},
		{"hybrid, everything", endpoints.ModeHybrid, func() []endpoints.Endpoint {
			return []endpoints.Endpoint{builtin.New(), programs(), openAI(), jarvis(), ollamaEP(), hf(), wiki()}
		}, []string{"huggingface, with a token", "local, an OpenAI-compatible server", "local, models_server"}},
	}
	total := len(cat.Names())
	reach := map[string][]string{}
	var lines []string
	for _, st := range stacks {
		var expert, withController []string
		for _, controllerTasks := range []bool{false, true} {
			e := New(ctl, cat, endpoints.NewRouter(st.mode, st.eps()...), Options{ControllerTasks: controllerTasks})
			runnable, _ := e.availability(ctx)
			var names []string
			for _, s := range runnable {
				names = append(names, s.Name)
			}
			if controllerTasks {
				withController = names
			} else {
				expert = names
			}
		}
		reach[st.name] = expert
		lines = append(lines, fmt.Sprintf("%-80s %2d of %d by an expert, %2d with the controller's own", st.name+":", len(expert), total, len(withController)))
	}
	t.Logf("skills with a runnable candidate:\n%s", strings.Join(lines, "\n"))
	for _, st := range stacks {
		for _, sub := range st.within {
			for _, name := range reach[sub] {
				if !slices.Contains(reach[st.name], name) {
					t.Errorf("%s reaches %s, but %q, which contains it, does not", sub, name, st.name)
				}
			}
		}
	}
	// Every skill of the catalog runs on some real serving stack.
	for _, name := range cat.Names() {
		if !slices.ContainsFunc(stacks, func(st struct {
			name   string
			mode   endpoints.Mode
			eps    func() []endpoints.Endpoint
			within []string
		}) bool {
			return slices.Contains(reach[st.name], name)
		}) {
			t.Errorf("skill %s has a runnable candidate on no serving stack", name)
		}
	}
	for _, st := range stacks {
		var missing []string
		for _, name := range cat.Names() {
			if !slices.Contains(reach[st.name], name) {
				missing = append(missing, name)
			}
		}
		t.Logf("%s — not reached: %s", st.name, strings.Join(missing, ", "))
	}
}
