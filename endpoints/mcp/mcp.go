// Package mcp is the endpoint kind of Model Context Protocol servers: the
// tools of the servers the user's configuration lists (the mcp: list) run
// as Chorus experts, each tool a skill "<server>.<tool>" of its own, or a
// candidate of a task the configuration maps it onto. It speaks MCP through
// the official Go SDK over stdio (a program Chorus starts, with a minimal
// environment) and streamable HTTP (with the older HTTP+SSE transport as a
// fallback).
//
// What a server may touch is decided here and in the pipeline, never by a
// plan: servers are started or contacted only from the configuration;
// files go to a tool as embedded data, never as a path the server would
// open; a stdio server's environment holds PATH, HOME and the locale and
// only the secrets its env: names; every message is bounded; results are
// files sniffed against their declared type, and text the controller reads
// as quoted data.
package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/skills"
)

// Server is one entry of the configuration's mcp list: a program to start
// (Command) or a URL to reach.
type Server struct {
	// Name is the server's name: its tools are "<Name>.<tool>".
	Name string
	// Index is the server's place in the mcp list, for messages
	// ("mcp[0].command").
	Index int
	// Command and Args start a stdio server; Env is what its environment
	// holds besides PATH, HOME and the locale (values already expanded).
	Command string
	Args    []string
	Env     map[string]string
	// Dir is the folder the program runs in; "" is Chorus's own. (A
	// chat's own instance runs in the chat's folder: roots.go.)
	Dir string
	// URL reaches a streamable HTTP (or HTTP+SSE) server; Headers are sent
	// with every request, and Key as "Authorization: Bearer <Key>".
	URL     string
	Headers map[string]string
	Key     string
	// KeyFrom names where Key came from (an environment variable, the
	// Hugging Face token), for the message when the server refuses it.
	KeyFrom string
	// Transport is "" (streamable HTTP, falling back to SSE), "streamable"
	// or "sse".
	Transport string
	// Tasks maps a task of the catalog onto tools of this server, which
	// become candidates of that task.
	Tasks map[string][]string
	// Tools, when set, are the only tools of the server Chorus uses.
	Tools []string
	// Trust: the operator relies on the server's annotations — a tool
	// annotated read-only (and not destructive) runs without asking. An
	// untrusted server's every tool asks (NeedsApproval).
	Trust bool
}

// Stdio reports whether Chorus starts the server itself.
func (s Server) Stdio() bool { return s.Command != "" }

// key names the server in messages about its configuration.
func (s Server) key() string { return fmt.Sprintf("mcp[%d]", s.Index) }

// Options configure the endpoint.
type Options struct {
	Servers []Server
	// StartTimeout bounds starting (or reaching) a server, the MCP
	// handshake and listing its tools; default 30 s.
	StartTimeout time.Duration
	// MaxMessage bounds one message from a server (a tool's whole
	// result); default 32 MiB. A bigger one ends the call with that
	// cause, and a stdio server is restarted for the next call.
	MaxMessage int
	// MaxInput bounds a file sent to a tool as embedded data; default
	// 20 MiB.
	MaxInput int64
	// HTTPClient is the base client of HTTP servers (its Transport is
	// wrapped with the server's headers and the message bound).
	HTTPClient *http.Client
	// Version is Chorus's version, told to servers in the handshake.
	Version string
	// Logger records starts, failures and calls (never arguments,
	// results or the server's output); nil discards.
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = 32 << 20
	}
	if o.MaxInput <= 0 {
		o.MaxInput = 20 << 20
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// Endpoint runs the tools of the configured MCP servers.
type Endpoint struct {
	opts    Options
	servers []*server
	byName  map[string]*server
	// chats are the servers started for one chat alone (roots.go).
	chatMu sync.Mutex
	chats  map[chatKey]*server
}

// New returns the endpoint for the configured servers. Nothing is started
// until Start.
func New(o Options) *Endpoint {
	o.defaults()
	e := &Endpoint{opts: o, byName: map[string]*server{}, chats: map[chatKey]*server{}}
	for _, s := range o.Servers {
		srv := newServer(s, &e.opts)
		e.servers = append(e.servers, srv)
		e.byName[s.Name] = srv
	}
	return e
}

// Kind is skills.EndpointMCP.
func (e *Endpoint) Kind() skills.EndpointKind { return skills.EndpointMCP }

// Start starts (or reaches) every server at once and lists its tools,
// each bounded by StartTimeout. A server that fails is reported by Status
// and its tools are missing; the others are not held up by it.
func (e *Endpoint) Start(ctx context.Context) {
	var wg sync.WaitGroup
	for _, s := range e.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = s.session(ctx)
		}()
	}
	wg.Wait()
}

// Close stops every server Chorus started and ends every session.
func (e *Endpoint) Close() error {
	var wg sync.WaitGroup
	e.chatMu.Lock()
	all := slices.Clone(e.servers)
	for k, c := range e.chats {
		all = append(all, c)
		delete(e.chats, k)
	}
	e.chatMu.Unlock()
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	return nil
}

// Status is what `chorus mcp list` shows of one server.
type Status struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// Where is the command line or the URL.
	Where string `json:"where"`
	// State is "running", "failed" or "not started".
	State string `json:"state"`
	// Server is the name and version the server gave in the handshake.
	Server string `json:"server,omitempty"`
	// Tools are the tools Chorus uses, by skill name.
	Tools []string `json:"tools"`
	// Error says why the server is not running, and the fix.
	Error string `json:"error,omitempty"`
	// Problems are the tools the configuration names that the server
	// does not offer, each with its fix.
	Problems []string `json:"problems,omitempty"`
}

// Status reports every configured server, in configuration order.
func (e *Endpoint) Status() []Status {
	out := make([]Status, 0, len(e.servers))
	for _, s := range e.servers {
		out = append(out, s.status())
	}
	return out
}

// Skills returns a skill per tool of every running server, named
// "<server>.<tool>".
func (e *Endpoint) Skills() []*skills.Skill {
	var out []*skills.Skill
	for _, s := range e.servers {
		for _, t := range s.toolList() {
			out = append(out, toolSkill(s.cfg, t))
		}
	}
	return out
}

// split reads a model id "<server>.<tool>" (a server's name has no dot).
func (e *Endpoint) split(model string) (*server, string, bool) {
	name, tool, ok := strings.Cut(model, ".")
	if !ok {
		return nil, "", false
	}
	s, ok := e.byName[name]
	return s, tool, ok
}

// Check says whether model ("<server>.<tool>") can run task now: its
// server is running (or may be started again after a crash) and lists
// the tool, and for a task the tool is mapped onto, the task's arguments
// fill the tool's required ones.
func (e *Endpoint) Check(_ context.Context, task, model string) error {
	s, name, ok := e.split(model)
	if !ok {
		return failf(endpoints.ErrUnavailable, "%s is not a tool of a configured MCP server", model)
	}
	t, err := s.tool(name)
	if err != nil {
		return err
	}
	if task == model {
		return nil
	}
	if !slices.Contains(s.cfg.Tasks[task], name) {
		return failf(endpoints.ErrUnavailable, "%s is not mapped onto %s (add it to %s.tasks)", model, task, s.cfg.key())
	}
	if _, missing := taskArgs(task, t, nil, nil); missing != "" {
		return failf(endpoints.ErrUnavailable, "%s needs the argument %q, which %s does not give — map another tool onto %s", model, missing, task, task)
	}
	return nil
}

// Discover offers, for a task of the catalog, the tools the configuration
// maps onto it: asking for them by name ranks them first.
func (e *Endpoint) Discover(_ context.Context, task string) ([]endpoints.Offer, error) {
	var out []endpoints.Offer
	for _, s := range e.servers {
		for _, name := range s.cfg.Tasks[task] {
			desc := "tool " + name + " of the MCP server " + s.cfg.Name
			if t, err := s.tool(name); err == nil && t.Description != "" {
				desc = brief(t)
			}
			out = append(out, endpoints.Offer{ID: s.cfg.Name + "." + name, Description: desc, Configured: true})
		}
	}
	return out, nil
}

// NeedsApproval implements endpoints.Guarded: a tool not annotated
// read-only, or annotated destructive, or of a server the configuration
// does not mark trusted (whose readOnlyHint is only its own claim), is run
// only once the turn approves it (the TUI asks; chorus run needs
// --allow-tool; serve --ssh, serve.allow_tools).
func (e *Endpoint) NeedsApproval(_, model string) string {
	s, name, ok := e.split(model)
	if !ok {
		return ""
	}
	t, err := s.tool(name)
	if err != nil {
		// Unknown until the server runs: the safe answer.
		return "its annotations are not known (the server is not running)"
	}
	return toolInfo(s.cfg, t).NeedsApproval()
}

// Remote implements endpoints.Locator: a stdio server runs here; an HTTP
// server is local when its host is this machine or a private network.
func (e *Endpoint) Remote(_, model string) string {
	s, _, ok := e.split(model)
	if !ok || s.cfg.Stdio() {
		return ""
	}
	host := hostOf(s.cfg.URL)
	if endpoints.IsLocalHost(host) {
		return ""
	}
	return fmt.Sprintf("the MCP server %s (%s) is not on this machine or a private network", s.cfg.Name, host)
}

// failf is an error for the user that wraps the sentinel (so the
// executor decides with errors.Is) without the sentinel's own words.
func failf(sentinel error, format string, args ...any) error {
	return endpoints.Explain(fmt.Sprintf(format, args...), sentinel)
}
