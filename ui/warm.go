package ui

// warm sends the next turn's stable prompt head to the controller in the
// background (conversation.Warmer), so the first request after the user
// has been typing prefills only its own tail. The chat warms when it opens
// (Options.WarmOnOpen), after /model and after loading a session; a turn
// starting cancels a warm-up still in flight. It never warms while
// recording (/record): the tape would keep the warm-up as a planning
// reply, and its replay would answer a request with it.
//
// Start only spawns the warm-up and returns, so it is called here, on the
// program's goroutine, in order with the turn's Stop.
func (m *Model) warm() {
	w := m.opts.Warmer
	if w == nil || m.tape != nil || m.running() {
		return
	}
	w.Start(m.eng, m.history())
}

// stopWarm cancels a warm-up in flight: the user's request goes first.
func (m *Model) stopWarm() {
	if w := m.opts.Warmer; w != nil {
		w.Stop()
	}
}
