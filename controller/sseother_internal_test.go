package controller

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSSEOtherCounts: what of an event stream carries no event's data —
// comments, blank lines beyond an event's end, the fields of a group that
// gets no data line — is counted, however the reads split it; an event
// with data, its event:/id: fields included, costs nothing.
func TestSSEOtherCounts(t *testing.T) {
	t.Parallel()
	event := "data: {\"choices\":[]}\n\n"
	for _, c := range []struct {
		name, stream string
		want         int
	}{
		{"events", event + event, 0},
		{"CRLF events", "data: x\r\n\r\n" + "data: y\r\n\r\n", 0},
		{"named events with ids", "event: message\nid: 7\ndata: x\n\n", 0},
		{"a comment", ": keep-alive\n\n" + event, len(": keep-alive\n") + 1},
		{"a comment inside an event", "data: x\n: note\n\n", len(": note\n")},
		{"blank lines", "\n\n\n" + event, 3},
		{"a field group without data", "event: ping\nid: 1\n\n", len("event: ping\nid: 1\n") + 1},
		{"a short field line", "x\n\n", 3},
		{"a bare data line", "data\n\n", 0},
		// Counted in lumps past maxPending, without waiting for the end
		// the group never gets.
		{"an endless field group", strings.Repeat("retry: 1000\n", 200), -(2400 - maxPending)},
	} {
		for _, split := range []bool{false, true} {
			var r io.Reader = strings.NewReader(c.stream)
			if split {
				r = iotest.OneByteReader(r)
			}
			got := 0
			s := &sseOther{r: r, fn: func(ch ChatChunk) { got += ch.Other }}
			if _, err := io.ReadAll(s); err != nil {
				t.Fatal(err)
			}
			if c.want < 0 && got >= -c.want {
				continue
			}
			if got != c.want {
				t.Errorf("%s (one byte a read: %v): %d bytes counted, want %d", c.name, split, got, c.want)
			}
		}
	}
}
