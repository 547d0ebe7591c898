package ui

import "strings"

// chatView shows the chat log in a window of height rows. It renders only
// the messages in view: walking back from the newest, each message's lines
// come from its cache, so a frame costs the visible rows plus the message
// still streaming — not the length of the history.
type chatView struct {
	msgs []*message
	// fromBottom is how many lines the view is scrolled up from the end;
	// 0 follows new output.
	fromBottom int
	// lastLen is the line count of the newest message at the last frame,
	// so growth below a scrolled-up view does not move what the user reads.
	lastLen int
	lastMsg *message
}

func (c *chatView) add(m *message) { c.msgs = append(c.msgs, m) }

func (c *chatView) reset() { *c = chatView{} }

// last returns the newest message, or nil.
func (c *chatView) last() *message {
	if len(c.msgs) == 0 {
		return nil
	}
	return c.msgs[len(c.msgs)-1]
}

// scroll moves the view by n lines (positive: up, towards older).
func (c *chatView) scroll(n int) {
	c.fromBottom = max(0, c.fromBottom+n)
}

func (c *chatView) follow() { c.fromBottom = 0 }

func (c *chatView) toTop() { c.fromBottom = 1 << 30 }

// view returns exactly height lines (padded with blanks at the top when the
// log is short).
func (c *chatView) view(rc renderCtx, height int) []string {
	if height <= 0 {
		return nil
	}
	// Keep a scrolled-up view steady while the newest message grows.
	var newest []string
	if n := len(c.msgs); n > 0 {
		lm := c.msgs[n-1]
		newest = lm.render(rc)
		cur := len(newest)
		if c.fromBottom > 0 && lm == c.lastMsg && cur > c.lastLen {
			c.fromBottom += cur - c.lastLen
		}
		c.lastMsg, c.lastLen = lm, cur
	}
	skip := c.fromBottom
	// Collect message line slices from the newest back until the window
	// (plus the lines skipped below it) is full.
	var chunks [][]string
	need := height + skip
	got := 0
	for i := len(c.msgs) - 1; i >= 0 && got < need; i-- {
		ls := newest
		if i != len(c.msgs)-1 {
			ls = c.msgs[i].render(rc)
		}
		chunks = append(chunks, ls)
		got += len(ls)
	}
	if got < need && skip > 0 {
		// Scrolled past the top: clamp.
		over := min(skip, need-got)
		skip -= over
		c.fromBottom = skip
	}
	// Flatten only the lines we need, newest chunk last.
	window := make([]string, 0, height)
	end := got - skip // lines [0, end) of the concatenation (oldest first)
	start := max(0, end-height)
	pos := 0
	for i := len(chunks) - 1; i >= 0; i-- {
		ls := chunks[i]
		if pos+len(ls) <= start {
			pos += len(ls)
			continue
		}
		for j, l := range ls {
			k := pos + j
			if k >= start && k < end {
				window = append(window, l)
			}
		}
		pos += len(ls)
		if pos >= end {
			break
		}
	}
	if pad := height - len(window); pad > 0 {
		window = append(make([]string, pad), window...)
	}
	return window
}

// atBottom reports whether the view follows new output.
func (c *chatView) atBottom() bool { return c.fromBottom == 0 }

// text returns the plain concatenation of every message's source, for
// tests and transcripts.
func (c *chatView) text() string {
	var b strings.Builder
	for _, m := range c.msgs {
		b.WriteString(m.text)
		b.WriteString("\n")
	}
	return b.String()
}
