// Package dirlock holds a folder for one process with an exclusive flock
// on the folder itself: the kernel releases it when the process ends,
// however it ends, so a crash never leaves a folder held, and a folder no
// process holds is one a dead process left. The session store's saves
// share the sessions folder's lock; each `chorus mcp serve` holds its own
// folder while it runs, so a later start can sweep the dead ones'.
//
// It builds on unix only (where there is flock); a caller's other
// platforms keep their own fallback. It imports nothing of Chorus.
package dirlock
