package skills

import (
	"slices"
	"testing"
	"time"
)

// servedOnly keeps the models one of kinds serves: what a mode can run.
func servedOnly(ms []Model, kinds ...EndpointKind) []Model {
	var out []Model
	for _, m := range ms {
		if slices.ContainsFunc(kinds, m.ServedBy) {
			out = append(out, m)
		}
	}
	return out
}

// TestCatalogNeverRanksANicheModelFirst: over the whole embedded catalog,
// whatever a mode can run (every model, Hugging Face's, this machine's)
// and with or without the skill's default, the model ranked first is
// never a special-purpose one — marked niche, or whose id or description
// says nsfw, table, age and the like — while a general model is there,
// unless the skill is about that. And every curated model that looks
// special-purpose says so (niche:), so the controller sees why.
func TestCatalogNeverRanksANicheModelFirst(t *testing.T) {
	cat := embeddedCatalog(t)
	for _, s := range cat.All() {
		for _, m := range s.Models {
			if guess := s.GuessNiche(m); guess != "" && m.Niche == "" {
				t.Errorf("%s: %s looks special-purpose (%s) but has no niche: note", s.Name, m.ID, guess)
			}
		}
		subsets := map[string][]Model{
			"all":         s.Models,
			"huggingface": servedOnly(s.Models, EndpointHuggingFace),
			"local":       servedOnly(s.Models, EndpointLocal, EndpointOllama, EndpointCommand, EndpointBuiltin),
		}
		for name, ms := range subsets {
			for _, withDefault := range []bool{true, false} {
				pool := ms
				if !withDefault {
					pool = slices.DeleteFunc(slices.Clone(ms), func(m Model) bool { return m.ID == s.Default })
				}
				general := slices.ContainsFunc(pool, func(m Model) bool { return m.Niche == "" && s.GuessNiche(m) == "" })
				if len(pool) == 0 || !general {
					continue
				}
				first := s.Rank(pool)[0]
				if first.Niche != "" || s.GuessNiche(first) != "" {
					t.Errorf("%s (%s models, default available %v): %s ranks first, a special-purpose model (%s%s)",
						s.Name, name, withDefault, first.ID, first.Niche, s.GuessNiche(first))
				}
			}
		}
	}
}

// TestSyncedNicheModelsRankLast: the Hub's most downloaded
// image-classification and object-detection models include an NSFW
// filter and table finders the catalog does not curate; after a sync they
// are marked niche from their ids and rank after the general models,
// while a model merely named "stable…" is not taken for a table finder.
func TestSyncedNicheModelsRankLast(t *testing.T) {
	cache := Cache{Dir: t.TempDir()}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	hub := func(id string, dl int64) Model {
		return Model{ID: id, Downloads: dl, License: "apache-2.0", Endpoints: []EndpointKind{EndpointHuggingFace}}
	}
	if err := cache.Save("image-classification", []Model{
		hub("AdamCodd/vit-base-nsfw-detector", 90_000_000), hub("Falconsai/nsfw_image_detection", 80_000_000),
		hub("dima806/facial_age_image_detection", 70_000_000), hub("google/vit-base-patch16-224", 3_000_000),
		hub("stable-team/stable-vit", 1_000_000),
	}, now); err != nil {
		t.Fatal(err)
	}
	if err := cache.Save("object-detection", []Model{
		hub("microsoft/table-transformer-structure-recognition", 9_000_000), hub("facebook/detr-resnet-50", 1_000_000),
	}, now); err != nil {
		t.Fatal(err)
	}
	cat := embeddedCatalog(t)
	if _, err := cat.Overlay(cache); err != nil {
		t.Fatal(err)
	}
	ic, _ := cat.Skill("image-classification")
	for id, niche := range map[string]bool{"AdamCodd/vit-base-nsfw-detector": true, "dima806/facial_age_image_detection": true, "stable-team/stable-vit": false} {
		m, _ := ic.Model(id)
		if (m.Niche != "") != niche {
			t.Errorf("%s niche %q, want niche %v", id, m.Niche, niche)
		}
	}
	noDefault := slices.DeleteFunc(slices.Clone(ic.Models), func(m Model) bool { return m.ID == ic.Default })
	if first := ic.Rank(noDefault)[0]; first.Niche != "" {
		t.Errorf("image-classification without its default ranks %s first", first.ID)
	}
	od, _ := cat.Skill("object-detection")
	if first := od.Rank(od.Models)[0]; first.ID != "facebook/detr-resnet-50" {
		t.Errorf("object-detection ranks %s first", first.ID)
	}
}

// TestGuessNicheRespectsTheSkill: a word the skill is about marks nothing.
func TestGuessNicheRespectsTheSkill(t *testing.T) {
	s := &Skill{Name: "nsfw-detection", Description: "Tell NSFW images from safe ones."}
	if g := s.GuessNiche(Model{ID: "Falconsai/nsfw_image_detection"}); g != "" {
		t.Errorf("an NSFW filter is niche for an NSFW skill: %q", g)
	}
	g := &Skill{Name: "image-classification", Description: "Label what an image shows."}
	if n := g.GuessNiche(Model{ID: "Falconsai/nsfw_image_detection"}); n == "" {
		t.Error("an NSFW filter is not niche for image-classification")
	}
	if n := g.GuessNiche(Model{ID: "x/chest-x-ray-classifier"}); n == "" {
		t.Error("a chest x-ray model is not niche for image-classification")
	}
}
