package config

import "strings"

// WarmController reports whether the controller's prompt head is
// prefilled ahead of the first request (controller.warm). Under auto it
// is for Ollama and for an OpenAI-compatible server that takes no key:
// the warm-up is a call of the whole head (~1,400 input tokens) at every
// chat's start and /model, which a hosted API with a key bills, while a
// team's own server only gains from it.
func (c *Config) WarmController() bool {
	switch c.Controller.Warm {
	case "on":
		return true
	case "off":
		return false
	}
	return c.Controller.Kind != "openai" || c.Controller.Key == ""
}

// EarlyAnswer reports whether the answer may start while the last tasks
// still produce their files (response.early, on by default).
func (c *Config) EarlyAnswer() bool { return c.Response.Early != "off" }

// spelling reads the spellings of an on/off setting (controller.warm,
// response.early) into on or off; unset is def, and auto is one only
// where def is. A YAML boolean (warm: true) reaches it as "1" or "0".
func spelling(s, def string) (string, bool) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "on", "true", "yes", "1":
		return "on", true
	case "off", "false", "no", "0":
		return "off", true
	case "", def:
		return def, true
	}
	return "", false
}
