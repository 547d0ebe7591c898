// Package theme is how Chorus's TUI looks and which keys do what: the Lip
// Gloss styles every room draws with, and the remappable key map (the
// `ui.keys` section of the configuration). It is the bottom room of ui/:
// chat, turnview, prompt and dialog import it, and it imports none of them.
package theme
