package ui

import (
	"context"
	"errors"
	"fmt"
)

// remoteMedia is the media of a chat whose user is on another machine
// (Options.Remote): pictures are drawn in their terminal like any text,
// but a sound played here would play where Chorus runs, to nobody — so
// nothing is played, and Play says where the file is instead.
type remoteMedia struct {
	mediaPreviewer
	from string
}

// errRemoteAudio is wrapped by remoteMedia.Play.
var errRemoteAudio = errors.New("sound is not played over ssh")

func (r remoteMedia) Player() (string, bool) { return "", false }

func (r remoteMedia) Play(_ context.Context, path string) error {
	return fmt.Errorf("%w: it would play on the machine running Chorus, not on yours (%s) — the file is %s (click its link in the answer, or copy the path with the copy picker and fetch it with scp)",
		errRemoteAudio, r.from, path)
}
