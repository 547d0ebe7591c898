package config

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
)

// OpenAIKeyVar is the environment variable that holds the key of the
// OpenAI-compatible server named name when the configuration gives neither
// key nor key_env: CHORUS_OPENAI_<NAME>_KEY, the name upper-cased with
// anything but letters and digits as "_" ("openai[1]" →
// CHORUS_OPENAI_OPENAI_1_KEY, "laptop" → CHORUS_OPENAI_LAPTOP_KEY).
func OpenAIKeyVar(name string) string {
	var b strings.Builder
	last := '_'
	for _, r := range strings.ToUpper(name) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			last = r
		} else if last != '_' {
			b.WriteByte('_')
			last = '_'
		}
	}
	return "CHORUS_OPENAI_" + strings.TrimSuffix(b.String(), "_") + "_KEY"
}

// CheckOpenAITasks refuses a task of the openai list that an
// OpenAI-compatible server does not serve: supports says which do, all
// names them for the message. Load cannot check it — which tasks the kind
// serves is the openai endpoint's to say, and config imports no endpoint
// kind — so the command line calls it right after Load, and a bad task
// still stops every command, naming its key.
func (c *Config) CheckOpenAITasks(supports func(task string) bool, all []string) error {
	for i, s := range c.OpenAI {
		tasks := make([]string, 0, len(s.Models))
		for task := range s.Models {
			tasks = append(tasks, task)
		}
		sort.Strings(tasks)
		for _, task := range tasks {
			if !supports(task) {
				return &Error{Key: fmt.Sprintf("openai[%d].models", i), Source: c.File,
					Msg: fmt.Sprintf("unknown task %q (an OpenAI-compatible server serves %s)", task, strings.Join(all, ", "))}
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
	names := map[string]int{}
	for i := range c.OpenAI {
		s := &c.OpenAI[i]
		key := fmt.Sprintf("openai[%d]", i)
		bad := func(sub, format string, args ...any) error {
			return &Error{Key: key + sub, Source: c.File, Msg: fmt.Sprintf(format, args...)}
		}
		s.Name = strings.TrimSpace(s.Name)
		if s.Name == "" {
			s.Name = key
		}
		if j, dup := names[strings.ToLower(s.Name)]; dup {
			return bad(".name", "%q is also openai[%d]'s name; give each server its own", s.Name, j)
		}
		names[strings.ToLower(s.Name)] = i
		if strings.TrimSpace(s.URL) == "" {
			return bad(".url", "is empty; give the server's base URL, e.g. http://localhost:8080 for LocalAI or http://localhost:8000 for vLLM")
		}
		u, err := checkURL(s.URL)
		if err != nil {
			return bad(".url", "%v", err)
		}
		// The base URL without /v1: the endpoint adds the routes.
		s.URL = strings.TrimSuffix(strings.TrimRight(u, "/"), "/v1")
		switch {
		case s.KeyEnv != "" && s.Key != "":
			return bad(".key_env", "set key or key_env, not both")
		case s.KeyEnv != "":
			s.Key = strings.TrimSpace(os.Getenv(s.KeyEnv))
		case s.Key == "":
			// CHORUS_OPENAI_<NAME>_KEY, as every other key has its
			// CHORUS_ variable; key_env then names where it came from.
			if v := strings.TrimSpace(os.Getenv(OpenAIKeyVar(s.Name))); v != "" {
				s.Key, s.KeyEnv = v, OpenAIKeyVar(s.Name)
			}
		}
		models := map[string][]string{}
		for task, ids := range s.Models {
			task = strings.ToLower(strings.TrimSpace(task))
			var clean []string
			for _, id := range ids {
				if id = strings.TrimSpace(id); id != "" && !slices.Contains(clean, id) {
					clean = append(clean, id)
				}
			}
			models[task] = clean
		}
		if len(s.Tasks) == 0 {
			for task := range models {
				s.Tasks = append(s.Tasks, task)
			}
			sort.Strings(s.Tasks)
		}
		if len(s.Tasks) == 0 {
			return bad(".models", "is empty; list the model ids the server serves by task, e.g. models: {text-to-image: [stablediffusion]}")
		}
		for j, task := range s.Tasks {
			task = strings.ToLower(strings.TrimSpace(task))
			s.Tasks[j] = task
			if len(models[task]) == 0 {
				return bad(".models."+task, "names no model; list the ids the server serves for %s (GET /v1/models shows them)", task)
			}
		}
		for task := range models {
			if !slices.Contains(s.Tasks, task) {
				return bad(".models."+task, "%s is not in openai[%d].tasks; add it there or drop these models", task, i)
			}
		}
		s.Models = models
	}
	return nil
}
