// Package flow is what the stages of a turn share, and the only package
// they share: the plan and its tasks (Plan, Task, Constraints), a task's
// choice of model and its run (Choice, TaskRun), the events a turn
// publishes and the report it ends with (Event, Report), and the
// controller conversation every stage continues (Transcript, its stage
// messages, Fit, which keeps a call under the prompt budget, and the
// lenient reading of the controller's JSON).
//
// The stages — pipeline/planning, selection, execution, response — import
// flow and the layers below (controller, endpoints, skills, scope, text),
// never each other or the engine (package pipeline), which runs them.
package flow
