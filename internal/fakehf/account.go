package fakehf

import (
	"net/http"
	"sort"
	"strings"
)

// The Hub's account route and the router's model list, as chorus doctor
// reads them.

// serveWhoami answers the Hub's GET /api/whoami-v2: who the bearer token
// belongs to, or 401 with the Hub's words for a missing or wrong token.
// With no token required (RequireToken), any token is a user's.
func (s *Server) serveWhoami(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	token := s.token
	s.mu.Unlock()
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch {
	case r.Method != http.MethodGet:
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	case !ok || got == "":
		writeError(w, http.StatusUnauthorized, "Invalid username or password.")
	case token != "" && got != token:
		writeError(w, http.StatusUnauthorized, "Invalid credentials in Authorization header")
	default:
		writeJSON(w, http.StatusOK, map[string]any{
			"type": "user", "id": "64b7d0c0e1a2b3c4d5e6f708", "name": "chorus-tester", "fullname": "Chorus Tester",
			"isPro": false, "orgs": []any{},
			"auth": map[string]any{"type": "access_token", "accessToken": map[string]any{
				"displayName": "chorus", "role": "read", "createdAt": "2026-01-05T10:00:00.000Z"}},
		})
	}
}

// serveRouterModels answers the router's GET /v1/models: the models its
// providers serve for chat, each with its providers and their status, in
// the OpenAI list shape the router uses.
func (s *Server) serveRouterModels(w http.ResponseWriter) {
	s.mu.Lock()
	var data []map[string]any
	for hub, pms := range s.mapping {
		var providers []map[string]any
		for _, pm := range pms {
			pm.mu.Lock()
			st := pm.state
			pm.mu.Unlock()
			if st.task != "conversational" && st.task != "text-generation" {
				continue
			}
			providers = append(providers, map[string]any{"provider": st.provider, "status": st.status, "supports_tools": true})
		}
		if len(providers) > 0 {
			owner, _, _ := strings.Cut(hub, "/")
			data = append(data, map[string]any{"id": hub, "object": "model", "created": 1736000000, "owned_by": owner, "providers": providers})
		}
	}
	s.mu.Unlock()
	sort.Slice(data, func(i, j int) bool { return data[i]["id"].(string) < data[j]["id"].(string) })
	if data == nil {
		data = []map[string]any{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
