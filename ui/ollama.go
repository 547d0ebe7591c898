package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/chorusai/chorus/controller"
	"github.com/chorusai/chorus/ui/theme"
)

// ollamaRetryEvery is how often an unreachable Ollama is asked again.
const ollamaRetryEvery = 5 * time.Second

// ollamaState is what the app knows about the controller's server.
type ollamaState struct {
	checked   bool
	reachable bool
	pulled    bool
	version   string
	// announced records what the chat last said, so a retry loop does not
	// repeat itself every five seconds.
	announced string
}

// ollamaMsg is the result of a check. gen tells the latest check from
// older ones still in flight (a controller switch starts a new check).
type ollamaMsg struct {
	gen    int
	model  string
	status controller.Status
	// afterTurn marks the check that follows a failed turn: the turn's
	// error has already told the user what is wrong, so the check updates
	// the status bar and starts the retries without saying it again.
	afterTurn bool
}

// ollamaRetryMsg triggers the next check of generation gen.
type ollamaRetryMsg struct{ gen int }

// checkOllama asks the controller's server whether it is up and has the
// model, off the UI goroutine. It supersedes any earlier check and its
// retries.
func (m *Model) checkOllama() tea.Cmd {
	m.ollamaGen++
	gen := m.ollamaGen
	ctl := m.eng.Controller()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return ollamaMsg{gen: gen, model: ctl.Model(), status: ctl.Check(ctx)}
	}
}

// recheckOllama checks again after a turn failed: Ollama may have gone away
// (or lost the model) since the last check said it was fine. The status bar
// then shows it, and the retries announce its return.
func (m *Model) recheckOllama() tea.Cmd {
	check := m.checkOllama()
	return func() tea.Msg {
		msg := check().(ollamaMsg)
		msg.afterTurn = true
		return msg
	}
}

// onOllamaRetry runs the retry of the current check chain only.
func (m *Model) onOllamaRetry(msg ollamaRetryMsg) tea.Cmd {
	if msg.gen != m.ollamaGen {
		return nil
	}
	return m.checkOllama()
}

// onOllama records a check, tells the user what changed and how to fix
// it, and keeps checking while something is missing.
func (m *Model) onOllama(msg ollamaMsg) tea.Cmd {
	ctl := m.eng.Controller()
	if msg.gen != m.ollamaGen {
		return nil // superseded by a newer check
	}
	if msg.model != ctl.Model() {
		return m.checkOllama() // the controller changed meanwhile
	}
	st := msg.status
	o := &m.ollama
	wasDown := o.checked && !o.reachable
	o.checked, o.reachable, o.pulled, o.version = true, st.Reachable, st.Pulled, st.Version
	var say, key string
	switch {
	case !st.Reachable:
		key = "down"
		say = fmt.Sprintf("**Ollama is not reachable at %s.** Start it with `ollama serve`, then pull the controller model with `ollama pull %s` (or set `OLLAMA_HOST` / `controller.host` if it runs elsewhere). Chorus keeps checking in the background.",
			ctl.Host(), ctl.Model())
	case !st.Pulled:
		key = "nomodel"
		detail := ""
		if st.Err != nil && !errors.Is(st.Err, controller.ErrModelNotPulled) {
			detail = " (" + st.Err.Error() + ")"
		}
		say = fmt.Sprintf("**%s is up, but the controller model `%s` is not pulled**%s. Run `/pull %s` (or `ollama pull %s`), or pick a pulled model with `/model`.",
			ollamaName(st.Version), ctl.Model(), detail, ctl.Model(), ctl.Model())
	default:
		key = "ok"
		if wasDown || o.announced == "nomodel" {
			say = fmt.Sprintf("%s is reachable now; `%s` is ready.", ollamaName(st.Version), ctl.Model())
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
	gen := m.ollamaGen
	return tea.Tick(m.ollamaRetry, func(time.Time) tea.Msg { return ollamaRetryMsg{gen: gen} })
}

// ollamaName is "Ollama 0.11.4", or just "Ollama" when the server did not
// say its version (it is asked for best-effort).
func ollamaName(version string) string {
	if version == "" {
		return "Ollama"
	}
	return "Ollama " + version
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
type pullProgressMsg struct{ p controller.PullProgress }

type pullDoneMsg struct {
	model string
	err   error
}

// startPull pulls model in the background, streaming progress.
func (m *Model) startPull(model string) tea.Cmd {
	if m.pull != nil {
		m.flash("a pull of "+m.pull.model+" is running — wait for it, or "+m.keys.Label(theme.ActCancel)+" to stop it", true)
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := newPump(-1)
	m.pull = &pullState{model: model, status: "starting", cancel: cancel, p: p}
	ctl := m.eng.Controller()
	run := func() tea.Msg {
		err := ctl.Pull(ctx, model, func(pr controller.PullProgress) { p.push(pullProgressMsg{pr}) })
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
				return m.checkOllama()
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
