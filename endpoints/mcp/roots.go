package mcp

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/scope"
)

// Where a tool reads a path, and what it may touch. A tool of a stdio
// server opens a relative path from the folder it runs in or from the
// folders its command line gives it (server-filesystem's allowed
// folders), and "~" as its HOME: Reads tells the gate (scope.GateFor),
// which judges a value from every one of them and hands the tool the
// absolute path it judged. An HTTP server's folders Chorus cannot know: a
// relative path to it is refused.
//
// Chorus also declares MCP roots and sends, before each call, the
// turn's roots — the folders it may touch (scope.Scope.Roots), with
// roots/list_changed when they change; a server that keeps to its roots
// (server-filesystem does, in place of the folders on its command line)
// is a second wall behind the gate.
//
// For a user over ssh (a confined turn) a path-taking stdio server runs
// apart for each chat (chatServer): started on first use in the chat's
// folder, with that folder in place of every folder on its command line
// and as its roots, and stopped with the chat (CloseChat) — the server
// the host's own user configured never sees their turns.

// Reads implements endpoints.PathReader.
func (e *Endpoint) Reads(model, workspace string) scope.Reader {
	s, _, ok := e.split(model)
	if !ok {
		return scope.Reader{}
	}
	if !s.cfg.Stdio() {
		return scope.Reader{Tool: true, Unknown: true}
	}
	home := serverHome(s.cfg)
	r := scope.Reader{Tool: true}
	if home != "" {
		r.Homes = []scope.Base{{Dir: home, Name: "the MCP server " + s.cfg.Name + "'s home"}}
	}
	if workspace != "" && s.pathTaking() {
		r.Dirs = []scope.Base{{Dir: workspace, Name: "the MCP server " + s.cfg.Name + "'s folder"}}
		return r
	}
	dir := s.cfg.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	r.Dirs = append(r.Dirs, scope.Base{Dir: dir, Name: "the MCP server " + s.cfg.Name + "'s folder"})
	for _, d := range folderArgs(s.cfg.Args, dir, home) {
		r.Dirs = append(r.Dirs, scope.Base{Dir: d, Name: "the MCP server " + s.cfg.Name + "'s allowed folder"})
	}
	return r
}

// serverHome is the HOME a stdio server runs with.
func serverHome(cfg Server) string {
	if h, ok := cfg.Env["HOME"]; ok {
		return h
	}
	return os.Getenv("HOME")
}

// folderArgs are the arguments of a command line that name folders (as
// "/srv/data", "~/notes", "--root=/srv"), absolute: where a server may
// resolve a relative path from.
func folderArgs(args []string, dir, home string) []string {
	var out []string
	for _, a := range args {
		for _, v := range []string{a, a[strings.IndexByte(a, '=')+1:]} {
			if d, ok := folderArg(v, dir, home); ok && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// folderArg reads one argument as a folder, from dir, "~" as home.
func folderArg(v, dir, home string) (string, bool) {
	if v == "" || strings.HasPrefix(v, "-") {
		return "", false
	}
	if (v == "~" || strings.HasPrefix(v, "~/")) && home != "" {
		v = home + v[1:]
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(dir, v)
	}
	if st, err := os.Stat(v); err != nil || !st.IsDir() {
		return "", false
	}
	return filepath.Clean(v), true
}

// pathTaking reports whether a tool of the server takes a path, by its
// schema (skills.Param.IsPath) — or, before its tools are known, that it
// may.
func (s *server) pathTaking() bool {
	tools := s.toolList()
	if tools == nil {
		return true
	}
	for _, t := range tools {
		for _, p := range toolInfo(s.cfg, t).Params {
			if p.IsPath() {
				return true
			}
		}
	}
	return false
}

// rootsAsked bounds the wait for a stdio server to ask for the roots
// Chorus has just changed; rootsTaken the wait, after it asked, for the
// line it writes once it has taken them (server-filesystem writes one
// for each list it is sent).
const (
	rootsAsked = 2 * time.Second
	rootsTaken = 500 * time.Millisecond
)

// withRoots runs call while the server keeps to roots: the roots are sent
// (roots/list_changed) when they differ from the last sent — once no call
// under other roots is in flight — and, for a stdio server, the call waits
// (bounded) until the server has asked for them and taken them. nil roots
// leave the server's as they are (no turn sent any: chorus mcp list).
func (s *server) withRoots(ctx context.Context, roots []string, call func() error) error {
	if roots == nil {
		return call()
	}
	key := strings.Join(roots, "\x00")
	for {
		s.rootsMu.RLock()
		if s.rootsKey == key {
			defer s.rootsMu.RUnlock()
			return call()
		}
		s.rootsMu.RUnlock()
		s.rootsMu.Lock()
		if s.rootsKey != key {
			s.setRoots(ctx, roots)
			s.rootsKey = key
		}
		s.rootsMu.Unlock()
	}
}

// setRoots replaces the client's roots by roots, and waits (bounded) for
// a stdio server that keeps to roots to ask for them and take them.
func (s *server) setRoots(ctx context.Context, roots []string) {
	var old []string
	for _, r := range s.sent {
		if !slices.Contains(roots, r) {
			old = append(old, rootURI(r))
		}
	}
	var add []*sdk.Root //nolint:staticcheck // roots are deprecated from protocol 2026-07-28; server-filesystem 2026.8.31 keeps to them
	for _, r := range roots {
		if !slices.Contains(s.sent, r) {
			add = append(add, &sdk.Root{URI: rootURI(r), Name: filepath.Base(r)}) //nolint:staticcheck // as above
		}
	}
	asks, _, _ := s.asked.state()
	notes := int64(0)
	// Added first: the list a server asks for in between is never empty
	// (server-filesystem keeps its previous folders on an empty one).
	if len(add) > 0 {
		s.client.AddRoots(add...) //nolint:staticcheck // roots are deprecated from protocol 2026-07-28; server-filesystem 2026.8.31 keeps to them
		notes++
	}
	if len(old) > 0 {
		s.client.RemoveRoots(old...) //nolint:staticcheck // as above
		notes++
	}
	s.sent = slices.Clone(roots)
	if _, _, seen := s.asked.state(); !s.cfg.Stdio() || !seen || notes == 0 {
		return // a server that never asked keeps to no roots: nothing to wait for
	}
	// Every request since — each answered with the list as it stands — has
	// its answer: the last list is taken (a server answers in turn).
	deadline := time.NewTimer(rootsAsked)
	defer deadline.Stop()
	var taken <-chan time.Time
	for {
		asked, logged, _ := s.asked.state()
		if asked-asks >= notes && logged >= asked {
			return
		}
		if asked-asks >= notes && taken == nil {
			t := time.NewTimer(rootsTaken)
			defer t.Stop()
			taken = t.C
		}
		select {
		case <-s.asked.ch:
		case <-taken:
			return // a server that says nothing once it has taken them
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// rootURI is a folder as a file: URI.
func rootURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: dir}).String()
}

// chatServer is the server's instance for a confined turn's chat: a
// path-taking stdio server runs in the chat's folder with that folder in
// place of its command line's folders, started on first use; any other
// server is shared.
func (e *Endpoint) chatServer(s *server, chat, workspace string) *server {
	if workspace == "" || !s.cfg.Stdio() || !s.pathTaking() {
		return s
	}
	if chat == "" {
		chat = workspace
	}
	key := chatKey{chat: chat, server: s.cfg.Name}
	e.chatMu.Lock()
	defer e.chatMu.Unlock()
	if c, ok := e.chats[key]; ok {
		return c
	}
	cfg := s.cfg
	cfg.Dir = workspace
	cfg.Args = slices.Clone(s.cfg.Args)
	dir, _ := os.Getwd()
	home := serverHome(s.cfg)
	for i, a := range cfg.Args {
		if _, ok := folderArg(a, dir, home); ok {
			cfg.Args[i] = workspace
		} else if j := strings.IndexByte(a, '='); j >= 0 {
			if _, ok := folderArg(a[j+1:], dir, home); ok {
				cfg.Args[i] = a[:j+1] + workspace
			}
		}
	}
	c := newServer(cfg, &e.opts)
	c.tools = s.toolList()
	e.chats[key] = c
	return c
}

// chatKey names a chat's instance of a server.
type chatKey struct{ chat, server string }

// CloseChat implements endpoints.ChatCloser: the servers started for chat
// alone are stopped.
func (e *Endpoint) CloseChat(chat string) {
	e.chatMu.Lock()
	var closing []*server
	for k, c := range e.chats {
		if k.chat == chat {
			closing = append(closing, c)
			delete(e.chats, k)
		}
	}
	e.chatMu.Unlock()
	for _, c := range closing {
		c.close()
	}
}
