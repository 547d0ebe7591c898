package sshd

import (
	"context"

	"github.com/chorusai/chorus/ui"
)

// SetNewProgram replaces how a chat's program is built, for a test; the
// returned function restores it.
func SetNewProgram(f func(context.Context, ui.Options) (*ui.Program, error)) (restore func()) {
	old := newProgram
	newProgram = f
	return func() { newProgram = old }
}
