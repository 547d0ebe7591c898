package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/turnview"
)

// The session's record — what is saved, and when — is the chat service's
// (conversation.Chat): the TUI shows turns and asks for them. Saving merges
// with what other writers (chorus run --continue, another window) saved, so
// their turns appear here too, with a note (takeSync).

// saveDone reports a background save.
type saveDone struct {
	// current says the save was of the session on screen: the turns
	// another writer added are shown.
	current bool
	sess    *conversation.Session
	sync    conversation.Sync
	err     error
}

// saveNow is /save: it saves the session at once, renamed to title when
// one is given.
func (m *Model) saveNow(title string) tea.Cmd {
	sess := m.conv.Session()
	if title != "" {
		sess.SetTitle(title)
	}
	if sess.Len() == 0 {
		m.flash("nothing to save yet — the session is saved after its first turn", true)
		return nil
	}
	m.flash("session saved as "+sess.ID(), false)
	return m.saveCmd(sess, true)
}

// saveCmd saves sess in a command, so Update never waits for the disk.
// current says sess is the session on screen.
func (m *Model) saveCmd(sess *conversation.Session, current bool) tea.Cmd {
	if sess.Len() == 0 {
		return nil
	}
	saves := m.saves
	saves.add()
	return func() tea.Msg {
		defer saves.done()
		sync, err := sess.Save()
		return saveDone{current: current, sess: sess, sync: sync, err: err}
	}
}

// loadSession replaces the chat with a saved session ("latest" for the
// newest), which then continues: its turns become the history of the next
// request.
func (m *Model) loadSession(id string) error {
	s, err := m.conv.Service().Open(id)
	if err != nil {
		return err
	}
	m.conv.Adopt(s)
	m.show(s)
	return nil
}

// keepNamedModel makes the model the user named (chorus -m) the
// controller of the session just resumed, in place of the one it was saved
// with, and says so on the status line.
func (m *Model) keepNamedModel() {
	named, saved := m.opts.Model, m.conv.Model()
	if named == "" || named == saved {
		return
	}
	m.conv.SetModel(named)
	m.flash("controller "+named+" (-m), not the session's "+saved, false)
}

// loadedMsg carries a session read off the UI goroutine.
type loadedMsg struct {
	s   *conversation.Session
	err error
}

// load is /load: with an argument it reopens that session, without one
// it lists them to pick from.
func (m *Model) load(arg string) tea.Cmd {
	if arg == "" {
		return m.listSessions(!quietList)
	}
	return m.loadCmd(arg)
}

// sessionNames completes /load: titles first (what people remember), then
// ids — only those already listed: completion must not read the disk on
// every key. /sessions fills the cache.
func (m *Model) sessionNames() []string {
	return append(slices.Clone(m.sessionTitles), m.sessionIDs...)
}

// loadCmd reads a session in a command; arg is an id, "latest" or a
// title (conversation.Service.Find).
func (m *Model) loadCmd(arg string) tea.Cmd {
	svc := m.conv.Service()
	return func() tea.Msg {
		id, err := svc.Find(arg)
		if err != nil {
			return loadedMsg{err: err}
		}
		s, err := svc.Open(id)
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
		m.flash(m.busyRefusal(), true)
		return nil
	}
	prev := m.conv.Adopt(msg.s)
	m.show(msg.s)
	m.warm()
	m.layout()
	return tea.Batch(m.saveCmd(prev, false), m.requestThumbs(), m.checkServer())
}

// show puts a loaded session on screen in place of the chat.
func (m *Model) show(s *conversation.Session) {
	if m.cancel != nil {
		m.cancel()
	}
	m.cur, m.curPump, m.cancel = nil, nil, nil
	m.chat.Reset()
	m.turns = nil
	turns := s.Turns()
	for _, rec := range turns {
		t := m.recordTurn(rec, s.Model())
		m.turns = append(m.turns, t)
		for _, msg := range t.messages(rec) {
			m.chat.Add(msg)
		}
	}
	m.say(fmt.Sprintf("Session **%s** reopened (%s, saved %s). It continues here: earlier files can be referred to.",
		cmp.Or(s.Title(), s.ID()), chat.Count(len(turns), "turn"), s.Updated().Local().Format("2006-01-02 15:04")))
}

// recordTurn is the on-screen turn of a saved record.
func (m *Model) recordTurn(rec conversation.Record, model string) *shownTurn {
	m.nextTurn++
	t := turnFromRecord(m.nextTurn, rec, model)
	t.recID, t.loaded = rec.ID, true
	return t
}

// messages are the chat entries of a saved turn: the request, the
// answer, and why it failed.
func (t *shownTurn) messages(rec conversation.Record) []*chat.Message {
	t.user = &chat.Message{Role: chat.RoleUser, Text: rec.Request, Attachments: rec.Attachments, Final: true}
	out := []*chat.Message{t.user, t.entry}
	if rec.Error != "" {
		out = append(out, &chat.Message{Role: chat.RoleError, Text: rec.Error, Final: true})
	}
	return out
}

// takeSync shows the turns another writer (chorus run --continue, another
// window, another ssh chat) added to the session on screen, each where it
// belongs in the session's order, after a one-line note.
func (m *Model) takeSync(sync conversation.Sync) {
	if len(sync.Added) == 0 {
		return
	}
	model := m.conv.Model()
	note := &chat.Message{Role: chat.RoleSystem, Final: true,
		Text: fmt.Sprintf("%s of this session saved elsewhere meanwhile (chorus run, another window) — shown in their place.", chat.Count(len(sync.Added), "turn"))}
	noted := false
	for _, a := range sync.Added {
		t := m.recordTurn(a.Record, model)
		msgs := t.messages(a.Record)
		if !noted {
			msgs = append([]*chat.Message{note}, msgs...)
			noted = true
		}
		at := slices.IndexFunc(m.turns, func(x *shownTurn) bool { return a.Before != "" && x.recID == a.Before })
		if at < 0 && m.cur != nil {
			at = slices.Index(m.turns, m.cur) // before the turn still running
		}
		if at < 0 || m.turns[at].user == nil {
			for _, msg := range msgs {
				m.chat.Add(msg)
			}
			m.turns = append(m.turns, t)
			continue
		}
		for _, msg := range msgs {
			m.chat.InsertBefore(m.turns[at].user, msg)
		}
		m.turns = slices.Insert(m.turns, at, t)
	}
}

// turnFromRecord rebuilds a finished turn for the panes and the chat.
func turnFromRecord(id int, rec conversation.Record, model string) *shownTurn {
	t := newShownTurn(id, rec.Request, rec.Attachments, model, rec.Started)
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
	if m.cancel != nil {
		m.cancel()
	}
	m.cur, m.curPump, m.cancel = nil, nil, nil
	m.turns = nil
	m.chat.Reset()
	prev := m.conv.NewSession()
	m.flash("new session — the previous one is saved (/sessions lists them)", false)
	return m.saveCmd(prev, false)
}

// sessionsMsg carries the saved sessions for /sessions and /load.
type sessionsMsg struct {
	list []conversation.Summary
	err  error
	// quiet refreshes the completion list without showing anything.
	quiet bool
}

// quietList asks listSessions for completion data only.
const quietList = true

func (m *Model) listSessions(quiet bool) tea.Cmd {
	svc, saves := m.conv.Service(), m.saves
	return func() tea.Msg {
		saves.Wait() // the list shows what was just saved
		l, err := svc.List()
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
		m.say("No saved sessions yet in `" + m.conv.Service().Dir() + "`.")
		return
	}
	var items []dialog.SessionItem
	for _, s := range msg.list {
		detail := fmt.Sprintf("%s · %s · %s", s.Updated.Local().Format("2006-01-02 15:04"), chat.Count(s.Turns, "turn"), s.ID)
		items = append(items, dialog.SessionItem{ID: s.ID, Title: cmp.Or(s.Title, "(untitled)"), Detail: detail, Text: s.Text, Damaged: s.Damaged})
	}
	list := msg.list
	m.openDialog(dialog.NewSessions(m.keys, &m.st, items, m.conv.Session().ID()),
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
	svc := m.conv.Service()
	return func() tea.Msg { return deletedMsg{id: id, err: svc.Delete(id)} }
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
	sess := m.conv.Session()
	if sess.Len() == 0 {
		m.flash("nothing to export yet", true)
		return nil
	}
	if path == "" {
		path = conversation.ExportName(sess.ID())
	}
	path = m.ws.expand(path)
	if err := m.ws.check(path); err != nil {
		m.flash("export failed: "+err.Error(), true)
		return nil
	}
	return func() tea.Msg { return exportDone{path: path, err: sess.WriteExport(path)} }
}

type exportDone struct {
	path string
	err  error
}

// onSaveDone reports a background save that failed, and shows the turns
// another writer added to the session on screen.
func (m *Model) onSaveDone(msg saveDone) tea.Cmd {
	if msg.err != nil {
		m.flash("the session was not saved: "+msg.err.Error(), true)
		return nil
	}
	if msg.current && msg.sess == m.conv.Session() {
		m.takeSync(msg.sync)
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

// inFlight counts background saves, so a listing or the way out can wait
// for those already asked for. Unlike a WaitGroup, waiting while another
// save is being added is fine.
type inFlight struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int
}

func newInFlight() *inFlight {
	f := &inFlight{}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *inFlight) add() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inFlight) done() {
	f.mu.Lock()
	f.n--
	f.mu.Unlock()
	f.cond.Broadcast()
}

// Wait returns when no save is in flight.
func (f *inFlight) Wait() {
	f.mu.Lock()
	for f.n > 0 {
		f.cond.Wait()
	}
	f.mu.Unlock()
}
