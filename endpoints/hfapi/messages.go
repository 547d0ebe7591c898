package hfapi

import (
	"encoding/json"
	"strings"
)

// Message extracts the error message of an error body: {"error": "…"},
// {"error": ["…"]}, {"error": {"message": "…"}}, {"detail": …} or
// {"message": …}; plain text is used as it is, HTML is dropped.
func Message(body []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"error", "detail", "message"} {
			raw, ok := obj[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				return s
			}
			var list []string
			if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
				return strings.Join(list, "; ")
			}
			var nested struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(raw, &nested) == nil && nested.Message != "" {
				return nested.Message
			}
		}
		return ""
	}
	s := strings.TrimSpace(string(body))
	if strings.HasPrefix(s, "<") {
		return ""
	}
	return Snippet([]byte(s))
}

// Snippet shortens a body for error messages.
func Snippet(b []byte) string {
	const n = 200
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// errorOnly returns the message of an {"error": …} body that carries no
// result, which some servers send with HTTP 200.
func errorOnly(data []byte) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return ""
	}
	raw, ok := obj["error"]
	if !ok || string(raw) == "null" {
		return ""
	}
	for _, k := range []string{"generated_text", "text", "answer", "choices", "depth", "predicted_depth", "data"} {
		if _, has := obj[k]; has {
			return ""
		}
	}
	return Message(data)
}
