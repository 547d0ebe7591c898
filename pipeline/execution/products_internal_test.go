package execution

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// The audit of every skill that can produce more than one file: for each
// producer in the embedded catalog and each media argument of every skill
// that could consume it through <resource>-N, the argument gets the kind of
// file it asks for — the mask for a mask, a plain file (else the annotated
// preview) for a plain one, never the preview for a mask.
func TestEveryMultiFileProducerFeedsEachArgumentItsKind(t *testing.T) {
	cat, err := skills.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range segmentationTasks {
		s, ok := cat.Skill(name)
		if !ok || s.Files != skills.FileMask {
			t.Errorf("%s: its experts return masks, so its skill file must say files: mask", name)
		}
	}
	for _, s := range cat.All() {
		for _, a := range s.Args {
			if a.Name == "mask" && a.Kind != skills.FileMask {
				t.Errorf("%s: argument mask must say kind: mask, or it may take an annotated preview", s.Name)
			}
		}
	}
	ext := map[skills.Modality]string{skills.Image: ".png", skills.Audio: ".wav", skills.Video: ".mp4"}
	multi := 0
	for _, p := range cat.All() {
		run := &flow.TaskRun{Task: flow.Task{ID: 1, Task: p.Name}, Kinds: map[string]skills.FileKind{}}
		annotated := slices.Contains(detectionTasks, p.Name) || slices.Contains(segmentationTasks, p.Name)
		for _, m := range p.Outputs {
			if !m.Media() {
				continue
			}
			// Two of each (segments, separated sources), as experts return.
			for i := range 2 {
				f := fmt.Sprintf("/out/%s-1-%d%s", p.Name, i, ext[m])
				run.Files = append(run.Files, f)
				run.Kinds[f] = p.ProducedKind(m)
			}
		}
		if annotated {
			f := "/out/" + p.Name + "-annotated-1.png"
			run.Files = append([]string{f}, run.Files...)
			run.Kinds[f] = skills.FileAnnotated
		}
		if len(run.Files) < 2 {
			continue
		}
		multi++
		for _, c := range cat.All() {
			for _, a := range c.Args {
				if !a.Type.Media() {
					continue
				}
				got, ok := fileFor(run, a)
				has := func(k skills.FileKind) bool {
					return slices.ContainsFunc(run.Files, func(f string) bool { return run.Kinds[f] == k && flow.ModalityOf(f) == a.Type })
				}
				plain := skills.FileKind(a.Type)
				var want skills.FileKind
				switch {
				case a.Kind != "" && has(a.Kind):
					want = a.Kind
				case a.Kind != "" && has(plain):
					want = plain
				case a.Kind != "":
					want = ""
				case has(plain):
					want = plain
				case has(skills.FileAnnotated):
					want = skills.FileAnnotated
				case has(skills.FileMask):
					want = skills.FileMask
				}
				if want == "" {
					if ok {
						t.Errorf("%s.%s after %s took %s (%s), want nothing of its kind", c.Name, a.Name, p.Name, got, run.Kinds[got])
					}
					continue
				}
				if !ok || run.Kinds[got] != want {
					t.Errorf("%s.%s after %s took %q (%s), want the %s", c.Name, a.Name, p.Name, got, run.Kinds[got], want)
				}
			}
		}
	}
	if multi == 0 {
		t.Fatal("no skill produces several files: the audit audited nothing")
	}
}
