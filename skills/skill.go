// Package skills is Chorus's skill repository: the tasks the planner may use,
// what each task takes and produces, and the candidate models that can serve it.
//
// Every skill is a declarative YAML file. The files under catalog/ are embedded
// in the binary; a user directory can override any of them or add new ones, so
// adding a task or a model never needs Go code.
package skills

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Modality is the kind of data a task argument or product carries.
type Modality string

// The modalities a skill can take or produce. Point and Box are LLaVA-Plus
// style visual prompts ("120,80" and "x1,y1,x2,y2" in image pixels).
const (
	Text  Modality = "text"
	Image Modality = "image"
	Audio Modality = "audio"
	Video Modality = "video"
	Point Modality = "point"
	Box   Modality = "box"
)

// Media reports whether values of m are file paths rather than inline text.
func (m Modality) Media() bool { return m == Image || m == Audio || m == Video }

// Valid reports whether m is one of the known modalities.
func (m Modality) Valid() bool {
	switch m {
	case Text, Image, Audio, Video, Point, Box:
		return true
	}
	return false
}

// FileKind says what a produced file is where its modality alone does not:
// a segmentation's mask and the annotated preview Chorus draws from it are
// both images, but only one of them is a mask. A file of no special kind has
// its modality as its kind ("image", "audio").
type FileKind string

// The special kinds of produced files.
const (
	// FileMask is a segmentation mask: non-black pixels are inside.
	FileMask FileKind = "mask"
	// FileAnnotated is the preview Chorus draws of a detection or
	// segmentation result on its input image. Chorus makes it; a skill file
	// cannot declare it.
	FileAnnotated FileKind = "annotated"
)

// Arg describes one argument a task accepts. The planner writes arguments by
// Name; most are named after their modality ("text", "image").
type Arg struct {
	Name        string   `yaml:"name" json:"name"`
	Type        Modality `yaml:"type" json:"type"`
	Optional    bool     `yaml:"optional,omitempty" json:"optional,omitempty"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	// Kind is the kind of file a media argument takes when the task it
	// refers to with <resource>-N produced several files of its modality:
	// "mask" takes the mask, never the annotated preview. Empty: the plain
	// file of the modality first.
	Kind FileKind `yaml:"kind,omitempty" json:"kind,omitempty"`
	// Synonyms are other names a planner writes for the argument
	// ("candidate_labels", or "text" for labels); the plan validator reads
	// them as Name, with a note.
	Synonyms []string `yaml:"synonyms,omitempty" json:"synonyms,omitempty"`
}

// Skill is one task type the planner can put in a plan.
type Skill struct {
	// Name is the task name the planner writes, e.g. "image-to-text".
	Name string `yaml:"name" json:"name"`
	// Aliases are other names models use for the same task; the plan
	// validator maps them (and near misses) onto Name.
	Aliases []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	// Description tells the planner when to use the skill.
	Description string `yaml:"description" json:"description"`
	// Default is the model id that ranks first among the skill's
	// candidates when no constraint decides: the curated general-purpose
	// choice, since downloads alone favour whatever is popular for other
	// reasons. Empty means rank by downloads.
	Default string `yaml:"default,omitempty" json:"default,omitempty"`
	// Brief is the skill in one short line for the planning prompt, which
	// lists every skill that can run and must stay small: when to use it
	// and how it differs from its neighbours. Empty means the first
	// sentence of Description.
	Brief string `yaml:"brief,omitempty" json:"brief,omitempty"`
	// Domain groups skills for listings: nlp, cv, audio, video, multimodal.
	Domain string `yaml:"domain,omitempty" json:"domain,omitempty"`
	// Args lists the accepted arguments.
	Args []Arg `yaml:"args" json:"args"`
	// Outputs lists the modalities the task produces.
	Outputs []Modality `yaml:"outputs" json:"outputs"`
	// Files is what the image files the task's experts return are, where
	// "image" does not say it: "mask" for segmentation. Empty: plain files.
	Files FileKind `yaml:"files,omitempty" json:"files,omitempty"`
	// Controller marks text tasks the controller LLM may do itself, as
	// HuggingGPT lets ChatGPT do summarisation or translation.
	Controller bool `yaml:"controller,omitempty" json:"controller,omitempty"`
	// Examples are short requests that should use this skill, for the planner.
	Examples []string `yaml:"examples,omitempty" json:"examples,omitempty"`
	// Models are the candidate experts, in no particular order.
	Models []Model `yaml:"models" json:"models"`
	// HubTag is the Hugging Face Hub pipeline_tag whose listing `chorus
	// models sync` reads for this skill. Empty means the skill's Name;
	// HubTagNone means the Hub has no listing for it (built-in experts,
	// ControlNet annotators, controller-only tasks).
	HubTag string `yaml:"hub_tag,omitempty" json:"hub_tag,omitempty"`

	// Source is the file the skill was loaded from ("embedded:…" or a path;
	// "mcp:<server>" for a tool of an MCP server).
	Source string `yaml:"-" json:"source,omitempty"`
	// Tool is set when the skill is one tool of an MCP server the user
	// configured: its arguments' JSON Schema and annotations. Never read
	// from a skill file.
	Tool *Tool `yaml:"-" json:"tool,omitempty"`
}

// HubTagNone marks a skill the Hub lists no models for.
const HubTagNone = "none"

// HubPipelineTag returns the Hub pipeline_tag to sync the skill from, and
// false when the Hub has no listing for it.
func (s *Skill) HubPipelineTag() (string, bool) {
	switch s.HubTag {
	case "":
		return s.Name, true
	case HubTagNone:
		return "", false
	}
	return s.HubTag, true
}

// Inputs returns the distinct modalities of the skill's arguments.
func (s *Skill) Inputs() []Modality {
	var out []Modality
	for _, a := range s.Args {
		if !slices.Contains(out, a.Type) {
			out = append(out, a.Type)
		}
	}
	return out
}

// Arg returns the argument called name.
func (s *Skill) Arg(name string) (Arg, bool) {
	for _, a := range s.Args {
		if a.Name == name {
			return a, true
		}
	}
	return Arg{}, false
}

// ArgNamed finds the argument a plan's name stands for: the name written
// another way ("Labels", "src-lang") or one of the argument's synonyms
// ("candidate_labels"). The exact name is Arg's.
func (s *Skill) ArgNamed(name string) (Arg, bool) {
	n := normalizeArg(name)
	for _, a := range s.Args {
		if normalizeArg(a.Name) == n {
			return a, true
		}
	}
	for _, a := range s.Args {
		for _, syn := range a.Synonyms {
			if normalizeArg(syn) == n {
				return a, true
			}
		}
	}
	return Arg{}, false
}

// normalizeArg folds case and the separators models mix up.
func normalizeArg(name string) string {
	return strings.NewReplacer("-", "_", " ", "_", ".", "_").Replace(strings.ToLower(strings.TrimSpace(name)))
}

// ProducedKind is the kind of a file of modality m that the task's experts
// return.
func (s *Skill) ProducedKind(m Modality) FileKind {
	if m == Image && s.Files != "" {
		return s.Files
	}
	return FileKind(m)
}

// Model returns the candidate with the given id.
func (s *Skill) Model(id string) (Model, bool) {
	for _, m := range s.Models {
		if strings.EqualFold(m.ID, id) {
			return m, true
		}
	}
	return Model{}, false
}

// Validate checks that the skill is usable and names the first problem.
func (s *Skill) Validate() error {
	if s.Name == "" {
		return fmt.Errorf("skill has no name")
	}
	if s.Description == "" {
		return fmt.Errorf("skill %s: description is empty", s.Name)
	}
	if len(s.Args) == 0 {
		return fmt.Errorf("skill %s: no args", s.Name)
	}
	names := map[string]string{}
	for _, a := range s.Args {
		if a.Name == "" || !a.Type.Valid() {
			return fmt.Errorf("skill %s: arg %q has unknown type %q (want text, image, audio, video, point or box)", s.Name, a.Name, a.Type)
		}
		if a.Kind != "" && (a.Kind != FileMask || a.Type != Image) {
			return fmt.Errorf("skill %s: arg %s: kind %q is not one an argument can ask for (want mask, on an image argument)", s.Name, a.Name, a.Kind)
		}
		names[normalizeArg(a.Name)] = a.Name
	}
	for _, a := range s.Args {
		for _, syn := range a.Synonyms {
			if other, ok := names[normalizeArg(syn)]; ok {
				return fmt.Errorf("skill %s: arg %s: synonym %q is already the name or a synonym of arg %s", s.Name, a.Name, syn, other)
			}
			names[normalizeArg(syn)] = a.Name
		}
	}
	if len(s.Outputs) == 0 {
		return fmt.Errorf("skill %s: no outputs", s.Name)
	}
	for _, o := range s.Outputs {
		if !o.Valid() {
			return fmt.Errorf("skill %s: unknown output modality %q", s.Name, o)
		}
	}
	if s.Files != "" && (s.Files != FileMask || !slices.Contains(s.Outputs, Image)) {
		return fmt.Errorf("skill %s: files %q is not a kind a skill can declare (want mask, with image among the outputs)", s.Name, s.Files)
	}
	for i, m := range s.Models {
		if m.ID == "" {
			return fmt.Errorf("skill %s: model %d has no id", s.Name, i)
		}
		if len(m.Endpoints) == 0 {
			return fmt.Errorf("skill %s: model %s lists no endpoints", s.Name, m.ID)
		}
		for _, k := range m.Endpoints {
			if !KnownEndpoint(k) {
				return fmt.Errorf("skill %s: model %s: unknown endpoint %q (want %s)", s.Name, m.ID, k, knownEndpoints())
			}
		}
		for _, p := range m.Providers {
			if err := p.Validate(); err != nil {
				return fmt.Errorf("skill %s: model %s: %w", s.Name, m.ID, err)
			}
		}
		if len(m.LiveProviders()) > 0 && !m.ServedBy(EndpointHuggingFace) {
			return fmt.Errorf("skill %s: model %s lists live providers but not the huggingface endpoint they are reached through (add it to endpoints)", s.Name, m.ID)
		}
		if m.ServedBy(EndpointCommand) && len(m.Command) == 0 {
			return fmt.Errorf("skill %s: model %s lists the command endpoint but no command (add command: [program, args…])", s.Name, m.ID)
		}
	}
	// A default that is not (or no longer, after a Hub sync) among the
	// models is not an error: ranking simply has no default then.
	return nil
}

// Rank orders models for selection when nothing else decides: the skill's
// default first, then general-purpose models by downloads, then niche ones
// by downloads. The sort is stable, so equal models keep their order.
func (s *Skill) Rank(models []Model) []Model {
	out := slices.Clone(models)
	slices.SortStableFunc(out, s.CompareRank)
	return out
}

// CompareRank orders two of the skill's models as Rank does.
func (s *Skill) CompareRank(a, b Model) int {
	if c := cmp.Compare(s.tier(a), s.tier(b)); c != 0 {
		return c
	}
	return cmp.Compare(b.Downloads, a.Downloads)
}

// tier is -1 for a model the configuration names, 0 for the default, 1
// for general models, 2 for niche ones.
func (s *Skill) tier(m Model) int {
	switch {
	case m.Configured:
		return -1
	case s.Default != "" && strings.EqualFold(m.ID, s.Default):
		return 0
	case m.Niche == "":
		return 1
	}
	return 2
}

// RunsOn says, for people, what runs the skill's models: "local programs
// and local inference servers", "Chorus's built-in tools", "the
// controller" for a task with no models.
func (s *Skill) RunsOn() string {
	names := map[EndpointKind]string{
		EndpointBuiltin: "Chorus's built-in tools", EndpointCommand: "local programs", EndpointLocal: "local inference servers",
		EndpointOllama: "Ollama", EndpointOpenAI: "OpenAI-compatible servers", EndpointHuggingFace: "Hugging Face", EndpointRetrieval: "web lookups",
	}
	var out []string
	for _, k := range []EndpointKind{EndpointBuiltin, EndpointCommand, EndpointLocal, EndpointOpenAI, EndpointOllama, EndpointHuggingFace, EndpointRetrieval} {
		if slices.ContainsFunc(s.Models, func(m Model) bool { return m.ServedBy(k) }) {
			out = append(out, cmp.Or(names[k], string(k)))
		}
	}
	switch len(out) {
	case 0:
		return "the controller"
	case 1:
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}
