package execution

import (
	"fmt"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// fileFor picks, among the files a finished task produced, the one a media
// argument takes: of the argument's modality, and of the kind it asks for.
// A task can make several files of one modality — SAM's mask and the
// annotated preview Chorus draws of it are both images — and only the kind
// tells them apart: a "mask" argument takes the mask (a plain image if there
// is none, never the preview), a plain one the plain file first, then the
// preview, then a mask.
func fileFor(r *flow.TaskRun, a skills.Arg) (string, bool) {
	best, bestRank := "", 0
	for _, f := range r.Files {
		if flow.ModalityOf(f) != a.Type {
			continue
		}
		if rank := kindRank(a, kindOf(r, f)); rank > bestRank {
			best, bestRank = f, rank
		}
	}
	return best, bestRank > 0
}

// kindRank says how well a file of kind k suits argument a: 0 not at all,
// higher is better.
func kindRank(a skills.Arg, k skills.FileKind) int {
	plain := k == skills.FileKind(a.Type)
	switch {
	case a.Kind != "" && k == a.Kind:
		return 3
	case a.Kind != "" && plain:
		return 2
	case a.Kind != "":
		return 0
	case plain:
		return 3
	case k == skills.FileAnnotated:
		return 2
	}
	return 1
}

// kindOf is the kind of one of the task's files; a file of no recorded kind
// is a plain file of its modality.
func kindOf(r *flow.TaskRun, path string) skills.FileKind {
	if k, ok := r.Kinds[path]; ok {
		return k
	}
	return skills.FileKind(flow.ModalityOf(path))
}

// choiceNote tells --debug which of a task's files an argument took, when
// the task made more than one of the argument's modality: a wrong pick there
// is silent otherwise (a mask-overlay of the preview tints the whole image).
func choiceNote(r *flow.TaskRun, t flow.Task, arg skills.Arg, ref int, picked string) string {
	var others []string
	for _, f := range r.Files {
		if f != picked && flow.ModalityOf(f) == arg.Type {
			others = append(others, describeKind(kindOf(r, f))+" "+f)
		}
	}
	if len(others) == 0 {
		return ""
	}
	want := arg.Kind
	if want == "" {
		want = skills.FileKind(arg.Type)
	}
	return fmt.Sprintf("task %d (%s): argument %s = <resource>-%d takes %s %s — the argument wants %s; task %d (%s) also made %s",
		t.ID, t.Task, arg.Name, ref, describeKind(kindOf(r, picked)), picked, withArticleKind(want), ref, r.Task.Task, strings.Join(others, ", "))
}

// describeKind names a file kind for people: "the mask", "the annotated
// image", "the image".
func describeKind(k skills.FileKind) string {
	if k == skills.FileAnnotated {
		return "the annotated image"
	}
	return "the " + string(k)
}

func withArticleKind(k skills.FileKind) string {
	switch k {
	case skills.FileAnnotated:
		return "an annotated image"
	case skills.FileMask:
		return "a mask"
	}
	return flow.WithArticle(skills.Modality(k))
}
