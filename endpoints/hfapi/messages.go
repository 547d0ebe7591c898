package hfapi

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/chorusai/chorus/text"
)

// Message extracts the error message of an error body: {"error": "…"},
// {"error": ["…"]}, {"error": {"message": "…"}}, {"detail": …} or
// {"message": …}; plain text is used as it is, HTML is dropped.
func Message(body []byte) string {
	var obj struct {
		Error   rawToken `json:"error"`
		Detail  rawToken `json:"detail"`
		Message rawToken `json:"message"`
	}
	if json.Unmarshal(body, &obj) == nil {
		for _, raw := range []rawToken{obj.Error, obj.Detail, obj.Message} {
			if len(raw) == 0 {
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
	s := strings.TrimSpace(string(body[:min(len(body), 4<<10)]))
	if strings.HasPrefix(s, "<") {
		return ""
	}
	return Snippet([]byte(s))
}

// Snippet shortens a body for error messages, at a character boundary.
func Snippet(b []byte) string {
	s, _ := text.ClipBytes(strings.ToValidUTF8(string(b[:min(len(b), 4<<10)]), "?"), 200)
	return s
}

// errorOnly returns the message of an {"error": …} body that carries no
// result, which some servers send with HTTP 200.
func errorOnly(data []byte) string {
	if !bytes.HasPrefix(data, []byte("{")) {
		return ""
	}
	var obj struct {
		Error rawToken `json:"error"`
		// A result beside the error means the answer is the result.
		GeneratedText  rawToken `json:"generated_text"`
		Text           rawToken `json:"text"`
		Answer         rawToken `json:"answer"`
		Choices        rawToken `json:"choices"`
		Depth          rawToken `json:"depth"`
		PredictedDepth rawToken `json:"predicted_depth"`
		Data           rawToken `json:"data"`
	}
	if json.Unmarshal(data, &obj) != nil || len(obj.Error) == 0 || string(obj.Error) == "null" {
		return ""
	}
	for _, r := range []rawToken{obj.GeneratedText, obj.Text, obj.Answer, obj.Choices, obj.Depth, obj.PredictedDepth, obj.Data} {
		if len(r) > 0 {
			return ""
		}
	}
	return Message(data)
}
