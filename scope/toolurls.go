package scope

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// A tool that fetches what its arguments name (a fetch server, a browser)
// reaches the network from this machine, as a built-in download does, so
// every http(s) URL in a tool's argument passes the same rule
// (CheckToolURL): a public address, unless the user typed that exact URL
// — and for a user over ssh (a confined scope) not even then, since their
// typed URL would reach the server's own network (its metrics, a cloud
// metadata service), not theirs. What a tool does with a redirect Chorus
// cannot see; the URL it is handed is the one judged.

// maxToolURLs bounds the URLs of one value that are judged; a value
// holding more is refused, not skimmed.
const maxToolURLs = 256

// containsHTTP reports whether "http" stands in v in any case, without
// copying v (a tool's argument may be megabytes).
func containsHTTP(v string) bool {
	for i := 0; i+4 <= len(v); i++ {
		if (v[i] == 'h' || v[i] == 'H') && strings.EqualFold(v[i:i+4], "http") {
			return true
		}
	}
	return false
}

// lookupTimeout bounds the look-up of one host name.
const lookupTimeout = 3 * time.Second

// urls judges every http(s) URL in v — as written, decoded, in a JSON
// string — for a tool (Reader.Tool); nothing for Chorus's own experts,
// which fetch nothing a value names.
func (g *gate) urls(v string) error {
	if !g.r.Tool || !containsHTTP(v) {
		return nil
	}
	texts := append([]string{v}, decodings(v)...)
	_ = eachJSONString(v, func(s string) error {
		texts = append(texts, s)
		texts = append(texts, decodings(s)...)
		return nil
	})
	for _, t := range texts {
		for _, u := range URLsIn(t) {
			if !once(g.urlSeen, u) {
				continue
			}
			if len(g.urlSeen) > maxToolURLs {
				return &DeniedError{What: "this argument", URL: true, Tool: true, Reason: "it holds more than " + strconv.Itoa(maxToolURLs) + " web addresses, more than Chorus checks for one call"}
			}
			if err := g.s.CheckToolURL(u); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckToolURL says whether a tool may be handed u to fetch: its host must
// be a public address — by its name, its address however written, and
// every address the name resolves to — unless the user typed that exact
// URL in a scope that is not confined. A name that does not resolve here
// passes: a tool on this machine cannot reach it either.
func (s *Scope) CheckToolURL(u string) error {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil || pu.Host == "" {
		return &DeniedError{What: u, URL: true, Tool: true, Reason: "it is not a URL Chorus can read, so where it leads cannot be checked"}
	}
	if s.root == "" {
		if key, err := normURL(u); err == nil {
			s.mu.RLock()
			why := s.urls[key]
			s.mu.RUnlock()
			if userGiven(why) {
				return nil
			}
		}
	}
	refuse := func(reason string) error {
		return &DeniedError{What: u, URL: true, Tool: true, Confined: s.root != "", Reason: reason}
	}
	host := pu.Hostname()
	if reason := hostRefusal(host); reason != "" {
		return refuse(reason)
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return nil // public, as hostRefusal found
	}
	for _, a := range s.lookup(host) {
		if reason := addrRefusal(a); reason != "" {
			return refuse("its name resolves to " + a.String() + ", and " + reason)
		}
	}
	return nil
}

// lookup resolves a host name once per scope, bounded in time; nil when
// it does not resolve.
func (s *Scope) lookup(host string) []netip.Addr {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	s.mu.RLock()
	addrs, ok := s.resolved[h]
	s.mu.RUnlock()
	if ok {
		return addrs
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	look := s.lookupIP
	if look == nil {
		look = net.DefaultResolver.LookupNetIP
	}
	addrs, _ = look(ctx, "ip", h)
	s.mu.Lock()
	if s.resolved == nil {
		s.resolved = map[string][]netip.Addr{}
	}
	if len(s.resolved) < maxSeen {
		s.resolved[h] = addrs
	}
	s.mu.Unlock()
	return addrs
}

// parseIPv4 reads host as the WHATWG URL standard (and so Node, curl and
// browsers) reads an IPv4 address: one to four parts, each decimal, octal
// (a leading 0) or hex (0x), the last filling the bytes left —
// "2130706433", "0x7f.1", "127.1" and "0177.0.0.1" are all 127.0.0.1.
func parseIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number reads one part of a WHATWG IPv4 address.
func ipv4Number(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 64)
	return n, err == nil && n <= 1<<32
}
