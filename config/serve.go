package config

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/chorusai/chorus/skills"
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
	return c.normalizeBounds()
}

// normalizeBounds reads the disk and memory bounds: sizes as "512MB" or
// "2GB", each a bound (there is no "unbounded": raise it instead).
func (c *Config) normalizeBounds() error {
	for _, b := range []struct {
		key, value string
		into       *int64
	}{
		{"spill_quota", c.SpillQuota, &c.SpillQuotaBytes},
		{"serve.spill_quota", c.Serve.SpillQuota, &c.Serve.SpillQuotaBytes},
		{"serve.mcp_quota", c.Serve.MCPQuota, &c.Serve.MCPQuotaBytes},
		{"serve.mcp_big_body", c.Serve.MCPBigBody, &c.Serve.MCPBigBodyBytes},
	} {
		n, err := parseBytes(b.value)
		if err != nil {
			return c.bad(b.key, "%v", err)
		}
		*b.into = n
	}
	if c.Serve.MCPBigCalls < 1 || c.Serve.MCPBigCalls > 1024 {
		return c.bad("serve.mcp_big_calls", "%d is out of range (1 to 1024)", c.Serve.MCPBigCalls)
	}
	if c.Serve.MCPBigWait < time.Second || c.Serve.MCPBigWait > time.Hour {
		return c.bad("serve.mcp_big_wait", "%s is out of range (1s to 1h)", c.Serve.MCPBigWait)
	}
	return nil
}

// parseBytes reads a size in bytes: 512MB, 2GB, 1.5GiB.
func parseBytes(s string) (int64, error) {
	l, err := skills.ParseLimit(s)
	switch {
	case err != nil && strings.TrimSpace(s) == "":
		return 0, errors.New("is empty; give a size such as 512MB or 2GB")
	case err != nil:
		return 0, err
	case l.Bytes == 0:
		return 0, fmt.Errorf("%q is a count, not a size: write it with B (512MB, 2GB)", s)
	}
	return l.Bytes, nil
}
