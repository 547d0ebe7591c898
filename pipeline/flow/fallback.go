package flow

import (
	"fmt"
	"strings"

	"github.com/chorusai/chorus/text"
)

// A fallback is told once and briefly: one line per failed hop while the
// task runs (HopLine), the model that ran with what failed before it
// (FallbackNote) in the panes, the report and the workflow section; the full
// errors go to --debug and the log.

// HopLine is the one line a failed attempt gets when the next is tried:
// "Kokoro-82M: not served by fal-ai (404), replicate (404) → mms-tts-eng",
// or, when the same model goes on to its next route, "Kokoro-82M on local:
// unreachable → huggingface".
func HopLine(failed, next Attempt) string {
	from, to := attemptName(failed), attemptName(next)
	if failed.Model == next.Model && failed.Endpoint != EndpointController {
		from += " on " + Where(failed.Endpoint, failed.Provider)
		to = Where(next.Endpoint, next.Provider)
	}
	return fmt.Sprintf("%s: %s → %s", from, failed.Reason(), to)
}

// FallbackNote says what failed before the model that ran, from a task's
// attempts: "after Kokoro-82M failed: not served by fal-ai (404), replicate
// (404)". It is empty when the first attempt ran, or none did.
func FallbackNote(attempts []Attempt) string { return FallbackNoteWith(attempts, attemptName) }

// FallbackNoteWith is FallbackNote with models named by name.
func FallbackNoteWith(attempts []Attempt, name func(Attempt) string) string {
	n := len(attempts)
	if n < 2 || attempts[n-1].Error != "" {
		return ""
	}
	parts := make([]string, 0, n-1)
	for i, a := range attempts[:n-1] {
		name := name(a)
		if a.Model == attempts[n-1].Model || (i > 0 && a.Model == attempts[i-1].Model) || (i+1 < n-1 && a.Model == attempts[i+1].Model) {
			// One model on two routes: say which route failed.
			name += " on " + Where(a.Endpoint, a.Provider)
		}
		parts = append(parts, name+" failed: "+a.Reason())
	}
	return "after " + strings.Join(parts, "; ")
}

// Reason is why the attempt failed, in a few words; an attempt recorded
// before Why existed has only its full error, cut to one line.
func (a Attempt) Reason() string {
	if a.Why != "" {
		return a.Why
	}
	return text.OneLine(a.Error, 100)
}

// attemptName names an attempt's model the short way people read it: the
// part after the owner ("Kokoro-82M"), or "the controller".
func attemptName(a Attempt) string {
	if a.Endpoint == EndpointController {
		return "the controller"
	}
	return ShortModel(a.Model)
}

// ShortModel is a model id without its owner: "hexgrad/Kokoro-82M" →
// "Kokoro-82M". Ids without an owner (Ollama's "llava:7b", programs) stay.
func ShortModel(id string) string {
	if i := strings.LastIndex(id, "/"); i >= 0 && i < len(id)-1 {
		return id[i+1:]
	}
	return id
}
