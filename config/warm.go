package config

import (
	"fmt"
	"strings"
)

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

// normalizeWarm reads controller.warm's spellings into auto, on or off.
func (c *Config) normalizeWarm() error {
	switch strings.ToLower(strings.TrimSpace(c.Controller.Warm)) {
	case "", "auto":
		c.Controller.Warm = "auto"
	// A YAML boolean (warm: true) reaches this string as "1" or "0".
	case "on", "true", "yes", "1":
		c.Controller.Warm = "on"
	case "off", "false", "no", "0":
		c.Controller.Warm = "off"
	default:
		return fmt.Errorf("%q is not auto, on or off", c.Controller.Warm)
	}
	return nil
}

// EarlyAnswer reports whether the answer may start while the last tasks
// still produce their files (response.early, on by default).
func (c *Config) EarlyAnswer() bool { return c.Response.Early != "off" }

// normalizeEarly reads response.early's spellings into on or off.
func (c *Config) normalizeEarly() error {
	switch strings.ToLower(strings.TrimSpace(c.Response.Early)) {
	case "", "on", "true", "yes", "1":
		c.Response.Early = "on"
	case "off", "false", "no", "0":
		c.Response.Early = "off"
	default:
		return fmt.Errorf("%q is not on or off", c.Response.Early)
	}
	return nil
}
