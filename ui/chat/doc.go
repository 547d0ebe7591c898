// Package chat is the chat column of Chorus's TUI: the messages (the user's
// requests, the streamed answers, notices, errors, debug entries), the
// windowed view that renders only what is on screen, Markdown through
// Glamour with a block cache for the answer still streaming, OSC 8 links to
// files, inline image previews, and the text fitting the other rooms draw
// with (Clean, Clip, WrapPlain, PadRight, FileLine).
//
// A message caches its rendering per width and mode, so a frame costs the
// visible rows plus the streaming message, not the history. The package
// knows nothing of the model that owns it: it is given what to render (a
// RenderContext) and returns lines. It imports ui/theme only.
package chat
