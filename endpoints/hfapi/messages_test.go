package hfapi

import (
	"testing"
)

func TestMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error": "Model x is currently loading"}`: "Model x is currently loading",
		`{"error": ["a", "b"]}`:                     "a; b",
		`{"error": {"message": "deep"}}`:            "deep",
		`{"detail": "Not Found"}`:                   "Not Found",
		`<!doctype html><title>502</title>`:         "",
		"upstream connect error":                    "upstream connect error",
		`{"estimated_time": 3}`:                     "",
	} {
		if got := Message([]byte(body)); got != want {
			t.Errorf("Message(%s) = %q, want %q", body, got, want)
		}
	}
}
