package pipeline_test

import (
	"slices"
	"testing"
	"time"
)

// The critical path of a turn, for BenchmarkTurn: walking back from the
// turn's end, each step goes to what the work at that moment waited on —
// the call that ended just then (a blocker: the answer waits for the last
// task, a task for its dependency), else the controller call or expert
// running then (a producer: a task starts while the selection reply, or
// the plan, is still being decoded), else nothing: a gap, Chorus's own
// time between the two. The path's controller and expert time, and its
// gaps, add up to the turn's wall time; work off the path (tasks that ran
// beside another, reasons decoded while tasks ran) is what overlap hid.

// span is a busy interval of the controller or an expert.
type span struct{ s, e time.Time }

// critPath is a critical path's composition.
type critPath struct{ ctl, expert, gap time.Duration }

func (p critPath) add(q critPath) critPath {
	return critPath{p.ctl + q.ctl, p.expert + q.expert, p.gap + q.gap}
}

// critSlack is how close two instants must be to count as one: an event
// and the HTTP exchange that carried it are not simultaneous to the
// nanosecond.
const critSlack = 3 * time.Millisecond

func criticalPath(start, end time.Time, ctl, experts []span) critPath {
	type item struct {
		span
		ctl bool
	}
	var all []item
	for _, c := range ctl {
		all = append(all, item{c, true})
	}
	for _, x := range experts {
		all = append(all, item{x, false})
	}
	var p critPath
	t := end
	for steps := 0; t.Sub(start) > critSlack && steps < 1000; steps++ {
		// A blocker: the item that ended last, at t.
		var at *item
		for i := range all {
			it := &all[i]
			if it.s.Before(t) && it.e.After(t.Add(-critSlack)) && !it.e.After(t.Add(critSlack)) && (at == nil || it.e.After(at.e)) {
				at = it
			}
		}
		// Else a producer: an item running at t.
		if at == nil {
			for i := range all {
				it := &all[i]
				if it.s.Before(t) && it.e.After(t) && (at == nil || it.ctl) {
					at = it
				}
			}
		}
		if at == nil {
			// A gap back to the latest end before t.
			latest := start
			for _, it := range all {
				if it.e.Before(t) && it.e.After(latest) {
					latest = it.e
				}
			}
			p.gap += t.Sub(latest)
			t = latest
			continue
		}
		from := at.s
		if from.Before(start) {
			from = start
		}
		if at.ctl {
			p.ctl += t.Sub(from)
		} else {
			p.expert += t.Sub(from)
		}
		t = from
	}
	return p
}

// maxOverlap is the most spans in flight at once.
func maxOverlap(spans []span) int {
	type edge struct {
		at time.Time
		d  int
	}
	var edges []edge
	for _, s := range spans {
		edges = append(edges, edge{s.s, 1}, edge{s.e, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.d - b.d // an end before a start at the same instant
	})
	most, n := 0, 0
	for _, e := range edges {
		n += e.d
		most = max(most, n)
	}
	return most
}

// TestCriticalPath checks the walk on hand-made turns.
func TestCriticalPath(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	sp := func(a, b int) span { return span{at(a), at(b)} }
	cases := []struct {
		name         string
		ctl, experts []span
		end          int
		want         critPath
	}{
		{"plan, task, answer in sequence", []span{sp(0, 1000), sp(1410, 3000)}, []span{sp(1005, 1400)}, 3000,
			critPath{ctl: 2590 * time.Millisecond, expert: 395 * time.Millisecond, gap: 15 * time.Millisecond}},
		{"a task started mid-plan, hidden by it", []span{sp(0, 1000), sp(1000, 3000)}, []span{sp(500, 900)}, 3000,
			critPath{ctl: 3000 * time.Millisecond}},
		{"the last task started mid-selection and outlived it", []span{sp(0, 1000), sp(1000, 1800), sp(2200, 4000)}, []span{sp(1200, 1600), sp(1400, 2200)}, 4000,
			critPath{ctl: 1000*time.Millisecond + 400*time.Millisecond + 1800*time.Millisecond, expert: 800 * time.Millisecond}},
	}
	for _, c := range cases {
		if got := criticalPath(t0, at(c.end), c.ctl, c.experts); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	if n := maxOverlap([]span{sp(0, 10), sp(5, 20), sp(10, 30), sp(12, 13)}); n != 3 {
		t.Errorf("max overlap = %d, want 3", n)
	}
}
