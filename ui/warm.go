package ui

// warm sends the next turn's stable prompt head to the controller in the
// background (conversation.Chat.Warm), so the first request after the user
// has been typing prefills only its own tail: when the chat opens
// (Options.WarmOnOpen), after /model and after loading a session. The
// chat's next turn cancels a warm-up still in flight. It never warms while
// recording (/record): the tape would keep the warm-up as a planning
// reply, and its replay would answer a request with it.
//
// Chat.Warm only spawns the warm-up and returns, so it is called here, on
// the program's goroutine.
func (m *Model) warm() {
	if !m.opts.Warm || m.running() {
		return
	}
	if path, _ := m.conv.Recording(); path != "" {
		return
	}
	m.conv.Warm()
}
