// Package sessions is the record of a conversation: each turn's record
// (Session, Turn — built from a turn's events by the chat service,
// package conversation), the history handed to the next turn
// (Session.History), the store (Store: save, merge, load, list, "latest")
// and the Markdown export. It imports nothing of the UI.
//
// Several writers may save one session at once — the TUI and `chorus run
// --continue`, two runs, two ssh chats of one key: every save merges with
// the file as it is (Store.Merge, merge.go), so no turn is lost.
//
// Sessions are kept on disk, one JSON file per session, so a conversation
// can be reopened, continued and exported.
//
// A reopened session gives the planner its chat history with every file
// attached or generated in each turn (Session.History), so "the image you
// made before" still resolves, as HuggingGPT's chat-log resources intend.
//
// Files are written atomically (a temporary file in the same directory,
// fsync, rename), so a crash mid-save leaves the previous version intact.
// Loading ignores fields it does not know, so files written by a newer
// Chorus still open.
package sessions

import (
	"slices"
	"strings"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/text"
)

// Version is the schema version written into every session file. Bump it
// when a field changes meaning; adding fields needs no bump, because older
// readers ignore fields they do not know.
const Version = 1

// Session is one conversation.
type Session struct {
	// Version is the schema version the file was written with.
	Version int `json:"version"`
	// ID is time-sortable and safe as a file name; Store.New makes it.
	ID    string `json:"id"`
	Title string `json:"title"`
	// Created is when the session began; Updated when it was last saved.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Model is the controller model the session last used.
	Model string `json:"model,omitempty"`
	// Constraints are the user's standing constraints for the session.
	Constraints pipeline.Constraints `json:"constraints,omitzero"`
	Turns       []Record             `json:"turns"`
}

// Record is one turn as a session keeps it: the request and everything
// that came of it (conversation.Record is the same type).
type Record struct {
	// ID tells the turn from every other, so writers saving the same
	// session at once merge their turns instead of overwriting them
	// (Merge). AddTurn gives one to a turn without.
	ID      string `json:"id,omitempty"`
	Request string `json:"request"`
	// Input is what the user passed as data with the request (piped
	// stdin): the controller read it, but it names nothing the turn — or a
	// later one — may read or fetch (docs/pipeline.md).
	Input string `json:"input,omitempty"`
	// Attachments are the files the user attached, full paths.
	Attachments []string `json:"attachments,omitempty"`
	Answer      string   `json:"answer,omitempty"`
	// Plan is the validated plan that ran, PlanNotes the validator's repairs.
	Plan      []pipeline.Task `json:"plan,omitempty"`
	PlanNotes []string        `json:"plan_notes,omitempty"`
	// Revisions are the plan's revisions after tasks failed for good,
	// each with the failed tasks it answers and the tasks it added
	// (pipeline.Revision); their runs are in the report.
	Revisions []pipeline.Revision `json:"revisions,omitempty"`
	// Planned is set once planning finished, even with no tasks (the
	// controller answered directly), which an empty Plan cannot tell from
	// a turn that ended before it had a plan.
	Planned bool `json:"planned,omitempty"`
	// Models records each task's model choice and why.
	Models []pipeline.ModelEvent `json:"models,omitempty"`
	// Report is the execution record, when the turn got that far.
	Report *pipeline.Report `json:"report,omitempty"`
	// Resources are the attachments and the generated files, full paths.
	Resources []string `json:"resources,omitempty"`
	// Cancelled is set when the user stopped the turn; Error holds why a
	// turn failed.
	Cancelled bool      `json:"cancelled,omitempty"`
	Error     string    `json:"error,omitempty"`
	Started   time.Time `json:"started,omitzero"`
	Finished  time.Time `json:"finished,omitzero"`
}

// UserFiles returns the files the user gave the turn: the attachments,
// then the media files whose paths they typed in the request, which the
// turn treated as attachments (Report.Named).
func (t Record) UserFiles() []string {
	out := slices.Clone(t.Attachments)
	if t.Report != nil {
		for _, p := range t.Report.Named {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Generated returns the files the turn produced, full paths: its resources
// that are not attachments, and the report's files, without duplicates.
func (t Record) Generated() []string {
	var out []string
	add := func(p string) {
		if p != "" && !slices.Contains(t.UserFiles(), p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range t.Resources {
		add(p)
	}
	if t.Report != nil {
		for _, p := range t.Report.Files {
			add(p)
		}
	}
	return out
}

// AddTurn appends t, fills its Resources from the attachments and the
// report's files when the caller left them empty, and titles an untitled
// session after its first request.
func (s *Session) AddTurn(t Record) {
	if t.ID == "" {
		t.ID = NewTurnID(time.Now())
	}
	if len(t.Resources) == 0 {
		t.Resources = append(t.UserFiles(), t.Generated()...)
	}
	s.Turns = append(s.Turns, t)
	if s.Title == "" {
		s.Title = TitleFrom(t.Request)
	}
}

// maxTitle is the longest title, in characters, TitleFrom returns.
const maxTitle = 60

// TitleFrom makes a session title from a request: its first non-empty
// line, whitespace collapsed, shortened to 60 characters at a word
// boundary where one is near.
func TitleFrom(request string) string {
	line := ""
	for l := range strings.Lines(text.Clean(request)) {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			line = l
			break
		}
	}
	r := []rune(line)
	if len(r) <= maxTitle {
		return line
	}
	head := r[:maxTitle-1]
	for i := len(head) - 1; i > maxTitle/2; i-- {
		if head[i] == ' ' {
			head = head[:i]
			break
		}
	}
	return strings.TrimRight(string(head), " ,.;:") + "…"
}

// title returns the session's title, or one made from its first request.
func (s *Session) title() string {
	if s.Title != "" {
		return s.Title
	}
	for _, t := range s.Turns {
		if tt := TitleFrom(t.Request); tt != "" {
			return tt
		}
	}
	return ""
}
