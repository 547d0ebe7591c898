package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// cacheVersion is the format of a cache file; a file of another version is
// ignored with an error asking for a fresh sync.
const cacheVersion = 1

// Cache is the synced catalog on disk: one JSON file per task under Dir,
// written by `chorus models sync` and laid over the embedded catalog at
// start by Catalog.Overlay. The zero value (no Dir) is an empty cache.
type Cache struct {
	Dir string
}

// cacheFile is the on-disk form of one task's sync.
type cacheFile struct {
	Version int       `json:"version"`
	Task    string    `json:"task"`
	Fetched time.Time `json:"fetched"`
	Models  []Model   `json:"models"`
}

var taskNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Path returns the file holding task's synced models.
func (c Cache) Path(task string) (string, error) {
	if c.Dir == "" {
		return "", errors.New("no cache directory configured for synced models")
	}
	if !taskNameRE.MatchString(task) || strings.Contains(task, "..") {
		return "", fmt.Errorf("task name %q cannot name a cache file (want lower-case letters, digits and dashes, e.g. image-classification)", task)
	}
	return filepath.Join(c.Dir, task+".json"), nil
}

// Save records models as task's synced listing, fetched at the given time.
// The file is written to a temporary name and renamed into place, so a
// crash or a concurrent reader never sees half a file. Each model's
// Fetched is set to fetched.
func (c Cache) Save(task string, models []Model, fetched time.Time) error {
	p, err := c.Path(task)
	if err != nil {
		return err
	}
	if len(models) == 0 {
		return fmt.Errorf("sync of %s found no models to save; the previous listing is kept", task)
	}
	fetched = fetched.UTC().Truncate(time.Second)
	f := cacheFile{Version: cacheVersion, Task: task, Fetched: fetched, Models: make([]Model, len(models))}
	for i, m := range models {
		if m.ID == "" {
			return fmt.Errorf("sync of %s: model %d has no id", task, i)
		}
		m.Fetched = fetched
		f.Models[i] = m
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode synced models for %s: %w", task, err)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("create the synced-models directory: %w", err)
	}
	tmp, err := os.CreateTemp(c.Dir, "."+task+".*.tmp")
	if err != nil {
		return fmt.Errorf("save synced models for %s: %w", task, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("save synced models for %s: %w", task, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save synced models for %s: %w", task, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save synced models for %s: %w", task, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("save synced models for %s: %w", task, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("save synced models for %s: %w", task, err)
	}
	done = true
	return nil
}

// Load returns task's synced models and when they were fetched. An error
// wrapping fs.ErrNotExist means the task was never synced.
func (c Cache) Load(task string) ([]Model, time.Time, error) {
	p, err := c.Path(task)
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, time.Time{}, err
	}
	var f cacheFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, time.Time{}, fmt.Errorf("synced models file %s is damaged (%w) — run `chorus models sync %s` again or delete the file", p, err, task)
	}
	if f.Version != cacheVersion {
		return nil, time.Time{}, fmt.Errorf("synced models file %s has format %d, this Chorus reads %d — run `chorus models sync %s` again", p, f.Version, cacheVersion, task)
	}
	if f.Fetched.IsZero() {
		return nil, time.Time{}, fmt.Errorf("synced models file %s has no fetch time — run `chorus models sync %s` again", p, task)
	}
	if f.Task != task {
		return nil, time.Time{}, fmt.Errorf("synced models file %s holds task %q, not %q — delete it and run `chorus models sync %s`", p, f.Task, task, task)
	}
	return f.Models, f.Fetched, nil
}

// Fetched reports when task was last synced, and false if it never was
// (or its file cannot be read).
func (c Cache) Fetched(task string) (time.Time, bool) {
	_, t, err := c.Load(task)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// Tasks returns the tasks with a synced listing, sorted.
func (c Cache) Tasks() ([]string, error) {
	if c.Dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the synced-models directory: %w", err)
	}
	var out []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && !e.IsDir() && taskNameRE.MatchString(name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// Overlay lays the synced listings in cache over the catalog. For every
// skill with a synced file, the synced models replace the skill's models,
// ranked as the Hub ranked them; a synced model the catalog already lists
// keeps the catalog's description, its local, ollama, command and builtin
// endpoints and any facts the Hub lacks, and catalog models with such
// local endpoints that the sync did not return are kept, so a sync never
// loses a local expert. Catalog models served only by Hugging Face that
// the sync no longer returns are dropped.
//
// applied maps each refreshed task to its fetch time. A damaged or stale
// file is skipped and reported in err (all problems joined) while the
// other tasks are still applied; a missing cache directory is no error.
func (c *Catalog) Overlay(cache Cache) (applied map[string]time.Time, err error) {
	applied = map[string]time.Time{}
	if cache.Dir == "" {
		return applied, nil
	}
	tasks, err := cache.Tasks()
	if err != nil {
		return applied, err
	}
	var errs []error
	for _, task := range tasks {
		s, ok := c.Skill(task)
		if !ok {
			continue // a skill no longer in the catalog
		}
		synced, fetched, err := cache.Load(task)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ns := *s
		ns.Models = MergeSynced(s.Models, synced, fetched)
		// A model the curated catalog does not know comes unmarked; one
		// whose id or description says it is special-purpose ranks after
		// the general ones, as a curated niche model does.
		for i, m := range ns.Models {
			if _, curated := findModel(s.Models, m.ID); !curated && m.Niche == "" {
				ns.Models[i].Niche = ns.GuessNiche(m)
			}
		}
		if !slices.ContainsFunc(ns.Models, func(m Model) bool { return !m.Fetched.IsZero() }) {
			errs = append(errs, fmt.Errorf("synced models for %s list no usable model — run `chorus models sync %s` again", task, task))
			continue
		}
		if err := ns.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("synced models for %s: %w — run `chorus models sync %s` again", task, err, task))
			continue
		}
		c.Put(&ns)
		applied[task] = fetched
	}
	return applied, errors.Join(errs...)
}

// MergeSynced returns the model list for a skill whose catalog lists
// current and whose Hub sync returned synced (see Catalog.Overlay). The
// Hub decides whether the huggingface endpoint serves a model; every other
// endpoint kind comes from either side. Neither input is modified.
func MergeSynced(current, synced []Model, fetched time.Time) []Model {
	var out []Model
	seen := map[string]bool{}
	for _, m := range synced {
		if m.ID == "" || seen[strings.ToLower(m.ID)] {
			continue
		}
		seen[strings.ToLower(m.ID)] = true
		m = cloneModel(m)
		if m.Fetched.IsZero() {
			m.Fetched = fetched
		}
		if old, ok := findModel(current, m.ID); ok {
			m.ID = old.ID
			if old.Description != "" {
				m.Description = old.Description
			}
			if m.License == "" {
				m.License = old.License
			}
			if m.Params == 0 && m.SizeBytes == 0 {
				m.Params, m.SizeBytes = old.Params, old.SizeBytes
			}
			if len(m.Benchmarks) == 0 {
				m.Benchmarks = slices.Clone(old.Benchmarks)
			}
			if len(m.Command) == 0 {
				m.Command = slices.Clone(old.Command)
			}
			if m.Niche == "" {
				m.Niche = old.Niche // curation, which the Hub does not know
			}
			if len(m.Providers) == 0 && m.ServedBy(EndpointHuggingFace) {
				// An older cache has no mapping; the curated one is
				// better than none until the next sync.
				m.Providers = slices.Clone(old.Providers)
			}
			m.Endpoints = mergeEndpoints(m.Endpoints, localKinds(old.Endpoints))
		} else {
			m.Endpoints = mergeEndpoints(m.Endpoints, nil)
		}
		if len(m.Endpoints) > 0 {
			out = append(out, m)
		}
	}
	for _, old := range current {
		if seen[strings.ToLower(old.ID)] || len(localKinds(old.Endpoints)) == 0 {
			continue
		}
		out = append(out, cloneModel(old))
	}
	return out
}

func findModel(ms []Model, id string) (Model, bool) {
	for _, m := range ms {
		if strings.EqualFold(m.ID, id) {
			return m, true
		}
	}
	return Model{}, false
}

// localKinds returns the endpoint kinds other than huggingface.
func localKinds(kinds []EndpointKind) []EndpointKind {
	var out []EndpointKind
	for _, k := range kinds {
		if k != EndpointHuggingFace {
			out = append(out, k)
		}
	}
	return out
}

// mergeEndpoints unions kinds in EndpointKinds order, dropping unknown
// kinds, so merged lists always validate.
func mergeEndpoints(a, b []EndpointKind) []EndpointKind {
	var out []EndpointKind
	for _, k := range EndpointKinds {
		if slices.Contains(a, k) || slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}

func cloneModel(m Model) Model {
	m.Endpoints = slices.Clone(m.Endpoints)
	m.Command = slices.Clone(m.Command)
	m.Benchmarks = slices.Clone(m.Benchmarks)
	m.Providers = slices.Clone(m.Providers)
	return m
}
