// Package ui is Chorus's chat TUI: a Bubble Tea v2 program that holds a
// multi-turn conversation and shows each turn's pipeline live — the plan as
// a task tree, the chosen models with their reasons, the execution log — next
// to the streamed, Markdown-rendered answer.
//
// It is a front end of the chat service (package conversation), which runs,
// records and saves the turns; the command line (cli/tui.go) calls
//
//	a, _ := app.New(cfg, app.Options{Logger: log}) // the engine and its chat service
//	ui.Run(ctx, ui.Options{Config: a.Config(), Service: a.Service(), Constraints: a.Constraints(), Resume: id})
//
// The package is the Model and its glue; the parts it is built from are
// rooms of their own, each given what it draws and returning what happened:
//
//   - ui/theme: the Lip Gloss styles and the remappable key map.
//   - ui/chat: the messages, the windowed chat view, Markdown with the
//     streaming block cache, OSC 8 links, inline previews, text fitting.
//   - ui/turnview: a turn as a reducer over pipeline events, and the Plan,
//     Models and Execution panes as functions of the turn.
//   - ui/prompt: the textarea with history, Tab completion, @file and
//     pasted-path resolution; its Update returns Send or Attached.
//   - ui/dialog: help, lists and the plan review; their Update returns an
//     action (Close, Pick, Approve, Reject) and the Model decides what
//     closing means.
//
// Imports point one way: ui imports the rooms; dialog imports turnview and
// chat, turnview imports chat, and every room imports theme; no room
// imports ui. ui/media (images, audio) is a library the glue adapts; the
// session's record and its file are the chat service's.
//
// Update only routes: each message goes to a handler in the file of its
// concern (turns.go, pump.go, server.go, session.go, commands.go, media.go,
// dialogs.go, …); View only lays the regions out. The pipeline runs in a
// command's goroutine and reaches the model only as messages (pump.go): no
// state is shared, and Update never waits for I/O. Rendering caches
// finished messages and renders only what is on screen, so the cost of a
// frame does not grow with the history (BenchmarkStreamRender). docs/ui.md
// describes the layout, the keys, the commands and the design.
package ui
