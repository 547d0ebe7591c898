package chat

import (
	"slices"
	"strings"

	"github.com/chorusai/chorus/skills"
)

// View shows the chat log in a window of height rows. It renders only
// the messages in view: walking back from the newest, each message's lines
// come from its cache, so a frame costs the visible rows plus the message
// still streaming — not the length of the history.
type View struct {
	msgs []*Message
	// fromBottom is how many lines the view is scrolled up from the end;
	// 0 follows new output.
	fromBottom int
	// lastLen is the line count of the newest message at the last frame,
	// so growth below a scrolled-up view does not move what the user reads.
	lastLen int
	lastMsg *Message
	// low is the oldest message that may hold a cached rendering: the
	// caches of messages far above the window are dropped (evict) and
	// made again if the view scrolls back to them, so a long chat keeps
	// the renderings of a few screens, not of its whole history.
	low int
}

// keepAbove is how many screens of rendered lines above the window keep
// their caches: scrolling back a few pages costs nothing, further back
// re-renders on demand.
const keepAbove = 3

// Add appends a message at the bottom.
func (c *View) Add(m *Message) { c.msgs = append(c.msgs, m) }

// Reset empties the chat, as a new or reopened session does.
func (c *View) Reset() { *c = View{} }

// Last returns the newest message, or nil.
func (c *View) Last() *Message {
	if len(c.msgs) == 0 {
		return nil
	}
	return c.msgs[len(c.msgs)-1]
}

// Scroll moves the view by n lines (positive: up, towards older).
func (c *View) Scroll(n int) {
	c.fromBottom = max(0, c.fromBottom+n)
}

// Follow scrolls to the bottom and keeps up with new output.
func (c *View) Follow() { c.fromBottom = 0 }

// ToTop scrolls to the first message.
func (c *View) ToTop() { c.fromBottom = 1 << 30 }

// Lines returns exactly height lines (padded with blanks at the top when the
// log is short).
func (c *View) Lines(rc RenderContext, height int) []string {
	if height <= 0 {
		return nil
	}
	// Keep a scrolled-up view steady while the newest message grows.
	var newest []string
	if n := len(c.msgs); n > 0 {
		lm := c.msgs[n-1]
		newest = lm.Render(rc)
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
			ls = c.msgs[i].Render(rc)
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
	first := len(c.msgs) - len(chunks)
	c.low = min(c.low, first)
	c.evict(first, keepAbove*height)
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

// evict drops the cached renderings of the messages older than first
// (the oldest one on screen) beyond the first keep lines above it.
func (c *View) evict(first, keep int) {
	i := first - 1
	for ; i >= c.low && keep > 0; i-- {
		lines, _ := c.msgs[i].Cached()
		keep -= len(lines)
	}
	for j := c.low; j <= i; j++ {
		c.msgs[j].Invalidate()
	}
	c.low = max(c.low, i+1)
}

// LastAnswer returns the newest assistant message with text.
func (c *View) LastAnswer() *Message {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if msg := c.msgs[i]; msg.Role == RoleAssistant && strings.TrimSpace(msg.Text) != "" {
			return msg
		}
	}
	return nil
}

// LastFile returns the newest path of modality kind among the chat's files
// (within a message, generated files before attachments, the last first).
func (c *View) LastFile(kind skills.Modality) string {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		all := append(append([]string{}, c.msgs[i].Files...), c.msgs[i].Attachments...)
		for j := len(all) - 1; j >= 0; j-- {
			if kindOf(all[j]) == kind {
				return all[j]
			}
		}
	}
	return ""
}

// LastMade returns the newest file a turn made.
func (c *View) LastMade() string {
	for i := len(c.msgs) - 1; i >= 0; i-- {
		if fs := c.msgs[i].Files; len(fs) > 0 {
			return fs[len(fs)-1]
		}
	}
	return ""
}

// InsertBefore puts msg just above anchor (at the end if anchor is not in
// the chat).
func (c *View) InsertBefore(anchor, msg *Message) {
	for i, cm := range c.msgs {
		if cm == anchor {
			c.msgs = slices.Insert(c.msgs, i, msg)
			return
		}
	}
	c.Add(msg)
}

// InvalidatePath drops the cached rendering of the messages that show path,
// e.g. when its preview arrives.
func (c *View) InvalidatePath(path string) {
	for _, cm := range c.msgs {
		if slices.Contains(cm.Attachments, path) || slices.Contains(cm.Files, path) {
			cm.Invalidate()
		}
	}
}

// Messages returns the chat's entries, oldest first. The slice is the
// view's own: callers read it and do not append to it.
func (c *View) Messages() []*Message { return c.msgs }

// AtBottom reports whether the view follows new output.
func (c *View) AtBottom() bool { return c.fromBottom == 0 }

// Text returns the plain concatenation of every message's source, for
// tests and transcripts.
func (c *View) Text() string {
	var b strings.Builder
	for _, m := range c.msgs {
		b.WriteString(m.Text)
		b.WriteString("\n")
	}
	return b.String()
}

// ShowTop scrolls so that msg's first line is the top row of a window of
// height rows, when msg and what follows it are taller than the window —
// the top of a long answer stays in view when the turn ends, instead of
// its last lines. It does nothing when msg is not in the chat or the rest
// fits.
func (c *View) ShowTop(msg *Message, rc RenderContext, height int) {
	i := slices.Index(c.msgs, msg)
	if i < 0 || height <= 0 {
		return
	}
	c.low = min(c.low, i)
	below := 0
	for _, m := range c.msgs[i:] {
		below += len(m.Render(rc))
	}
	c.fromBottom = max(0, below-height)
	// What Lines remembers of the newest message is its size now, so its
	// growth from here on (a preview arriving) is counted from here.
	last := c.msgs[len(c.msgs)-1]
	c.lastMsg, c.lastLen = last, len(last.Render(rc))
}
