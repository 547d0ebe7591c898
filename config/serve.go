package config

import (
	"fmt"
	"net"
	"strings"
	"time"
)

// normalizeServeOps checks what an operator of chorus serve sets: the
// metrics listener's address and the drain's timeout.
func (c *Config) normalizeServeOps() error {
	bad := func(key, format string, args ...any) error {
		return &Error{Key: key, Source: c.File, Msg: fmt.Sprintf(format, args...)}
	}
	c.Serve.Metrics = strings.TrimSpace(c.Serve.Metrics)
	if c.Serve.Metrics != "" {
		if _, _, err := net.SplitHostPort(c.Serve.Metrics); err != nil {
			return bad("serve.metrics", "%q is not HOST:PORT (e.g. 127.0.0.1:9464; empty serves no metrics)", c.Serve.Metrics)
		}
	}
	if c.Serve.DrainTimeout < 0 || c.Serve.DrainTimeout > time.Hour {
		return bad("serve.drain_timeout", "%s is out of range (0 stops at once, up to 1h)", c.Serve.DrainTimeout)
	}
	return nil
}
