package conversation

import (
	"slices"
	"sync"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// Session is an open session: its record as this chat knows it, kept in
// step with the file by Save and Reload. It is safe for concurrent use (a
// turn's goroutine appends while the UI reads).
type Session struct {
	store sessions.Store

	mu sync.Mutex
	s  *sessions.Session
	// saving serialises this handle's saves, each taking its snapshot
	// inside: the last one written holds the newest state.
	saving sync.Mutex
	// given is what the user typed and attached in the turns this handle
	// ran, kept in memory only (pipeline.Turn.Earlier): the session file
	// is data from disk, and its paths grant nothing by themselves.
	given []pipeline.Given
}

// earlier returns what the user gave in the turns this handle ran.
func (s *Session) earlier() []pipeline.Given {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.given)
}

// gave notes what the user gave in a turn this handle ran.
func (s *Session) gave(g pipeline.Given) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.given = append(s.given, g)
}

// Sync is what other writers — another Chorus process, another chat of
// the same session — added to the session since this chat last looked:
// the turns, each with its place.
type Sync struct {
	Added []Added
}

// Added is a turn another writer added, and where it belongs: before the
// turn Before (the ID of a turn this chat already had), or after them all
// when Before is "".
type Added struct {
	Record Record
	Before string
}

// ID is the session's id.
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.ID
}

// Title is the session's title, or one made from its first request.
func (s *Session) Title() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s.Title != "" || len(s.s.Turns) == 0 {
		return s.s.Title
	}
	return sessions.TitleFrom(s.s.Turns[0].Request)
}

// SetTitle names the session (saved with it).
func (s *Session) SetTitle(title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Title = sessions.TitleFrom(title)
}

// Updated is when the session was last saved.
func (s *Session) Updated() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.Updated
}

// Model is the controller model the session last used; "" when none.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.Model
}

// Constraints are the session's standing constraints.
func (s *Session) Constraints() pipeline.Constraints {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.s.Constraints
}

// Len is the number of turns.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.s.Turns)
}

// Turns returns the turns, oldest first.
func (s *Session) Turns() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.s.Turns)
}

// History is the chat log the next turn's planner gets, with the files of
// every turn as resources.
func (s *Session) History() []pipeline.Message {
	return s.Snapshot().History()
}

// Snapshot returns a copy of the session's record.
func (s *Session) Snapshot() *sessions.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := *s.s
	c.Turns = slices.Clone(s.s.Turns)
	return &c
}

// Export is the session as a Markdown transcript.
func (s *Session) Export() string { return sessions.Export(s.Snapshot()) }

// add appends a finished turn, notes the model and constraints it ran
// with, and returns the turn as kept (with its ID and resources).
func (s *Session) add(rec Record, model string, cons pipeline.Constraints) Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.AddTurn(rec)
	s.s.Model, s.s.Constraints = model, cons
	return s.s.Turns[len(s.s.Turns)-1]
}

// setMeta notes the chat's model and constraints for the next save.
func (s *Session) setMeta(model string, cons pipeline.Constraints) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.s.Model, s.s.Constraints = model, cons
}

// Save writes the session, merged with what other writers saved meanwhile,
// and takes their turns in: Sync says which. A session without turns is
// not written (it is written with its first).
func (s *Session) Save() (Sync, error) {
	s.saving.Lock()
	defer s.saving.Unlock()
	mine := s.Snapshot()
	if len(mine.Turns) == 0 {
		return Sync{}, nil
	}
	disk, err := s.store.Merge(mine)
	if err != nil {
		return Sync{}, err
	}
	return s.take(disk), nil
}

// Reload reads the session's file and takes in the turns other writers
// added; nothing is written. A session not saved yet has nothing to read.
func (s *Session) Reload() (Sync, error) {
	s.saving.Lock()
	defer s.saving.Unlock()
	disk, err := s.store.Load(s.ID())
	if err != nil {
		if errorsIsNotFound(err) {
			return Sync{}, nil
		}
		return Sync{}, err
	}
	return s.take(disk), nil
}

// take merges disk into what this handle holds (turns appended meanwhile
// stay, after disk's) and reports the turns that were new to it.
func (s *Session) take(disk *sessions.Session) Sync {
	s.mu.Lock()
	defer s.mu.Unlock()
	merged := sessions.Merged(disk, s.s)
	merged.Updated = disk.Updated
	added := sessions.Added(s.s, merged)
	var sync Sync
	if len(added) > 0 {
		known := map[string]bool{}
		for _, t := range s.s.Turns {
			known[t.ID] = true
		}
		isAdded := map[string]bool{}
		for _, t := range added {
			isAdded[t.ID] = true
		}
		// Each added turn goes before the next turn this chat knew.
		before := ""
		places := map[string]string{}
		for i := len(merged.Turns) - 1; i >= 0; i-- {
			t := merged.Turns[i]
			if isAdded[t.ID] {
				places[t.ID] = before
			} else if known[t.ID] {
				before = t.ID
			}
		}
		for _, t := range added {
			sync.Added = append(sync.Added, Added{Record: t, Before: places[t.ID]})
		}
	}
	s.s = merged
	return sync
}
