package ui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/ui/chat"
	"github.com/chorusai/chorus/ui/dialog"
	"github.com/chorusai/chorus/ui/prompt"
	"github.com/chorusai/chorus/ui/theme"
)

// Model is the Bubble Tea model of the chat. Its methods have pointer
// receivers: rendering caches live in it, and Bubble Tea calls Update and
// View from one goroutine only. The pipeline runs elsewhere and reaches the
// model only through pump messages.
type Model struct {
	opts Options
	// conv is the chat service's conversation: the engine, the standing
	// constraints, the recording and the session, which it records and
	// saves.
	conv  *conversation.Chat
	keys  theme.KeyMap
	st    theme.Styles
	md    *chat.Markdown
	media mediaPreviewer
	now   func() time.Time

	width, height int
	// links is false where OSC 8 would show as garbage (TERM=dumb).
	links bool
	// images is false under NO_COLOR or when previews are off.
	images bool

	chat  chat.View
	input *prompt.Prompt

	// turns are this session's turns, oldest first; cur is the one
	// running, if any.
	turns   []*shownTurn
	cur     *shownTurn
	cancel  context.CancelFunc
	curPump *pump
	// submitting is set while a sent prompt's attachments are checked.
	submitting bool
	// draining: the server is restarting (drain.go); no new turn starts.
	// drained: its turns have finished; the chat ends with its own.
	draining, drained bool
	nextTurn          int

	review bool
	debug  bool
	raw    bool

	panes panes

	server    serverState
	serverGen int
	// serverRetry is the pause between checks while the server is missing
	// (serverRetryEvery; tests shorten it).
	serverRetry time.Duration
	pull        *pullState
	play        *playState
	// sshPlayAsked is the audio file whose playback over ssh was offered
	// as a link instead; pressing play again for it plays it anyway.
	sshPlayAsked string

	dialog dialog.Dialog
	// onPick is what choosing an item of the open list does.
	onPick func(i int) tea.Cmd
	// planReview is the newest plan put up for review.
	planReview *planReview
	// approvals are the questions about tools that may change things,
	// the first one shown (approval.go); allowedTools those the user
	// allowed for the rest of the chat.
	approvals    []approvalRequest
	allowedTools []string
	// cancelledByKey is set while the last key pressed was a Ctrl+C that
	// cancelled something, so a second one right after does not quit.
	cancelledByKey bool
	// notice is the one-line message above the prompt.
	notice notice

	// thumbs caches inline previews by path and width.
	thumbs map[chat.ThumbKey]string

	saveErr error
	// saves counts background saves in flight.
	saves *inFlight
	// sessionIDs, sessionTitles and pulledModels feed Tab completion of
	// /load and /model; they are refreshed whenever the app lists them
	// anyway.
	sessionIDs    []string
	sessionTitles []string
	pulledModels  []string
	quitting      bool

	// ws is where the chat's files live (confined for a remote user).
	ws workspace
}

// New builds the model without starting a program: Run uses it, and tests
// drive it directly or through teatest.
func New(opts Options) (*Model, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	km, err := theme.NewKeyMap(opts.Config.UI.Keys)
	if err != nil {
		return nil, err
	}
	getenv := opts.Getenv
	m := &Model{
		opts: opts,
		conv: opts.Service.Chat(conversation.ChatOptions{Constraints: opts.Constraints, OutputDir: opts.OutputDir,
			Workspace: opts.Workspace, Approve: opts.Approve, System: opts.System, SpillQuota: opts.SpillQuota}),
		keys:        km,
		st:          theme.NewStyles(),
		md:          chat.NewMarkdown(chat.GlamourStyle(getenv)),
		now:         opts.Now,
		review:      opts.Config.UI.Review,
		debug:       opts.Config.UI.Debug,
		panes:       panes{shown: true},
		links:       getenv("TERM") != "dumb",
		thumbs:      map[chat.ThumbKey]string{},
		width:       80,
		height:      24,
		serverRetry: serverRetryEvery,
		saves:       newInFlight(),
	}
	m.media = newTermMedia(getenv)
	if opts.Remote != "" {
		m.media = remoteMedia{mediaPreviewer: m.media, from: opts.Remote}
	}
	m.images = m.media != nil && m.media.Protocol() != "off"
	m.ws = newWorkspace(opts.Workspace)
	m.input = prompt.New(km, prompt.Completer{Commands: completions(), Args: m.commandArgs, ReadDir: m.ws.readDir, Expand: m.ws.expand, Confine: m.ws.confine})
	m.input.SetCharLimit(int(m.maxPaste())) // keys typed one by one are bounded too
	if opts.Resume != "" {
		err := m.loadSession(opts.Resume)
		switch {
		case err == nil:
			m.keepNamedModel()
		case conversation.IsLatest(opts.Resume) && errors.Is(err, conversation.ErrNotFound):
			// The first run with --resume latest: nothing is wrong.
			m.say("No saved session to resume yet (in `" + m.conv.Service().Dir() + "`) — this chat starts a new one.")
		default:
			m.systemError(err.Error())
		}
	}
	m.warnUnqualifiable() // the config's constraints
	if opts.Intro != "" {
		m.say(opts.Intro)
	}
	m.layout()
	return m, nil
}

// Init starts the controller server check.
func (m *Model) Init() tea.Cmd {
	if m.opts.WarmOnOpen {
		m.warm()
	}
	return tea.Batch(m.checkServer(), tea.RequestWindowSize, m.listSessions(quietList), m.listModelsQuiet())
}
