package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"
)

// Several writers may append to one session at once: the TUI and
// `chorus run --continue`, two runs started together, two ssh chats of one
// key. None may lose another's turn, so a save never writes its own copy
// over the file: under the sessions directory's lock it reads the file as
// it is now and merges (Merge). Turns are told apart by their ID, which
// AddTurn gives each new turn; turns of files written before IDs existed
// get one derived from their content and place when read, the same in
// every process.

// Merge saves s without losing what other writers saved meanwhile: under
// the sessions directory's lock it reads the session's file as it is now,
// keeps every turn there in its order (s's version of a turn both have),
// appends s's turns the file lacks in s's order, takes s's title, model
// and constraints, and writes the result atomically. It returns the
// result — the session as it now is on disk — so the caller can show the
// turns others added (Added). s itself is not modified.
func (st Store) Merge(s *Session) (*Session, error) {
	out, err := st.merge(s)
	if err != nil {
		st.logger().Warn("session not saved", "err", err.Error())
	}
	return out, err
}

func (st Store) merge(s *Session) (*Session, error) {
	if s == nil {
		return nil, fmt.Errorf("cannot save a nil session")
	}
	if !validID(s.ID) {
		return nil, fmt.Errorf("cannot save session %q: not a valid session id — create sessions with Store.New", s.ID)
	}
	dir := st.dir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot save session %s: %w", s.ID, err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot save session %s: %w", s.ID, err)
	}
	defer unlock()
	var disk *Session
	if data, rerr := st.read(s.ID); rerr == nil {
		d, reason := decode(data)
		if reason != "" {
			// Never write over a file that cannot be read: it may be the
			// only copy of someone's conversation.
			return nil, fmt.Errorf("cannot save session %s: its file is damaged (%s) and was left untouched at %s: %w", s.ID, reason, st.path(s.ID), ErrDamaged)
		}
		d.ensureIDs()
		disk = d
	}
	return st.write(Merged(disk, s))
}

// Merged is the union of disk (the file as it is, nil for none) and mine
// (a writer's copy), as Merge writes it: disk's turns in disk's order,
// mine's version of the turns both have, then mine's other turns in mine's
// order; mine's title (or disk's when mine has none), model and
// constraints; the earlier creation time.
func Merged(disk, mine *Session) *Session {
	out := *mine
	mt := &Session{Turns: slices.Clone(mine.Turns)}
	mt.ensureIDs()
	out.Turns = nil
	if disk == nil {
		out.Turns = mt.Turns
		return &out
	}
	disk.ensureIDs()
	byID := make(map[string]int, len(mt.Turns))
	for i, t := range mt.Turns {
		byID[t.ID] = i
	}
	seen := make(map[string]bool, len(disk.Turns))
	for _, t := range disk.Turns {
		seen[t.ID] = true
		if i, ok := byID[t.ID]; ok {
			t = mt.Turns[i]
		}
		out.Turns = append(out.Turns, t)
	}
	for _, t := range mt.Turns {
		if !seen[t.ID] {
			out.Turns = append(out.Turns, t)
		}
	}
	if out.Title == "" {
		out.Title = disk.Title
	}
	if !disk.Created.IsZero() && (out.Created.IsZero() || disk.Created.Before(out.Created)) {
		out.Created = disk.Created
	}
	return &out
}

// Added returns the turns of after that before does not have, by ID, in
// after's order: what other writers added.
func Added(before, after *Session) []Record {
	if after == nil {
		return nil
	}
	have := map[string]bool{}
	if before != nil {
		for _, t := range before.Turns {
			have[t.ID] = true
		}
	}
	var out []Record
	for _, t := range after.Turns {
		if !have[t.ID] {
			out = append(out, t)
		}
	}
	return out
}

// ensureIDs gives each turn without an ID one derived from its place and
// content, so every process reading the same file derives the same.
func (s *Session) ensureIDs() {
	if s == nil {
		return
	}
	for i := range s.Turns {
		if s.Turns[i].ID == "" {
			h := sha256.New()
			h.Write([]byte(strconv.Itoa(i)))
			h.Write([]byte{0})
			h.Write([]byte(s.Turns[i].Started.UTC().Format(time.RFC3339Nano)))
			h.Write([]byte{0})
			h.Write([]byte(s.Turns[i].Request))
			s.Turns[i].ID = "legacy-" + hex.EncodeToString(h.Sum(nil)[:8])
		}
	}
}

// NewTurnID returns a unique, time-sortable turn id.
func NewTurnID(now time.Time) string { return newID(now) }
