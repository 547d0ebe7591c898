package execution

import (
	"fmt"
	"slices"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// checkOutput says why a produced file is not what its task promises, nil
// when it is. The bytes decide (skills.Sniff), not the server's
// Content-Type: JSON saved as .wav, or a .desktop launcher returned by a
// "text-to-image" model, would otherwise sit in the output folder under a
// name that invites opening it.
func checkOutput(s *skills.Skill, model string, head []byte, size int64) (mediaType string, err error) {
	mt, m := skills.Sniff(head)
	var promised []skills.Modality
	for _, o := range s.Outputs {
		// An MCP tool's outputs are guessed from its words: any media
		// it returns is kept (its endpoint checked the bytes against
		// their declared type).
		if o.Media() && s.Tool == nil {
			promised = append(promised, o)
		}
	}
	ok := m.Media() && (len(promised) == 0 || slices.Contains(promised, m))
	switch {
	case ok:
	case m == skills.Image && mt == "image/gif" && slices.Contains(promised, skills.Video):
		ok = true // an animation is a video
	case m == skills.Video && mt == "video/webm" && slices.Contains(promised, skills.Audio):
		ok = true // WebM audio sniffs as video
	}
	if ok {
		return mt, nil
	}
	what := "unrecognisable bytes"
	switch {
	case mt == "application/json":
		what = "JSON"
	case m == skills.Text:
		what = "text (" + mt + ")"
	case m != "":
		what = flow.WithArticle(m) + " (" + mt + ")"
	}
	want := "a media file"
	if len(promised) > 0 {
		want = flow.WithArticle(promised[0])
	}
	return "", &outputError{fmt.Sprintf("%s returned %s, %s, not %s as %s promises — the file was not kept",
		model, what, skills.HumanBytes(size), want, s.Name)}
}

// outputError is a result of the wrong kind. Another candidate may do
// better, so it counts as the model being unavailable for the task.
type outputError struct{ msg string }

func (e *outputError) Error() string { return e.msg }
func (e *outputError) Unwrap() error { return endpoints.ErrUnavailable }
