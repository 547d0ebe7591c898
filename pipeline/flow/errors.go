package flow

import (
	"context"
	"errors"
	"fmt"
)

// ErrCancelled is returned (wrapped) when the turn's context was cancelled.
var ErrCancelled = errors.New("turn cancelled")

// Cancelled is the error of a turn whose context ctx was cancelled:
// ErrCancelled, and why.
func Cancelled(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrCancelled, ctx.Err())
}
