package pipeline

import (
	"context"

	"github.com/chorusai/chorus/pipeline/execution"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/pipeline/selection"
	"github.com/chorusai/chorus/skills"
)

// The vocabulary of a turn — its plan, events and report — is package
// flow's, which the stages share; the engine's users (the front ends, the
// chat service, sessions, eval) know it under these names, which are flow's
// under another name, not other types. Code under pipeline/ says flow.

// The plan.
type (
	Task        = flow.Task
	Plan        = flow.Plan
	Constraints = flow.Constraints
	Message     = flow.Message
	Approval    = flow.Approval
)

// The report.
type (
	Report         = flow.Report
	TaskReport     = flow.TaskReport
	Candidate      = flow.Candidate
	Exclusion      = flow.Exclusion
	Attempt        = flow.Attempt
	ControllerCall = flow.ControllerCall
	Revision       = flow.Revision
	FailedTask     = flow.FailedTask
)

// The events.
type (
	Event              = flow.Event
	Emit               = flow.Emit
	Stage              = flow.Stage
	StageEvent         = flow.StageEvent
	PlanEvent          = flow.PlanEvent
	PlanTaskEvent      = flow.PlanTaskEvent
	TaskWithdrawnEvent = flow.TaskWithdrawnEvent
	PlanRevisionEvent  = flow.PlanRevisionEvent
	ModelReasonEvent   = flow.ModelReasonEvent
	ModelEvent         = flow.ModelEvent
	TaskStartEvent     = flow.TaskStartEvent
	TaskProgressEvent  = flow.TaskProgressEvent
	TaskEndEvent       = flow.TaskEndEvent
	TokenEvent         = flow.TokenEvent
	AnswerEvent        = flow.AnswerEvent
	ErrorEvent         = flow.ErrorEvent
	DebugEvent         = flow.DebugEvent
	QueueEvent         = flow.QueueEvent
	HostDownEvent      = flow.HostDownEvent
	ReportEvent        = flow.ReportEvent
)

// The stages, a task's status, the controller as an endpoint, the
// preferences a constraint may state.
const (
	StagePlanning  = flow.StagePlanning
	StageSelection = flow.StageSelection
	StageExecution = flow.StageExecution
	StageRevision  = flow.StageRevision
	StageResponse  = flow.StageResponse

	StatusOK    = flow.StatusOK
	StatusError = flow.StatusError

	EndpointController = flow.EndpointController

	PreferSmallest = flow.PreferSmallest
	PreferBest     = flow.PreferBest
)

// Refs is flow.Refs.
func Refs(value string) []int { return flow.Refs(value) }

// RefString is flow.RefString.
func RefString(id int) string { return flow.RefString(id) }

// ParseConstraints is flow.ParseConstraints.
func ParseConstraints(s string) (Constraints, error) { return flow.ParseConstraints(s) }

// ParsePrefer is flow.ParsePrefer.
func ParsePrefer(prefer, benchmark string) (string, string, error) {
	return flow.ParsePrefer(prefer, benchmark)
}

// MarshalEvent is flow.MarshalEvent.
func MarshalEvent(e Event) ([]byte, error) { return flow.MarshalEvent(e) }

// QueueText is flow.QueueText.
func QueueText(e QueueEvent) string { return flow.QueueText(e) }

// HostDownText is flow.HostDownText.
func HostDownText(e HostDownEvent) string { return flow.HostDownText(e) }

// Where is flow.Where.
func Where(endpoint, provider string) string { return flow.Where(endpoint, provider) }

// HopLine is flow.HopLine.
func HopLine(failed, next Attempt) string { return flow.HopLine(failed, next) }

// FallbackNote is flow.FallbackNote.
func FallbackNote(attempts []Attempt) string { return flow.FallbackNote(attempts) }

// ShortModel is flow.ShortModel.
func ShortModel(id string) string { return flow.ShortModel(id) }

// ModalityOf is flow.ModalityOf.
func ModalityOf(path string) skills.Modality { return flow.ModalityOf(path) }

// PromptStage is flow.PromptStage.
func PromptStage(last string) string { return flow.PromptStage(last) }

// BenchmarkScore is flow.BenchmarkScore.
func BenchmarkScore(m skills.Model, query string) (skills.Benchmark, bool) {
	return flow.BenchmarkScore(m, query)
}

// ErrCancelled is flow.ErrCancelled: returned (wrapped) when the turn's
// context was cancelled.
var ErrCancelled = flow.ErrCancelled

// AllowTools approves the listed tools' calls (chorus run --allow-tool:
// "server.tool", or "server.*" for all of a server's) and refuses the
// rest, saying how to allow one: a Turn's Approve where nobody can be
// asked.
func AllowTools(names []string) func(context.Context, Approval) error {
	return execution.AllowTools(names)
}

// AllowListed is AllowTools with the fix a refusal names given by fix
// (serve.allow_tools for an ssh user).
func AllowListed(names []string, fix func(tool string) string) func(context.Context, Approval) error {
	return execution.AllowListed(names, fix)
}

// DefaultResultCap is the result cap (Options.ResultCap) when none is
// set.
const DefaultResultCap = execution.DefaultResultCap

// Selection says when the controller chooses a task's model among its
// candidates (Options.Selection): selection.Mode.
type Selection = selection.Mode

// The selection modes (config key `selection`; selection.Mode).
const (
	SelectController = selection.ModeController
	SelectAuto       = selection.ModeAuto
	SelectRanked     = selection.ModeRanked
)

// HubLookup looks up a model on the Hugging Face Hub (Options.Hub):
// selection.HubLookup.
type HubLookup = selection.HubLookup
