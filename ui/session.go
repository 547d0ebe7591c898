package ui

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/theme"
	"github.com/chorusai/chorus/ui/turnview"
)

// session is the chat's persistent identity: the sessions record whose
// turns are rebuilt from the model's turns on every save, so the file and
// the screen never disagree.
type session struct {
	store sessions.Store
	// meta holds the id, title and creation time; its Turns are unused.
	meta *sessions.Session
}

func defaultSessionDir() string { return sessions.DefaultDir() }

func (m *Model) newSession() *session {
	st := sessions.Store{Dir: m.opts.SessionDir, Logger: m.opts.Logger}
	return &session{store: st, meta: st.New("")}
}

// record converts a finished turn to its saved form.
func (t *turn) record() sessions.Turn {
	rec := sessions.Turn{ID: t.recID, Request: t.Request, Attachments: t.Attachments, Cancelled: t.Canceled,
		Started: t.Started, Finished: t.Ended, Report: t.Report}
	rec.Answer = t.Answer
	if t.Plan != nil {
		rec.Plan, rec.PlanNotes, rec.Planned = t.Plan.Tasks, t.Plan.Notes, true
	}
	for _, ts := range t.Tasks {
		if ts.Choice != nil {
			rec.Models = append(rec.Models, *ts.Choice)
		}
	}
	if t.Err != nil && !t.Canceled {
		rec.Error = t.FatalText()
	}
	rec.Resources = append(rec.UserFiles(), t.Files()...)
	return rec
}

// snapshot returns the session as it should be saved now: finished turns
// only, the current controller and constraints. It shares no mutable state
// with the model, so it can be written from another goroutine.
func (m *Model) snapshot() *sessions.Session {
	s := *m.session.meta
	s.Turns = nil
	s.Model = m.eng.Controller().Model()
	s.Constraints = m.constraints
	for _, t := range m.turns {
		if t.Done {
			s.AddTurn(t.record())
		}
	}
	if s.Title == "" && len(s.Turns) > 0 {
		s.Title = sessions.TitleFrom(s.Turns[0].Request)
	}
	m.session.meta.Title = s.Title
	return &s
}

// history is the chat log the pipeline sees, with the files of every turn
// as resources, exactly as a reopened session will give it.
func (m *Model) history() []pipeline.Message { return m.snapshot().History() }

// save writes the session synchronously; used on the way out. Saves still
// in flight finish first, so an older snapshot never lands last.
func (m *Model) save() {
	m.saves.Wait()
	s := m.snapshot()
	if len(s.Turns) == 0 {
		return
	}
	if err := m.session.store.Save(s); err != nil {
		m.saveErr = err
	}
}

// saveDone reports a background save.
type saveDone struct{ err error }

// saveAsync saves in a command, so Update never waits for the disk.
// Commands run concurrently, so each save carries its place in the order of
// snapshots (sessions.SaveOrder), and one overtaken by a newer snapshot
// writes nothing rather than put the older state back.
func (m *Model) saveAsync() tea.Cmd {
	s := m.snapshot()
	if len(s.Turns) == 0 {
		return nil
	}
	st := m.session.store
	order := m.saveOrder
	seq := order.Next()
	m.saves.Add(1)
	return func() tea.Msg {
		defer m.saves.Done()
		return saveDone{err: order.Save(st, s, seq)}
	}
}

// loadSession replaces the chat with a saved session ("latest" for the
// newest), which then continues: its turns become the history of the next
// request.
func (m *Model) loadSession(id string) error {
	s, err := m.session.store.Open(id)
	if err != nil {
		return err
	}
	m.adopt(s)
	return nil
}

// loadedMsg carries a session read off the UI goroutine.
type loadedMsg struct {
	s   *sessions.Session
	err error
}

// loadCmd reads a session in a command; arg is an id, "latest" or a
// title (findSession).
func (m *Model) loadCmd(arg string) tea.Cmd {
	st := m.session.store
	return func() tea.Msg {
		id, err := findSession(st, arg)
		if err != nil {
			return loadedMsg{err: err}
		}
		s, err := st.Open(id)
		return loadedMsg{s: s, err: err}
	}
}

// findSession resolves what /load was given: an id or "latest" as it is,
// else a title — the newest session of that title (any case), or the one
// session whose title starts with, then contains, the words given. Several
// matches are an error that names them; none leaves arg to Open, which
// says it was not found.
func findSession(st sessions.Store, arg string) (string, error) {
	if sessions.IsLatest(arg) {
		return arg, nil
	}
	list, err := st.List()
	if err != nil {
		return "", err
	}
	want := strings.ToLower(strings.TrimSpace(arg))
	for _, s := range list {
		if s.ID == arg {
			return s.ID, nil
		}
	}
	for _, s := range list { // newest first
		if strings.ToLower(s.Title) == want {
			return s.ID, nil
		}
	}
	for _, match := range []func(title string) bool{
		func(t string) bool { return strings.HasPrefix(t, want) },
		func(t string) bool { return strings.Contains(t, want) },
	} {
		var found []sessions.Summary
		for _, s := range list {
			if s.Title != "" && match(strings.ToLower(s.Title)) {
				found = append(found, s)
			}
		}
		switch {
		case len(found) == 1:
			return found[0].ID, nil
		case len(found) > 1:
			var names []string
			for _, s := range found[:min(len(found), 4)] {
				names = append(names, fmt.Sprintf("%q (%s)", s.Title, s.ID))
			}
			return "", fmt.Errorf("%d sessions match %q: %s — give more of the title, or the id", len(found), arg, strings.Join(names, ", "))
		}
	}
	return arg, nil
}

// onLoaded saves the current session, then shows the loaded one.
func (m *Model) onLoaded(msg loadedMsg) tea.Cmd {
	if msg.err != nil {
		m.systemError(msg.err.Error())
		return nil
	}
	if m.running() {
		m.flash("a turn is running — cancel it first ("+m.keys.Label(theme.ActCancel)+")", true)
		return nil
	}
	save := m.saveAsync()
	m.adopt(msg.s)
	m.warm()
	m.layout()
	return tea.Batch(save, m.requestThumbs(), m.checkServer())
}

// adopt shows a loaded session.
func (m *Model) adopt(s *sessions.Session) {
	if m.cancel != nil {
		m.cancel()
	}
	m.cur, m.curPump, m.cancel = nil, nil, nil
	m.chat.Reset()
	m.turns = nil
	meta := *s
	meta.Turns = nil
	m.session.meta = &meta
	if !s.Constraints.IsZero() {
		m.constraints = s.Constraints
	}
	if s.Model != "" && s.Model != m.eng.Controller().Model() {
		m.eng = m.eng.WithController(m.eng.Controller().WithModel(s.Model))
	}
	for _, rec := range s.Turns {
		m.nextTurn++
		t := turnFromRecord(m.nextTurn, rec, s.Model)
		t.recID = rec.ID
		m.turns = append(m.turns, t)
		m.chat.Add(&chat.Message{Role: chat.RoleUser, Text: rec.Request, Attachments: rec.Attachments, Final: true})
		m.chat.Add(t.entry)
		if rec.Error != "" {
			m.chat.Add(&chat.Message{Role: chat.RoleError, Text: rec.Error, Final: true})
		}
	}
	m.say(fmt.Sprintf("Session **%s** reopened (%s, saved %s). It continues here: earlier files can be referred to.",
		cmp.Or(s.Title, s.ID), chat.Count(len(s.Turns), "turn"), s.Updated.Local().Format("2006-01-02 15:04")))
}

// turnFromRecord rebuilds a finished turn for the panes and the chat.
func turnFromRecord(id int, rec sessions.Turn, model string) *turn {
	t := newTurn(id, rec.Request, rec.Attachments, model, rec.Started)
	t.Done, t.Ended, t.Canceled = true, rec.Finished, rec.Cancelled
	if rec.Error != "" {
		t.Err = fmt.Errorf("%s", rec.Error)
	}
	// Files written before Planned existed: a finished answer means
	// planning finished too.
	answered := rec.Report != nil && strings.TrimSpace(rec.Report.Answer) != ""
	if rec.Planned || rec.Plan != nil || rec.PlanNotes != nil || answered {
		t.Apply(pipeline.PlanEvent{Tasks: rec.Plan, Notes: rec.PlanNotes}, rec.Started)
	}
	for _, me := range rec.Models {
		t.Apply(me, rec.Started)
	}
	if rec.Report != nil {
		rep := *rec.Report
		t.Report = &rep
		for _, tr := range rep.Tasks {
			ts := t.Task(tr.ID, tr.Task)
			ts.Model, ts.Endpoint, ts.Provider, ts.Result, ts.Files, ts.Err = tr.Model, tr.Endpoint, tr.Provider, tr.Result, tr.Files, tr.Error
			ts.Elapsed, ts.Attempts = time.Duration(tr.ElapsedMS)*time.Millisecond, tr.Attempts
			// The hops of a fallback, as the Execution pane showed them.
			for i := 1; i < len(tr.Attempts); i++ {
				ts.Log = append(ts.Log, turnview.LogLine{At: rec.Started, Text: pipeline.HopLine(tr.Attempts[i-1], tr.Attempts[i]), Warn: true})
			}
			switch {
			case tr.Cancelled:
				ts.Status = turnview.TaskCancelled
			case tr.Skipped:
				ts.Status = turnview.TaskSkipped
			case tr.Status == pipeline.StatusOK:
				ts.Status = turnview.TaskDone
			default:
				ts.Status = turnview.TaskFailed
			}
		}
	}
	for _, ts := range t.Tasks {
		if ts.Status == turnview.TaskPending {
			ts.Status = turnview.TaskSkipped
			if rec.Cancelled {
				ts.Status = turnview.TaskCancelled
			}
		}
	}
	t.Answer = rec.Answer
	if strings.TrimSpace(t.Answer) == "" {
		switch {
		case rec.Cancelled:
			t.Answer = "_Cancelled._"
		default:
			t.Answer = "_No answer._"
		}
	}
	a := t.entry
	a.Text, a.Final = t.Answer, true
	for _, r := range rec.Resources {
		if !slices.Contains(rec.Attachments, r) {
			a.Files = append(a.Files, r)
		}
	}
	meta := []string{model}
	if !rec.Finished.IsZero() && !rec.Started.IsZero() {
		meta = append(meta, turnview.HumanDuration(rec.Finished.Sub(rec.Started)))
	}
	a.Meta = strings.Join(meta, " · ")
	return t
}

// newChat starts a new session; the current one is saved first.
func (m *Model) newChat() tea.Cmd {
	cmd := m.saveAsync()
	if m.cancel != nil {
		m.cancel()
	}
	m.cur, m.curPump, m.cancel = nil, nil, nil
	m.turns = nil
	m.chat.Reset()
	m.session = m.newSession()
	m.flash("new session — the previous one is saved (/sessions lists them)", false)
	return cmd
}

// sessionsMsg carries the saved sessions for /sessions and /load.
type sessionsMsg struct {
	list []sessions.Summary
	err  error
	// quiet refreshes the completion list without showing anything.
	quiet bool
}

// quietList asks listSessions for completion data only.
const quietList = true

func (m *Model) listSessions(quiet bool) tea.Cmd {
	st := m.session.store
	return func() tea.Msg {
		l, err := st.List()
		return sessionsMsg{list: l, err: err, quiet: quiet}
	}
}

// onSessions shows the saved sessions; choosing one opens it.
func (m *Model) onSessions(msg sessionsMsg) {
	m.sessionIDs, m.sessionTitles = m.sessionIDs[:0], m.sessionTitles[:0]
	for _, s := range msg.list {
		m.sessionIDs = append(m.sessionIDs, s.ID)
		if s.Title != "" && !slices.Contains(m.sessionTitles, s.Title) {
			m.sessionTitles = append(m.sessionTitles, s.Title)
		}
	}
	if msg.quiet {
		return
	}
	if msg.err != nil {
		m.systemError(msg.err.Error())
		return
	}
	if len(msg.list) == 0 {
		m.say("No saved sessions yet in `" + m.session.store.Dir + "`.")
		return
	}
	var items []dialog.SessionItem
	for _, s := range msg.list {
		detail := fmt.Sprintf("%s · %s · %s", s.Updated.Local().Format("2006-01-02 15:04"), chat.Count(s.Turns, "turn"), s.ID)
		items = append(items, dialog.SessionItem{ID: s.ID, Title: cmp.Or(s.Title, "(untitled)"), Detail: detail, Damaged: s.Damaged})
	}
	list := msg.list
	m.openDialog(dialog.NewSessions(m.keys, &m.st, items, m.session.meta.ID),
		func(i int) tea.Cmd {
			if list[i].Damaged != "" {
				m.flash("that session file is damaged: "+list[i].Damaged, true)
				return nil
			}
			return m.loadCmd(list[i].ID)
		})
}

// deletedMsg reports a session file deleted from /sessions.
type deletedMsg struct {
	id  string
	err error
}

// deleteSession deletes a saved session's file in a command.
func (m *Model) deleteSession(id string) tea.Cmd {
	st := m.session.store
	return func() tea.Msg { return deletedMsg{id: id, err: st.Delete(id)} }
}

// onDeleted refreshes what completion knows, or says why the file stays.
func (m *Model) onDeleted(msg deletedMsg) tea.Cmd {
	if msg.err != nil {
		m.flash("the session was not deleted: "+msg.err.Error(), true)
		return nil
	}
	return m.listSessions(quietList)
}

// exportTo writes the Markdown transcript to path in a command.
func (m *Model) exportTo(path string) tea.Cmd {
	s := m.snapshot()
	if len(s.Turns) == 0 {
		m.flash("nothing to export yet", true)
		return nil
	}
	if path == "" {
		path = "chorus-" + s.ID + ".md"
	}
	path = m.ws.expand(path)
	if err := m.ws.check(path); err != nil {
		m.flash("export failed: "+err.Error(), true)
		return nil
	}
	return func() tea.Msg {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return exportDone{err: err}
		}
		err := os.WriteFile(path, []byte(sessions.Export(s)), 0o644)
		return exportDone{path: path, err: err}
	}
}

type exportDone struct {
	path string
	err  error
}

// onSaveDone reports a background save that failed.
func (m *Model) onSaveDone(msg saveDone) tea.Cmd {
	if msg.err != nil {
		m.flash("the session was not saved: "+msg.err.Error(), true)
	}
	return nil
}

// onExportDone says where the transcript went, or why it did not.
func (m *Model) onExportDone(msg exportDone) tea.Cmd {
	if msg.err != nil {
		m.flash("export failed: "+msg.err.Error(), true)
	} else {
		m.say("Exported the transcript to `" + msg.path + "`.")
	}
	return nil
}
