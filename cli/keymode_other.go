//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cli

import (
	"errors"
	"os"
)

// keyMode is not available here: the question is answered with a key and
// Enter, as the terminal hands over whole lines.
func keyMode(*os.File) (restore func(), err error) {
	return nil, errors.New("no key-at-a-time terminal mode on this system")
}
