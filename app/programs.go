package app

import (
	"errors"
	"strings"

	"github.com/chorusai/chorus/config"
	"github.com/chorusai/chorus/endpoints/command"
	"github.com/chorusai/chorus/skills"
)

// newCommand builds the command endpoint: its presets and the programs
// the configuration declares, typed against cat's tasks. A declaration
// that cannot run is a configuration error naming its key.
func newCommand(cfg *config.Config, cat *skills.Catalog) (*command.Endpoint, error) {
	ep := command.New(command.Options{Programs: cfg.Command.Programs, Catalog: cat})
	return ep, programsError(cfg, ep.Err())
}

// programsError words the command endpoint's refusal of a declaration as
// the configuration error of its key (command.programs[2].args).
func programsError(cfg *config.Config, err error) error {
	var de *command.DeclarationError
	if !errors.As(err, &de) {
		return err
	}
	key, msg := de.Key(), de.Err.Error()
	if field, rest, ok := strings.Cut(msg, ": "); ok && !strings.ContainsAny(field, " ") {
		key, msg = key+"."+field, rest
	}
	return &config.Error{Key: key, Source: cfg.File, Msg: msg}
}

// Programs lists the programs the command kind runs — its presets and
// command.programs — each with whether it can run on this machine (or
// what to install): what `chorus skills` shows. It needs no engine: the
// programs are read from cfg and the skill files. cfg.Command.Enabled
// says whether Chorus uses them at all. A declaration that cannot run is
// a UsageError naming its key; the others are listed all the same.
func Programs(cfg *config.Config) ([]command.Status, error) {
	cat, err := LoadCatalog(cfg)
	if err != nil {
		return nil, usage(err)
	}
	ep, err := newCommand(cfg, cat)
	if err != nil {
		err = usage(err)
	}
	return ep.Statuses(), err
}
