package endpoints

import (
	"net/netip"
	"strings"
)

// sharedAddrs is 100.64.0.0/10, carrier-grade NAT space that mesh VPNs
// such as Tailscale hand out to a user's own machines.
var sharedAddrs = netip.MustParsePrefix("100.64.0.0/10")

// IsLocalHost reports whether host names this machine or a private
// network: a loopback, private (RFC 1918, fc00::/7), link-local or shared
// (100.64/10, as Tailscale uses) address, "localhost", or a name that
// cannot be a public one — a single label ("vllm" inside a cluster) or
// under .local, .lan, .internal, .home.arpa or .localhost. Any other name
// is treated as remote without resolving it: what may run under
// inference_mode local or the local-only constraint must not depend on
// what DNS says at the moment. OpenAI-compatible servers and a SearxNG
// instance for retrieval are judged by this one rule.
func IsLocalHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || sharedAddrs.Contains(a)
	}
	if host == "" {
		return false
	}
	if host == "localhost" || !strings.Contains(host, ".") {
		return true
	}
	for _, suf := range []string{".localhost", ".local", ".lan", ".internal", ".home.arpa"} {
		if strings.HasSuffix(host, suf) {
			return true
		}
	}
	return false
}
