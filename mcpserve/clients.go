package mcpserve

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/skills"
)

// A client's files live as long as its session, and never longer: the
// folder of a session that ends (the client closes it, it times out, the
// server stops) or is retired to make room goes with its chat; the folders
// a process left behind when it died go when the next one starts. Every
// process serving from Dir works in a folder of its own, locked while it
// runs (lock_unix.go), so a start never takes the folders of another
// `chorus mcp serve` that is still serving its clients.

// Defaults of the bounds (Options), as config.yaml states them.
const (
	DefaultQuota    = 512_000_000
	DefaultBigCalls = 2
	DefaultBigBody  = 8_000_000
	DefaultBigWait  = 30 * time.Second
)

// retireWait is how long a retired client's running turn is given to wind
// down before its folder goes.
const retireWait = 5 * time.Second

// client is one MCP client session: its chat and workspace.
type client struct {
	chat *conversation.Chat
	dir  string
	used time.Time
	// calls counts the calls, naming each call's folder of inputs.
	calls int
	// busy counts the calls in flight; gone is set when the client is
	// retired, after which no call starts. Both under Server.mu.
	busy sync.WaitGroup
	n    int
	gone bool
}

// begin starts a call of the session ss: its client, made on its first
// call, and done, which ends the call. A client retired meanwhile (its
// session ended) takes no call.
func (s *Server) begin(ss *sdk.ServerSession) (c *client, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.chats[ss]
	if !ok {
		if c, err = s.newClient(ss); err != nil {
			return nil, nil, err
		}
	}
	if c.gone {
		return nil, nil, errors.New("this session has ended: connect again")
	}
	c.used = time.Now()
	c.busy.Add(1)
	c.n++
	return c, func() {
		s.mu.Lock()
		c.n--
		s.mu.Unlock()
		c.busy.Done()
	}, nil
}

// newClient makes the chat and workspace of a session's first call,
// retiring the least recently used idle client when MaxClients are kept,
// and watches the session: when it ends, so does the client. s.mu is
// held.
func (s *Server) newClient(ss *sdk.ServerSession) (*client, error) {
	if len(s.chats) >= s.opts.MaxClients {
		// An idle client goes before a busy one, the least recently used
		// first.
		before := func(a, b *client) bool {
			if (a.n == 0) != (b.n == 0) {
				return a.n == 0
			}
			return a.used.Before(b.used)
		}
		var oldest *sdk.ServerSession
		for k, c := range s.chats {
			if oldest == nil || before(c, s.chats[oldest]) {
				oldest = k
			}
		}
		old := s.chats[oldest]
		delete(s.chats, oldest)
		old.gone = true
		go s.retire(old, "retired: more than serve's most client sessions")
	}
	var id [6]byte
	_, _ = rand.Read(id[:])
	dir := filepath.Join(s.root, time.Now().Format("20060102-150405")+"-"+hex.EncodeToString(id[:]))
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o700); err != nil {
		return nil, err
	}
	// The workspace confines the turns (pipeline.Turn.Workspace): what the
	// client sent, and what Chorus made for it. NoSave: a client's chat
	// lives as long as its session, not in the user's saved sessions.
	chat := s.opts.Service.Chat(conversation.ChatOptions{Constraints: s.opts.Constraints, OutputDir: filepath.Join(dir, "out"), Workspace: dir, NoSave: true})
	c := &client{chat: chat, dir: dir, used: time.Now()}
	s.chats[ss] = c
	if ss != nil {
		go func() {
			_ = ss.Wait()
			s.endSession(ss)
		}()
	}
	return c, nil
}

// endSession retires the client of a session that ended.
func (s *Server) endSession(ss *sdk.ServerSession) {
	s.mu.Lock()
	c, ok := s.chats[ss]
	if ok {
		delete(s.chats, ss)
		c.gone = true
	}
	s.mu.Unlock()
	if ok {
		s.retire(c, "its session ended")
	}
}

// retire ends a client: its chat closes (a running turn is cancelled), its
// calls end, and its folder goes.
func (s *Server) retire(c *client, why string) {
	_ = c.chat.Close(retireWait)
	c.busy.Wait()
	size := dirSize(c.dir)
	if err := os.RemoveAll(c.dir); err != nil {
		s.opts.Logger.Warn("mcp client's files not removed", "dir", c.dir, "err", err.Error())
		return
	}
	s.opts.Logger.Info("mcp client's files removed", "why", why, "bytes", size)
}

// Close stops every chat, waiting a little for running turns, and
// removes every client's folder and the process's own.
func (s *Server) Close() {
	s.mu.Lock()
	chats := s.chats
	s.chats = map[*sdk.ServerSession]*client{}
	for _, c := range chats {
		c.gone = true
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range chats {
		wg.Go(func() { s.retire(c, "the server stopped") })
	}
	wg.Wait()
	_ = os.RemoveAll(s.root)
	s.unlock()
}

// checkQuota refuses the files of a call that would take the client's
// folder past Options.Quota, before any is decoded.
func (s *Server) checkQuota(c *client, files []inFile) error {
	var incoming int64
	for _, f := range files {
		incoming += f.Data.decodedLen()
	}
	used := dirSize(c.dir)
	if used+incoming <= s.opts.Quota {
		return nil
	}
	return fmt.Errorf("the files would take this session's folder to %s, past its quota of %s (serve.mcp_quota): send smaller files, or start a new session — its files go with it",
		skills.HumanBytes(used+incoming), skills.HumanBytes(s.opts.Quota))
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// claimRoot makes this process's folder under dir and locks it, then
// removes what earlier processes left: folders no running process holds,
// and anything else. It returns the folder and the lock's release.
func claimRoot(dir string, log *slog.Logger) (root string, unlock func(), err error) {
	for range 3 {
		var id [6]byte
		_, _ = rand.Read(id[:])
		root = filepath.Join(dir, fmt.Sprintf("%s-%d-%s", time.Now().Format("20060102-150405"), os.Getpid(), hex.EncodeToString(id[:])))
		if err = os.Mkdir(root, 0o700); err != nil {
			return "", nil, err
		}
		if unlock, err = lockRoot(root); err != nil {
			return "", nil, err
		}
		// Another start's sweep may have taken the folder between its
		// making and its lock: then make another.
		if _, err = os.Stat(root); err == nil {
			sweep(dir, root, log)
			return root, unlock, nil
		}
		unlock()
	}
	return "", nil, fmt.Errorf("%s keeps disappearing: %w", dir, err)
}

// sweep removes from dir everything but own that no running process holds.
func sweep(dir, own string, log *slog.Logger) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if p == own || e.IsDir() && inUse(p) {
			continue
		}
		size := dirSize(p)
		if err := os.RemoveAll(p); err != nil {
			log.Warn("mcp serve: stale client files not removed", "path", p, "err", err.Error())
			continue
		}
		log.Info("mcp serve: stale client files removed", "path", p, "bytes", size)
	}
}
