package ui

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/ui/theme"
)

// serverRetryEvery is how often an unreachable controller server is asked
// again.
const serverRetryEvery = 5 * time.Second

// serverState is what the app knows about the controller's server.
type serverState struct {
	checked   bool
	reachable bool
	pulled    bool
	version   string
	// announced records what the chat last said, so a retry loop does not
	// repeat itself every five seconds.
	announced string
}

// serverMsg is the result of a check. gen tells the latest check from
// older ones still in flight (a controller switch starts a new check).
type serverMsg struct {
	gen    int
	model  string
	status conversation.ControllerStatus
	// afterTurn marks the check that follows a failed turn: the turn's
	// error has already told the user what is wrong, so the check updates
	// the status bar and starts the retries without saying it again.
	afterTurn bool
}

// serverRetryMsg triggers the next check of generation gen.
type serverRetryMsg struct{ gen int }

// checkServer asks the controller's server whether it is up and has the
// model, off the UI goroutine. It supersedes any earlier check and its
// retries.
func (m *Model) checkServer() tea.Cmd {
	m.serverGen++
	gen := m.serverGen
	conv := m.conv
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		model, st := conv.CheckController(ctx)
		return serverMsg{gen: gen, model: model, status: st}
	}
}

// recheckServer checks again after a turn failed: the server may have gone away
// (or lost the model) since the last check said it was fine. The status bar
// then shows it, and the retries announce its return.
func (m *Model) recheckServer() tea.Cmd {
	check := m.checkServer()
	return func() tea.Msg {
		msg := check().(serverMsg)
		msg.afterTurn = true
		return msg
	}
}

// onServerRetry runs the retry of the current check chain only.
func (m *Model) onServerRetry(msg serverRetryMsg) tea.Cmd {
	if msg.gen != m.serverGen {
		return nil
	}
	return m.checkServer()
}

// onServer records a check, tells the user what changed and how to fix
// it, and keeps checking while something is missing.
func (m *Model) onServer(msg serverMsg) tea.Cmd {
	if msg.gen != m.serverGen {
		return nil // superseded by a newer check
	}
	model, host := m.conv.Model(), m.conv.ControllerHost()
	if msg.model != model {
		return m.checkServer() // the controller changed meanwhile
	}
	st := msg.status
	o := &m.server
	wasDown := o.checked && !o.reachable
	o.checked, o.reachable, o.pulled, o.version = true, st.Reachable, st.Pulled, st.Version
	h := m.hints()
	var say, key string
	switch {
	case !st.Reachable:
		key = "down"
		say = fmt.Sprintf("**%s is not reachable at %s.** %s.", sentence(h.Server), host, sentence(h.Start))
		if h.Fetch != nil {
			say = fmt.Sprintf("**%s is not reachable at %s.** %s, then get the controller model: %s.", sentence(h.Server), host, sentence(h.Start), h.Fetch(model))
		}
		say += " Chorus keeps checking in the background."
	case !st.Pulled:
		key = "nomodel"
		detail := ""
		if st.Err != nil && !errors.Is(st.Err, conversation.ErrModelMissing) {
			detail = " (" + st.Err.Error() + ")"
		}
		fix := "Pick a model it has with `/model`, or set `controller.model`."
		if h.Fetch != nil {
			fix = sentence(h.Fetch(model)) + ", or pick a model it has with `/model`."
		}
		say = fmt.Sprintf("**%s is up, but the controller model `%s` is %s**%s. %s",
			serverName(h, st.Version), model, h.Missing, detail, fix)
	default:
		key = "ok"
		if wasDown || o.announced == "nomodel" {
			say = fmt.Sprintf("%s is reachable now; `%s` is ready.", serverName(h, st.Version), model)
		}
	}
	if key != o.announced {
		o.announced = key
		if say != "" && !(msg.afterTurn && key != "ok") {
			if key == "ok" {
				m.say(say)
			} else {
				m.systemError(say)
			}
		}
	}
	if key == "ok" {
		return nil
	}
	gen := m.serverGen
	return tea.Tick(m.serverRetry, func(time.Time) tea.Msg { return serverRetryMsg{gen: gen} })
}

// serverName is "Ollama 0.11.4", or just "Ollama" when the server did not
// say its version (it is asked for best-effort): the backend's name for
// its server, opening a sentence.
func serverName(h conversation.ControllerHints, version string) string {
	if version == "" {
		return sentence(h.Server)
	}
	return sentence(h.Server) + " " + version
}

// sentence capitalises the first letter of s, to open a sentence.
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// pullState follows a /pull.
type pullState struct {
	model     string
	status    string
	completed int64
	total     int64
	cancel    context.CancelFunc
	p         *pump
}

// pullProgressMsg and pullDoneMsg come from the pull goroutine via a pump.
type pullProgressMsg struct{ p conversation.PullProgress }

type pullDoneMsg struct {
	model string
	err   error
}

// hints are the controller backend's words for its server and its fixes;
// where pulling is off (Options.NoPull) the fix for a missing model names
// the server's admin instead of /pull.
func (m *Model) hints() conversation.ControllerHints {
	h := m.conv.ControllerHints()
	if m.opts.NoPull {
		h.Fetch = func(model string) string {
			return "ask the server's admin to get `" + model + "` onto it (pulling is off here: serve.allow_pull)"
		}
	}
	return h
}

// pullNamed is /pull NAME: without a name it says how to use it.
func (m *Model) pullNamed(model string) tea.Cmd {
	if model == "" {
		m.flash("usage: /pull NAME, e.g. /pull "+m.conv.Model(), true)
		return nil
	}
	return m.startPull(model)
}

// startPull pulls model in the background, streaming progress.
func (m *Model) startPull(model string) tea.Cmd {
	if m.opts.NoPull {
		m.systemError(fmt.Sprintf("Pulling models is off on this server: `%s` would be downloaded onto it for every user (serve.allow_pull). Ask its admin, or pick a model it has with `/model`.", model))
		return nil
	}
	if m.pull != nil {
		m.flash("a pull of "+m.pull.model+" is running — wait for it, or "+m.keys.Label(theme.ActCancel)+" to stop it", true)
		return nil
	}
	if !m.conv.CanPull() {
		m.systemError(m.conv.Pull(context.Background(), model, nil).Error())
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := newPump(-1)
	m.pull = &pullState{model: model, status: "starting", cancel: cancel, p: p}
	conv := m.conv
	run := func() tea.Msg {
		err := conv.Pull(ctx, model, func(pr conversation.PullProgress) { p.push(pullProgressMsg{pr}) })
		p.push(pullDoneMsg{model: model, err: err})
		return nil
	}
	return tea.Batch(run, p.listen())
}

// onPullItems applies a batch of pull progress.
func (m *Model) onPullItems(items []any) tea.Cmd {
	if m.pull == nil {
		return nil
	}
	for _, it := range items {
		switch it := it.(type) {
		case pullProgressMsg:
			m.pull.status = it.p.Status
			if it.p.Total > 0 {
				m.pull.completed, m.pull.total = it.p.Completed, it.p.Total
			}
		case pullDoneMsg:
			m.pull.cancel()
			m.pull = nil
			m.ended(pullActivity)
			switch {
			case errors.Is(it.err, context.Canceled):
				m.say(fmt.Sprintf("Pull of `%s` stopped.", it.model))
			case it.err != nil:
				m.systemError(fmt.Sprintf("Pulling `%s` failed: %v", it.model, it.err))
			default:
				m.say(fmt.Sprintf("Pulled `%s`. Switch to it with `/model %s`.", it.model, it.model))
				return m.checkServer()
			}
			return nil
		}
	}
	return m.pull.p.listen()
}

// progressBar draws a bar of width w for done/total.
func progressBar(done, total int64, w int) string {
	if w < 3 {
		return ""
	}
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	frac = min(max(frac, 0), 1)
	full := int(frac * float64(w))
	bar := make([]rune, w)
	for i := range bar {
		if i < full {
			bar[i] = '█'
		} else {
			bar[i] = '░'
		}
	}
	return string(bar)
}
