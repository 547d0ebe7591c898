// Package turnview is a turn of Chorus's TUI as the user watches it: a
// reducer over the pipeline's events (TurnState.Apply) that owns the turn's plan,
// its tasks' progress and its answer text, and the Plan, Models and
// Execution panes drawn from it as functions of the turn and a
// RenderContext — stacked in a column (wide layout) or as tabs (narrow).
//
// Nothing here reaches into the model that owns the turns: the parent
// applies events, picks the turn to show and keeps the pane's scroll. It
// imports pipeline for the events, ui/chat for the text fitting and file
// lines it shares with the chat, and ui/theme.
package turnview
