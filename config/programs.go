package config

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/chorusai/chorus/skills"
)

// programKeys are the keys of one command.programs item: skills.Program's.
var programKeys = func() []string {
	var out []string
	t := reflect.TypeFor[skills.Program]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		out = append(out, name)
	}
	return out
}()

// readPrograms reads the command.programs list from the user's config
// file with the file's own case (viper lowers map keys: env names and
// bad_input phrases are not all lower case), refusing unknown keys by
// name.
func readPrograms(data []byte, file string) ([]skills.Program, error) {
	var doc struct {
		Command struct {
			Programs yaml.Node `yaml:"programs"`
		} `yaml:"command"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("config: %s: %w", file, err)
	}
	n := doc.Command.Programs
	if n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	const shape = `is a list of programs: write each one as an item, "- name: …" with tasks and args under it (see docs/endpoints.md)`
	if n.Kind != yaml.SequenceNode {
		return nil, &Error{Key: "command.programs", Source: file, Msg: shape}
	}
	out := make([]skills.Program, 0, len(n.Content))
	for i, item := range n.Content {
		key := fmt.Sprintf("command.programs[%d]", i)
		if item.Kind != yaml.MappingNode {
			return nil, &Error{Key: key, Source: file, Msg: "is not a program; each item " + strings.TrimPrefix(shape, "is a list of programs: write each one as an item")}
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			if k := item.Content[j].Value; !slices.Contains(programKeys, k) {
				return nil, &Error{Key: key + "." + k, Source: file, Msg: "unknown key; a program takes " + strings.Join(programKeys, ", ") + " (see docs/endpoints.md)"}
			}
		}
		var raw bytes.Buffer
		if err := yaml.NewEncoder(&raw).Encode(item); err != nil {
			return nil, &Error{Key: key, Source: file, Msg: err.Error()}
		}
		var p skills.Program
		dec := yaml.NewDecoder(&raw)
		dec.KnownFields(true)
		if err := dec.Decode(&p); err != nil {
			return nil, &Error{Key: key, Source: file, Msg: programShape(err)}
		}
		out = append(out, p)
	}
	return out, nil
}

// programShape turns a yaml type error into what to write.
func programShape(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "into []string"):
		return "tasks, args, requires, version and pairs are lists: write [a, b] — " + msg
	case strings.Contains(msg, "into map"):
		return "inputs, env and bad_input are maps: write {key: value} — " + msg
	}
	return msg
}

// normalizePrograms checks each declared program's shape, naming the key
// of the first problem (command.programs[2].args). Whether its tasks and
// placeholders fit the catalog is the command kind's to say when it is
// built (it knows the skill files).
func (c *Config) normalizePrograms() error {
	for i := range c.Command.Programs {
		p := &c.Command.Programs[i]
		p.Name = strings.TrimSpace(p.Name)
		key := fmt.Sprintf("command.programs[%d]", i)
		if err := p.Check(); err != nil {
			field, msg, ok := strings.Cut(err.Error(), ": ")
			if !ok || strings.ContainsAny(field, " ") {
				field, msg = "", err.Error()
			}
			if field != "" {
				key += "." + field
			}
			return &Error{Key: key, Source: c.File, Msg: msg}
		}
	}
	return nil
}
