// Package prompt is the prompt of Chorus's TUI: a multi-line textarea that
// grows to MaxRows, the history of sent prompts (Up/Down), Tab completion of
// /commands, their arguments and @file names, @file references resolved to
// absolute paths on send, and pastes of file paths (dropped files) turned
// into @references.
//
// The parent gives it keys and messages and gets back what happened — Send
// with the text, Attached — instead of inspecting the prompt; reading
// directories and checking files happen in commands, never in Update. It
// imports ui/theme only.
package prompt
