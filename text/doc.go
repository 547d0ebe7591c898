// Package text is Chorus's one home for making outside text fit to show:
// Clean makes it safe for a terminal (and for anything a terminal will show
// later: a log, a copied answer, an exported transcript, a JSON string),
// Clip and OneLine shorten it by characters, never cutting one in half. Words splits a name or a description into
// its lower-case words, as the skills catalogue and the MCP endpoint read a
// tool's schema.
//
// Text reaches Chorus from models, servers, files and users, and every
// place that shows it goes through here, so the rules are the same in the
// TUI, the plain log, stderr, the report and the session file. The package
// imports nothing of Chorus and nothing that initialises tables at start.
package text
