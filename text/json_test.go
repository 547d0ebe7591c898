package text

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCleanJSON(t *testing.T) {
	in, _ := json.Marshal(map[string]any{
		"a": "safe \x1b]52;c;ZXZpbA==\a text\u202e",
		"b": []any{"x\u009b2Jy", 3, "plain <resource>-1"},
		"c": "line\nnext\ttab",
	})
	out := CleanJSON(in)
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON: %s", out)
	}
	if got["a"] != "safe  text" || got["b"].([]any)[0] != "xy" || got["c"] != "line\nnext\ttab" {
		t.Fatalf("CleanJSON = %s", out)
	}
	if !strings.HasPrefix(string(out), `{"a":`) {
		t.Fatalf("key order changed: %s", out)
	}
	clean := []byte(`{"type":"token","text":"hello \"world\" \\ ok"}`)
	if string(CleanJSON(clean)) != string(clean) {
		t.Fatal("a clean document changed")
	}
}

func FuzzCleanJSON(f *testing.F) {
	f.Add("a\x1b[2Jb", "\u202e")
	f.Fuzz(func(t *testing.T, a, b string) {
		in, _ := json.Marshal([]string{a, b})
		out := CleanJSON(in)
		var got []string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("CleanJSON(%s) = %s: %v", in, out, err)
		}
		for _, s := range got {
			if why := unsafe(s); why != "" {
				t.Fatalf("%q still holds %s", s, why)
			}
		}
	})
}
