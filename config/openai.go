package config

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var notAlnum = regexp.MustCompile(`[^A-Z0-9]+`)

// OpenAIKeyVar is the environment variable that holds the key of the
// OpenAI-compatible server named name when the configuration gives neither
// key nor key_env: CHORUS_OPENAI_<NAME>_KEY, the name upper-cased with
// anything but letters and digits as "_" ("openai[1]" →
// CHORUS_OPENAI_OPENAI_1_KEY, "laptop" → CHORUS_OPENAI_LAPTOP_KEY).
func OpenAIKeyVar(name string) string {
	return "CHORUS_OPENAI_" + strings.Trim(notAlnum.ReplaceAllString(strings.ToUpper(name), "_"), "_") + "_KEY"
}

// CheckOpenAITasks refuses a task of the openai list that an
// OpenAI-compatible server does not serve: supports says which do, all
// names them for the message. Load cannot check it — which tasks the kind
// serves is the openai endpoint's to say, and config imports no endpoint
// kind — so the command line calls it right after Load, and a bad task
// still stops every command, naming its key.
func (c *Config) CheckOpenAITasks(supports func(task string) bool, all []string) error {
	for i, s := range c.OpenAI {
		for _, task := range slices.Sorted(maps.Keys(s.Models)) {
			if !supports(task) {
				return c.bad(fmt.Sprintf("openai[%d].models", i), "unknown task %q (an OpenAI-compatible server serves %s)", task, strings.Join(all, ", "))
			}
		}
	}
	return nil
}

// normalizeOpenAI validates the openai list: a URL for each server, a
// unique name, tasks each with at least one model, and the key read from
// key_env when it names a variable. Which tasks a server may list is
// CheckOpenAITasks's.
func (c *Config) normalizeOpenAI() error {
	for i := range c.OpenAI {
		s, key := &c.OpenAI[i], fmt.Sprintf("openai[%d]", i)
		s.Name = cmp.Or(strings.TrimSpace(s.Name), key)
		if j := slices.IndexFunc(c.OpenAI[:i], func(o OpenAIServer) bool { return strings.EqualFold(o.Name, s.Name) }); j >= 0 {
			return c.bad(key+".name", "%q is also openai[%d]'s name; give each server its own", s.Name, j)
		}
		// CHORUS_OPENAI_<NAME>_KEY, as every other key has its CHORUS_
		// variable; key_env then names where it came from.
		err := cmp.Or(c.url(key+".url", &s.URL, "is empty; give the server's base URL, e.g. http://localhost:8080 for LocalAI or http://localhost:8000 for vLLM"),
			c.secret(key+".key", &s.Key, &s.KeyEnv, OpenAIKeyVar(s.Name)))
		if err != nil {
			return err
		}
		// The base URL without /v1: the endpoint adds the routes.
		s.URL = strings.TrimSuffix(s.URL, "/v1")
		models := map[string][]string{}
		for task, ids := range s.Models {
			task = strings.ToLower(strings.TrimSpace(task))
			clean := models[task]
			for _, id := range ids {
				if id = strings.TrimSpace(id); id != "" && !slices.Contains(clean, id) {
					clean = append(clean, id)
				}
			}
			models[task] = clean
		}
		if len(s.Tasks) == 0 {
			s.Tasks = slices.Sorted(maps.Keys(models))
		}
		if len(s.Tasks) == 0 {
			return c.bad(key+".models", "is empty; list the model ids the server serves by task, e.g. models: {text-to-image: [stablediffusion]}")
		}
		for j, task := range s.Tasks {
			if s.Tasks[j] = strings.ToLower(strings.TrimSpace(task)); len(models[s.Tasks[j]]) == 0 {
				return c.bad(key+".models."+s.Tasks[j], "names no model; list the ids the server serves for %s (GET /v1/models shows them)", s.Tasks[j])
			}
		}
		for task := range models {
			if !slices.Contains(s.Tasks, task) {
				return c.bad(key+".models."+task, "%s is not in openai[%d].tasks; add it there or drop these models", task, i)
			}
		}
		s.Models = models
	}
	return nil
}
