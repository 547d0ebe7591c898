package pipeline

import "github.com/chorusai/chorus/pipeline/flow"

// Picks sooner (controller.max_concurrent ≥ 2). A task offered while the
// plan streams whose model the controller must choose waits, on a
// one-slot server, for the one selection call after the plan: the slot is
// writing the plan. With a second slot that choice can be asked at once,
// on a branch of the conversation (the head and the chat log, then the
// selection message — the plan is not finished), so the first task of a
// chain runs while the later ones are still being planned. One such call
// per turn, for the tasks waiting when it starts: the tasks that become
// pending later are asked in the selection call after the plan, so a turn
// makes at most one controller call more than on one slot. One-slot
// servers (max_concurrent 1, Ollama's default) keep the single selection
// call.

// pickSoon asks the controller, on its second slot, to choose for every
// early task waiting for its choice, unless the turn asked so already or
// the plan has ended. Called with d.mu held.
func (d *dispatcher) pickSoon() {
	if !d.earlyPicks || d.picked || d.phase != offering {
		return
	}
	var runs []*taskRun
	var ask []*flow.Choice
	for _, r := range d.current {
		if r.pending != nil && r.withdrawn == "" {
			runs = append(runs, r)
			ask = append(ask, r.pending)
			r.pending = nil
		}
	}
	if len(ask) == 0 {
		return
	}
	d.picked = true
	d.picks.Add(1)
	go d.pickEarly(runs, ask)
}

// pickEarly makes one selection call for ask while the plan streams and
// publishes each pick the moment it decodes.
func (d *dispatcher) pickEarly(runs []*taskRun, ask []*flow.Choice) {
	defer d.picks.Done()
	byChoice := make(map[*flow.Choice]*taskRun, len(ask))
	for i, c := range ask {
		byChoice[c] = runs[i]
	}
	d.work.ask(d.pickCtx, ask, true, func(c *flow.Choice) {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.emit(c.Event())
		d.publish(byChoice[c], c)
	})
}
