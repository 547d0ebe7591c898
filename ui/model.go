package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// Model is the Bubble Tea model of the chat. Its methods have pointer
// receivers: rendering caches live in it, and Bubble Tea calls Update and
// View from one goroutine only. The pipeline runs elsewhere and reaches the
// model only through pump messages.
type Model struct {
	opts  Options
	eng   *pipeline.Engine
	keys  KeyMap
	st    styles
	md    *markdown
	media mediaPreviewer
	now   func() time.Time

	width, height int
	// links is false where OSC 8 would show as garbage (TERM=dumb).
	links bool
	// images is false under NO_COLOR or when previews are off.
	images bool

	chat  chatView
	input promptInput
	comp  completer

	// turns are this session's turns, oldest first; cur is the one
	// running, if any.
	turns   []*turnState
	cur     *turnState
	cancel  context.CancelFunc
	curPump *pump
	// submitting is set while a sent prompt's attachments are checked.
	submitting bool
	nextTurn   int

	constraints pipeline.Constraints
	review      bool
	debug       bool
	raw         bool

	panesShown bool
	paneTab    paneKind
	// tabPinned is set when the user picked a tab during this turn, so the
	// stage no longer switches it.
	tabPinned  bool
	paneScroll int

	ollama    ollamaState
	ollamaGen int
	// ollamaRetry is the pause between checks while Ollama is missing
	// (ollamaRetryEvery; tests shorten it).
	ollamaRetry time.Duration
	pull        *pullState
	play        *playState

	dialog dialog
	// cancelledByKey is set while the last key pressed was a Ctrl+C that
	// cancelled something, so a second one right after does not quit.
	cancelledByKey bool
	// notice is a one-line message above the prompt (copied, errors of
	// commands); it clears on the next key. A notice about something under
	// way ("cancelling the turn…") names it in noticeWhile and also clears
	// when that ends, so it never outlives what it describes.
	notice      string
	noticeBad   bool
	noticeWhile activity

	// thumbs caches inline previews by path and width.
	thumbs map[thumbKey]string

	session *session
	saveErr error
	// saves counts background saves in flight; saveOrder keeps them from
	// landing out of order.
	saves     sync.WaitGroup
	saveOrder *sessions.SaveOrder
	// sessionIDs and pulledModels feed Tab completion of /load and /model;
	// they are refreshed whenever the app lists them anyway.
	sessionIDs   []string
	pulledModels []string
	quitting     bool
}

// New builds the model without starting a program: Run uses it, and tests
// drive it directly or through teatest.
func New(opts Options) (*Model, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	km, err := NewKeyMap(opts.Config.UI.Keys)
	if err != nil {
		return nil, err
	}
	getenv := opts.Getenv
	m := &Model{
		opts:        opts,
		eng:         opts.Engine,
		keys:        km,
		st:          newStyles(),
		md:          newMarkdown(glamourStyle(getenv)),
		now:         opts.Now,
		constraints: opts.Constraints,
		review:      opts.Config.UI.Review,
		debug:       opts.Config.UI.Debug,
		panesShown:  true,
		links:       getenv("TERM") != "dumb",
		thumbs:      map[thumbKey]string{},
		width:       80,
		height:      24,
		ollamaRetry: ollamaRetryEvery,
		saveOrder:   &sessions.SaveOrder{},
	}
	m.media = newTermMedia(getenv)
	m.images = m.media != nil && m.media.Protocol() != "off"
	m.input = newPromptInput(km)
	m.comp = completer{commands: commands, args: m.commandArgs, readDir: os.ReadDir}
	m.session = m.newSession()
	if opts.Resume != "" {
		err := m.loadSession(opts.Resume)
		switch {
		case err == nil:
		case sessions.IsLatest(opts.Resume) && errors.Is(err, sessions.ErrNotFound):
			// The first run with --resume latest: nothing is wrong.
			m.say("No saved session to resume yet (in `" + m.session.store.Dir + "`) — this chat starts a new one.")
		default:
			m.systemError(err.Error())
		}
	}
	m.layout()
	return m, nil
}

// glamourStyle picks the Markdown theme: GLAMOUR_STYLE when set, "notty"
// for dumb terminals, else dark.
func glamourStyle(getenv func(string) string) string {
	if s := getenv("GLAMOUR_STYLE"); s != "" {
		switch s {
		case "dark", "light", "notty", "ascii", "dracula", "pink", "tokyo-night":
			return s
		}
	}
	if getenv("TERM") == "dumb" {
		return "notty"
	}
	return "dark"
}

// Init starts the Ollama check.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.checkOllama(), tea.RequestWindowSize, m.listSessions(quietList), m.listModelsQuiet())
}

// running reports whether a turn is in flight.
func (m *Model) running() bool { return m.cur != nil && !m.cur.done }

// lastTurn returns the running turn or the newest one.
func (m *Model) lastTurn() *turnState {
	if m.cur != nil {
		return m.cur
	}
	if n := len(m.turns); n > 0 {
		return m.turns[n-1]
	}
	return nil
}

// renderCtx describes how chat messages render now.
func (m *Model) renderCtx(width int) renderCtx {
	return renderCtx{md: m.md, st: &m.st, width: width, raw: m.raw, links: m.links, media: m.media,
		images: m.images, thumbs: m.thumbs, termHeight: m.height}
}

// say adds an app message to the chat.
func (m *Model) say(text string) {
	m.chat.add(&message{role: roleSystem, text: text, final: true})
	m.chat.follow()
}

// systemError adds an error message to the chat.
func (m *Model) systemError(text string) {
	m.chat.add(&message{role: roleError, text: text, final: true})
	m.chat.follow()
}

// flash sets the one-line notice above the prompt. An error too long for
// that line (or of several lines) is also written to the chat in full: the
// hint line would cut it, and the end of an error is often the part that
// says what to do.
func (m *Model) flash(text string, bad bool) {
	m.notice, m.noticeBad, m.noticeWhile = text, bad, noActivity
	if bad && (ansi.StringWidth(text) > m.width-1 || strings.Contains(text, "\n")) {
		m.systemError(text)
	}
}

// activity is something under way that a notice can describe.
type activity int

const (
	noActivity activity = iota
	turnActivity
	pullActivity
)

// flashWhile sets a notice about an activity under way; it clears when the
// activity ends (or on the next key, like any notice).
func (m *Model) flashWhile(text string, a activity) {
	m.notice, m.noticeBad, m.noticeWhile = text, false, a
}

// ended clears the notice about activity a, if it is the one shown.
func (m *Model) ended(a activity) {
	if m.notice != "" && m.noticeWhile == a {
		m.notice, m.noticeWhile = "", noActivity
	}
}

// shutdown cancels a running turn and playback and saves the session; a
// turn cut off by quitting is saved as cancelled, with its partial answer.
func (m *Model) shutdown() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.running() {
		m.cur.finish(nil, fmt.Errorf("%w: Chorus was closed", pipeline.ErrCancelled), m.now())
	}
	if m.play != nil {
		m.play.cancel()
	}
	if m.pull != nil {
		m.pull.cancel()
	}
	m.save()
}

// lastAnswer returns the newest assistant message with text.
func (m *Model) lastAnswer() *message {
	for i := len(m.chat.msgs) - 1; i >= 0; i-- {
		if msg := m.chat.msgs[i]; msg.role == roleAssistant && strings.TrimSpace(msg.text) != "" {
			return msg
		}
	}
	return nil
}
