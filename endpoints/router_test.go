package endpoints_test

import (
	"testing"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/endpoints/retrieval"
	"github.com/chorusai/chorus/skills"
)

// TestRouterRetrievalLocality: retrieval is a web call, run in hybrid and
// huggingface modes; in local mode, or under the local-only constraint,
// only a SearxNG instance on this machine or network may run it.
func TestRouterRetrievalLocality(t *testing.T) {
	wiki := skills.Model{ID: retrieval.Wikipedia, Endpoints: []skills.EndpointKind{skills.EndpointRetrieval}}
	searx := skills.Model{ID: retrieval.SearxNG, Endpoints: []skills.EndpointKind{skills.EndpointRetrieval}}
	for _, tc := range []struct {
		mode      endpoints.Mode
		searxURL  string
		localOnly bool
		wiki, sx  bool
	}{
		{endpoints.ModeHybrid, "https://searx.example.org", false, true, true},
		{endpoints.ModeHuggingFace, "https://searx.example.org", false, true, true},
		{endpoints.ModeLocal, "https://searx.example.org", false, false, false},
		{endpoints.ModeLocal, "http://127.0.0.1:8888", false, false, true},
		{endpoints.ModeHybrid, "http://192.168.1.9:8888", true, false, true},
		{endpoints.ModeHybrid, "https://searx.example.org", true, false, false},
	} {
		r := endpoints.NewRouter(tc.mode, retrieval.New(retrieval.Options{WikipediaURL: retrieval.DefaultWikipediaURL, SearxNGURL: tc.searxURL}))
		if got := len(r.Routes(wiki, tc.localOnly)) == 1; got != tc.wiki {
			t.Errorf("%s, %s, local-only %v: Wikipedia routed %v, want %v", tc.mode, tc.searxURL, tc.localOnly, got, tc.wiki)
		}
		if got := len(r.Routes(searx, tc.localOnly)) == 1; got != tc.sx {
			t.Errorf("%s, %s, local-only %v: SearxNG routed %v, want %v", tc.mode, tc.searxURL, tc.localOnly, got, tc.sx)
		}
	}
}
