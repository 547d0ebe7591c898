package sshd

// Why a connection was turned away (Options.Refused; the metrics'
// chorus_ssh_refused_total). A fixed set: a reason names what happened,
// never who (no key, address or user).
const (
	// RefusedUnknownKey: the key offered is not in authorized_keys (or
	// the file cannot be read), and no other key logged in.
	RefusedUnknownKey = "unknown_key"
	// RefusedHandshakeTimeout: no login within serve.handshake_timeout.
	RefusedHandshakeTimeout = "handshake_timeout"
	// RefusedHandshakeFailed: the connection ended before a login for
	// another reason — no key offered, a password tried, a protocol
	// error, a client that gave up.
	RefusedHandshakeFailed = "handshake_failed"
	// RefusedSourceCap: serve.max_unauthenticated_per_source connections
	// from its address were already waiting to log in.
	RefusedSourceCap = "source_cap"
	// RefusedWaitingCap: serve.max_unauthenticated were waiting, and it
	// had waited longest.
	RefusedWaitingCap = "waiting_cap"
	// RefusedSessionsCap: every chat of serve.max_sessions was in use.
	RefusedSessionsCap = "sessions_cap"
	// RefusedNotAChat: a command, or a session without a terminal.
	RefusedNotAChat = "not_a_chat"
	// RefusedDraining: it logged in while the server drains before a
	// restart.
	RefusedDraining = "draining"
)

// RefusalReasons lists every reason a connection may be turned away for.
func RefusalReasons() []string {
	return []string{RefusedUnknownKey, RefusedHandshakeTimeout, RefusedHandshakeFailed, RefusedSourceCap,
		RefusedWaitingCap, RefusedSessionsCap, RefusedNotAChat, RefusedDraining}
}
