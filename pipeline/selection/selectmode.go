package selection

import (
	"fmt"
	"strings"

	"github.com/chorusai/chorus/pipeline/flow"
	"github.com/chorusai/chorus/skills"
)

// Mode says when the controller chooses a task's model among its
// candidates (config key `selection`).
type Mode string

const (
	// ModeController asks the controller whenever a task has two or more
	// candidates, as HuggingGPT does. It is what the zero value means.
	ModeController Mode = "controller"
	// ModeAuto asks the controller only when the ranking cannot decide
	// for the user: the skill has no curated default among its candidates,
	// or the request says something a model choice should weigh (speed,
	// quality, size, licence, a model's name). Otherwise the skill's
	// curated default runs at once — one controller call fewer, which on a
	// local model is seconds of decoding the user waits through.
	ModeAuto Mode = "auto"
	// ModeRanked never asks: the ranking (constraints, the curated
	// default, downloads) decides.
	ModeRanked Mode = "ranked"
)

// preferenceWords are what a request says when it cares which model runs:
// the controller weighs them against the candidates' descriptions.
var preferenceWords = []string{
	"model", "quality", "accura", "precise", "fast", "quick", "speed", "slow",
	"small", "tiny", "light", "large", "big ", "bigger", "best", "better", "state of the art", "sota",
	"cheap", "free", "licen", "open source", "open-source", "commercial", "version",
	"resolution", "high-res", "hd ", "4k", "detailed", "realistic", "photoreal",
	"language", "multilingual", "accent", "voice",
}

// limitWords are what a request says when it limits where or which models
// may run — HIVE's constraints: on this machine, a licence, a size.
var limitWords = []string{
	"local", "machine", "offline", "on-device", "on device", "private", "cloud", "internet", "upload",
	"apache", "mit ", "gpl", "cc-by", "licen", "gb", "mb", "parameter", "benchmark", "smallest",
}

// RequestMayConstrain reports whether request may state a constraint on
// the models: a limit word or a preference word (paths aside). A plan
// reply that writes its tasks first then waits for its end before a task
// starts, in case a model not held to the schema's order writes the
// constraints last; under the schema a reply's first key "tasks" means
// there are none.
func RequestMayConstrain(request string) bool {
	r := " " + strings.Join(flow.RequestWords(request), " ") + " "
	for _, w := range append(limitWords, preferenceWords...) {
		if strings.Contains(r, w) {
			return true
		}
	}
	return false
}

// requestWeighsModels reports whether request says something a model
// choice among cands should weigh: a preference word, or a candidate's
// name (its id's last part, or a distinctive piece of it: "whisper",
// "flux", "blip").
func requestWeighsModels(request string, cands []*flow.Option) bool {
	// Paths and URLs name files, not preferences ("/tmp/fast-cars.png").
	r := " " + strings.Join(flow.RequestWords(request), " ") + " "
	for _, w := range preferenceWords {
		if strings.Contains(r, w) {
			return true
		}
	}
	for _, cd := range cands {
		name := strings.ToLower(cd.Model.ID)
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if strings.Contains(r, name) {
			return true
		}
		for _, piece := range strings.FieldsFunc(name, func(c rune) bool { return c == '-' || c == '_' || c == '.' || c == ':' }) {
			if len(piece) >= 4 && !isGenericPiece(piece) && strings.Contains(r, piece) {
				return true
			}
		}
	}
	return false
}

// isGenericPiece reports whether a piece of a model id is a common word
// or size tag rather than a name a user would use for that model.
func isGenericPiece(p string) bool {
	switch p {
	case "base", "large", "small", "tiny", "medium", "image", "text", "speech", "audio", "video", "model",
		"detection", "classification", "segmentation", "captioning", "finetuned", "english", "coco", "turbo",
		"instruct", "chat", "edit", "diffusion", "stable", "generation", "depth", "patch", "ensemble":
		return true
	}
	return strings.Trim(p, "0123456789bmvx") == ""
}

// skipsSelection reports whether the ranking decides task s's model
// without the controller under mode, and says why. top are the ranked
// candidates the controller would be shown (two or more); localFirst says
// hybrid mode put the first one there because it runs here.
func skipsSelection(mode Mode, s *skills.Skill, request string, top []*flow.Option, localFirst bool) (string, bool) {
	first := top[0].Model.ID
	why := "the skill's curated default"
	if localFirst {
		why = fmt.Sprintf("runs here (%s) and hybrid: local first puts it before the cloud's models", top[0].Routes[0].Kind())
	}
	switch mode {
	case ModeRanked:
		if localFirst {
			return fmt.Sprintf("%s ranks first: it %s (selection: ranked)", first, why), true
		}
		return fmt.Sprintf("%s ranks first (selection: ranked)", first), true
	case ModeAuto:
		if !localFirst && (s.Default == "" || !strings.EqualFold(first, s.Default)) || requestWeighsModels(request, top) {
			return "", false
		}
		if localFirst {
			return fmt.Sprintf("%s %s, and the request states no preference among the %d candidates (selection: auto)", first, why, len(top)), true
		}
		return fmt.Sprintf("%s is %s and the request states no preference among the %d candidates (selection: auto)", first, why, len(top)), true
	}
	return "", false
}
