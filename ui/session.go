package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// session is the chat's persistent identity: the ui/sessions record whose
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
func (t *turnState) record() sessions.Turn {
	rec := sessions.Turn{Request: t.request, Attachments: t.attachments, Cancelled: t.canceled,
		Started: t.started, Finished: t.ended, Report: t.report}
	if t.answer != nil {
		rec.Answer = t.answer.text
	}
	if t.plan != nil {
		rec.Plan, rec.PlanNotes, rec.Planned = t.plan.Tasks, t.plan.Notes, true
	}
	for _, ts := range t.tasks {
		if ts.choice != nil {
			rec.Models = append(rec.Models, *ts.choice)
		}
	}
	if t.err != nil && !t.canceled {
		rec.Error = t.fatalText()
	}
	rec.Resources = append(append([]string{}, t.attachments...), t.files()...)
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
		if t.done {
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

// loadCmd reads a session in a command.
func (m *Model) loadCmd(id string) tea.Cmd {
	st := m.session.store
	return func() tea.Msg {
		s, err := st.Open(id)
		return loadedMsg{s: s, err: err}
	}
}

// onLoaded saves the current session, then shows the loaded one.
func (m *Model) onLoaded(msg loadedMsg) tea.Cmd {
	if msg.err != nil {
		m.systemError(msg.err.Error())
		return nil
	}
	if m.running() {
		m.flash("a turn is running — cancel it first ("+m.keys.Label(ActCancel)+")", true)
		return nil
	}
	save := m.saveAsync()
	m.adopt(msg.s)
	m.layout()
	return tea.Batch(save, m.requestThumbs(), m.checkOllama())
}

// adopt shows a loaded session.
func (m *Model) adopt(s *sessions.Session) {
	if m.cancel != nil {
		m.cancel()
	}
	m.cur, m.curPump, m.cancel = nil, nil, nil
	m.chat.reset()
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
		m.turns = append(m.turns, t)
		m.chat.add(&message{role: roleUser, text: rec.Request, attachments: rec.Attachments, final: true})
		m.chat.add(t.answer)
		if rec.Error != "" {
			m.chat.add(&message{role: roleError, text: rec.Error, final: true})
		}
	}
	m.say(fmt.Sprintf("Session **%s** reopened (%s, saved %s). It continues here: earlier files can be referred to.",
		cmpStr(s.Title, s.ID), count(len(s.Turns), "turn"), s.Updated.Local().Format("2006-01-02 15:04")))
}

// turnFromRecord rebuilds a finished turn for the panes and the chat.
func turnFromRecord(id int, rec sessions.Turn, model string) *turnState {
	t := newTurn(id, rec.Request, rec.Attachments, model, rec.Started)
	t.done, t.ended, t.canceled = true, rec.Finished, rec.Cancelled
	if rec.Error != "" {
		t.err = fmt.Errorf("%s", rec.Error)
	}
	// Files written before Planned existed: a finished answer means
	// planning finished too.
	answered := rec.Report != nil && strings.TrimSpace(rec.Report.Answer) != ""
	if rec.Planned || rec.Plan != nil || rec.PlanNotes != nil || answered {
		t.apply(pipeline.PlanEvent{Tasks: rec.Plan, Notes: rec.PlanNotes}, rec.Started)
	}
	for _, me := range rec.Models {
		t.apply(me, rec.Started)
	}
	if rec.Report != nil {
		rep := *rec.Report
		t.report = &rep
		for _, tr := range rep.Tasks {
			ts := t.task(tr.ID, tr.Task)
			ts.model, ts.endpoint, ts.result, ts.files, ts.err = tr.Model, tr.Endpoint, tr.Result, tr.Files, tr.Error
			ts.elapsed = time.Duration(tr.ElapsedMS) * time.Millisecond
			switch {
			case tr.Skipped:
				ts.status = taskSkipped
			case tr.Status == pipeline.StatusOK:
				ts.status = taskDone
			default:
				ts.status = taskFailed
			}
		}
	}
	for _, ts := range t.tasks {
		if ts.status == taskPending {
			ts.status = taskSkipped
		}
	}
	a := &message{role: roleAssistant, text: rec.Answer, final: true, files: rec.Resources}
	a.files = nil
	for _, r := range rec.Resources {
		if !containsStr(rec.Attachments, r) {
			a.files = append(a.files, r)
		}
	}
	meta := []string{model}
	if !rec.Finished.IsZero() && !rec.Started.IsZero() {
		meta = append(meta, humanDuration(rec.Finished.Sub(rec.Started)))
	}
	a.meta = strings.Join(meta, " · ")
	if strings.TrimSpace(a.text) == "" {
		switch {
		case rec.Cancelled:
			a.text = "_Cancelled._"
		default:
			a.text = "_No answer._"
		}
	}
	t.answer = a
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
	m.chat.reset()
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
	m.sessionIDs = m.sessionIDs[:0]
	for _, s := range msg.list {
		m.sessionIDs = append(m.sessionIDs, s.ID)
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
	var items []listItem
	for _, s := range msg.list {
		detail := fmt.Sprintf("%s · %s · %s", s.Updated.Local().Format("2006-01-02 15:04"), count(s.Turns, "turn"), s.ID)
		if s.Damaged != "" {
			detail = "damaged: " + s.Damaged
		}
		items = append(items, listItem{label: cmpStr(s.Title, "(untitled)"), detail: detail})
	}
	list := msg.list
	m.dialog = &listDialog{title: "Sessions", items: items, hint: "opens the session",
		choose: func(m *Model, i int) tea.Cmd {
			if list[i].Damaged != "" {
				m.flash("that session file is damaged: "+list[i].Damaged, true)
				return nil
			}
			return m.loadCmd(list[i].ID)
		}}
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
	path = expandPath(path)
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
