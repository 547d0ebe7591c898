// Package ui is Chorus's chat TUI: a Bubble Tea v2 program that holds a
// multi-turn conversation and shows each turn's pipeline live — the plan as
// a task tree, the chosen models with their reasons, the execution log — next
// to the streamed, Markdown-rendered answer.
//
// Run opens it; the cobra root calls
//
//	ui.Run(ctx, ui.Options{Config: cfg, Engine: eng, Constraints: cons, Resume: id})
//
// The pipeline runs in a command's goroutine and reaches the model only as
// messages (pump.go): no state is shared, and Update never waits for I/O.
// Rendering caches finished messages and renders only what is on screen, so
// the cost of a frame does not grow with the history (BenchmarkStreamRender).
// docs/ui.md describes the layout, the keys, the commands and the design.
package ui
