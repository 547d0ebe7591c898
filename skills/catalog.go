package skills

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/chorusai/chorus/text"
)

//go:embed catalog/*.yaml
var embedded embed.FS

// Catalog is the set of skills the planner may use, keyed by task name.
type Catalog struct {
	skills []*Skill
	byName map[string]*Skill
}

// Embedded returns the catalog built into the binary.
func Embedded() (*Catalog, error) { return Load("") }

// Load reads the embedded catalog and then every *.yaml file in userDir, if
// it is set and exists. A user file whose name matches an embedded skill
// replaces it; a new name adds a skill.
func Load(userDir string) (*Catalog, error) {
	parsed, err := embeddedSkills()
	if err != nil {
		return nil, err
	}
	c := &Catalog{skills: make([]*Skill, 0, len(parsed)), byName: make(map[string]*Skill, len(parsed))}
	for _, s := range parsed {
		s = s.clone()
		c.skills = append(c.skills, s) // sorted by name, as Put keeps them
		c.byName[s.Name] = s
	}
	if userDir == "" {
		return c, nil
	}
	if _, err := os.Stat(userDir); errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err := c.addFS(os.DirFS(userDir), ".", userDir+string(filepath.Separator)); err != nil {
		return nil, err
	}
	return c, nil
}

// embeddedSkills are the embedded catalog's skills, parsed once; each Load
// gets copies of its own. Parsing the YAML took 4 ms a load, 46 ms under
// the race detector, and tests load a catalog for every command they run
// (3.5 of the cli tests' CPU seconds went to it).
var embeddedSkills = sync.OnceValues(func() ([]*Skill, error) {
	c := &Catalog{byName: map[string]*Skill{}}
	if err := c.addFS(embedded, "catalog", "embedded:"); err != nil {
		return nil, err
	}
	return c.skills, nil
})

// clone is a copy of s that shares nothing with it a caller could change:
// a catalog's skills are its own (TestLoadSharesNothing).
func (s *Skill) clone() *Skill {
	c := *s
	c.Aliases = slices.Clone(s.Aliases)
	c.Args = slices.Clone(s.Args)
	for i := range c.Args {
		c.Args[i].Synonyms = slices.Clone(s.Args[i].Synonyms)
	}
	c.Outputs = slices.Clone(s.Outputs)
	c.Examples = slices.Clone(s.Examples)
	c.Models = slices.Clone(s.Models)
	for i := range c.Models {
		c.Models[i] = cloneModel(s.Models[i])
	}
	// Tool is never read from a skill file: an embedded skill has none.
	return &c
}

func (c *Catalog) addFS(fsys fs.FS, dir, origin string) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return fmt.Errorf("read skills from %s: %w", origin, err)
	}
	for _, e := range entries {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("read skill %s%s: %w", origin, e.Name(), err)
		}
		s, err := Parse(data)
		if err != nil {
			return fmt.Errorf("skill file %s%s: %w", origin, e.Name(), err)
		}
		s.Source = origin + e.Name()
		c.Put(s)
	}
	return nil
}

// Parse reads one skill file.
func Parse(data []byte) (*Skill, error) {
	var s Skill
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Put adds s, replacing a skill of the same name.
func (c *Catalog) Put(s *Skill) {
	if old, ok := c.byName[s.Name]; ok {
		i := slices.Index(c.skills, old)
		c.skills[i] = s
	} else {
		c.skills = append(c.skills, s)
	}
	c.byName[s.Name] = s
	slices.SortFunc(c.skills, func(a, b *Skill) int { return strings.Compare(a.Name, b.Name) })
}

// All returns the skills sorted by name.
func (c *Catalog) All() []*Skill { return slices.Clone(c.skills) }

// Names returns the task names sorted.
func (c *Catalog) Names() []string {
	out := make([]string, len(c.skills))
	for i, s := range c.skills {
		out[i] = s.Name
	}
	return out
}

// Skill returns the skill with exactly this name.
func (c *Catalog) Skill(name string) (*Skill, bool) {
	s, ok := c.byName[name]
	return s, ok
}

// Resolve maps a task name as a model wrote it onto a skill: the exact name,
// an alias, a normalised spelling ("Image_Classification"), a common
// abbreviation ("image-cls", "vqa", "asr") or a close misspelling. exact is
// false when the name had to be corrected, so callers can report it.
func (c *Catalog) Resolve(name string) (s *Skill, exact bool, ok bool) {
	if s, ok := c.byName[name]; ok {
		return s, true, true
	}
	want := normalizeTask(name)
	if want == "" {
		return nil, false, false
	}
	for _, s := range c.skills {
		if normalizeTask(s.Name) == want {
			return s, false, true
		}
		for _, a := range s.Aliases {
			if normalizeTask(a) == want {
				return s, false, true
			}
		}
	}
	// A close misspelling, but only when one skill is clearly nearest.
	best, bestD, tie := (*Skill)(nil), 1<<30, false
	for _, s := range c.skills {
		for _, cand := range append([]string{s.Name}, s.Aliases...) {
			d := text.Distance(want, normalizeTask(cand))
			if d < bestD {
				best, bestD, tie = s, d, false
			} else if d == bestD && best != s {
				tie = true
			}
		}
	}
	if best != nil && !tie && bestD <= max(1, len(want)/6) {
		return best, false, true
	}
	return nil, false, false
}

var abbreviations = map[string]string{
	"cls": "classification", "class": "classification", "classify": "classification", "classifier": "classification",
	"seg": "segmentation", "segment": "segmentation", "det": "detection", "detect": "detection", "detector": "detection",
	"gen": "generation", "generate": "generation", "qa": "question-answering", "img": "image", "pic": "image",
	"txt": "text", "2": "to", "vid": "video", "speech2text": "automatic-speech-recognition",
	"asr": "automatic-speech-recognition", "tts": "text-to-speech", "vqa": "visual-question-answering",
	"docqa": "document-question-answering", "dqa": "document-question-answering", "ner": "token-classification",
	"caption": "image-to-text", "captioning": "image-to-text", "depth": "depth-estimation",
	"summarize": "summarization", "summarisation": "summarization", "translate": "translation",
}

// normalizeTask lower-cases a task name, unifies separators and expands
// abbreviations, so "Image_CLS" and "image-classification" compare equal.
func normalizeTask(name string) string {
	t := strings.ToLower(strings.TrimSpace(name))
	t = strings.NewReplacer("_", "-", " ", "-", "/", "-", ".", "-").Replace(t)
	t = splitTwo(t)
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == '-' })
	for i, p := range parts {
		if full, ok := abbreviations[p]; ok {
			parts[i] = full
		}
	}
	t = strings.Join(parts, "-")
	if full, ok := abbreviations[t]; ok {
		t = full
	}
	return t
}

// splitTwo separates a "2" that joins two words ("img2txt", "text2image")
// so it can read as "to".
func splitTwo(t string) string {
	if !strings.Contains(t, "2") {
		return t
	}
	letter := func(b byte) bool { return b >= 'a' && b <= 'z' }
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] == '2' && i > 0 && i+1 < len(t) && letter(t[i-1]) && letter(t[i+1]) {
			b.WriteString("-2-")
			continue
		}
		b.WriteByte(t[i])
	}
	return b.String()
}
