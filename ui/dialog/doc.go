// Package dialog holds the boxes of Chorus's TUI that take the keyboard
// until they are done: a scrollable text (help), a list to pick from
// (sessions, models, what to copy) and the plan review (run, edit in
// $EDITOR or inline, cancel).
//
// A dialog never closes itself or reaches into its parent: Update returns
// an Action — Close, Pick, Approve, Reject — with a command, and the parent
// decides what closing means (for a review, answering the waiting
// pipeline). It imports pipeline for plans, ui/turnview to draw the plan
// under review, ui/chat for text fitting, and ui/theme.
package dialog
