package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// ErrNoPlayer is returned (wrapped) when no audio player is installed.
var ErrNoPlayer = errors.New("no audio player found")

// ErrNoSoundDevice is returned (wrapped) when a player ran but found no
// sound device to play on: a server, a container, an ssh session.
var ErrNoSoundDevice = errors.New("no sound device")

// noDevice are what the players say when there is no sound device (ALSA
// with no card, no PulseAudio server, SDL with no driver); their last line
// alone ("…No such file or directory") would not say so.
var noDevice = []string{
	"audio open failed", "audio open error", "cannot find card", "couldn't open audio device", "could not open audio device",
	"no available audio device", "connection to pulseaudio", "connection failure", "unknown pcm default", "sdl_openaudio",
	"no such audio device", "could not initialize sdl",
}

// soundDeviceMissing reports whether a player's output says it found no
// sound device.
func soundDeviceMissing(out string) bool {
	out = strings.ToLower(out)
	for _, s := range noDevice {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// player is a command-line audio player.
type player struct {
	name string
	args []string
	// exts are the file extensions it plays; nil means anything.
	exts []string
	// zeroOnFailure marks a player whose exit status is 0 even when it could
	// not play the file; its error output is then the only sign of failure.
	zeroOnFailure bool
}

// players in order of preference: ffplay plays every format; afplay is on
// every Mac; paplay plays what libsndfile reads; aplay only plays wav.
// ffplay exits 0 whatever happens, so it logs errors (not "quiet") and any
// output it writes is taken as the reason it failed.
var players = []player{
	{name: "ffplay", args: []string{"-nodisp", "-autoexit", "-loglevel", "error"}, zeroOnFailure: true},
	{name: "afplay"},
	{name: "paplay", exts: []string{".wav", ".flac", ".ogg", ".oga", ".aiff", ".aif", ".au", ".snd"}},
	{name: "aplay", args: []string{"-q"}, exts: []string{".wav"}},
}

// Player returns the first installed audio player found with lookPath
// (exec.LookPath in the app): its path as lookPath reported it and the
// arguments to put before the file name. ok is false when none is found.
func Player(lookPath func(string) (string, error)) (name string, args []string, ok bool) {
	name, args, _, ok = choosePlayer(lookPath, "")
	return name, args, ok
}

// choosePlayer returns the first installed player that plays files with
// extension ext ("" for any player at all).
func choosePlayer(lookPath func(string) (string, error), ext string) (name string, args []string, zeroOnFailure, ok bool) {
	if lookPath == nil {
		return "", nil, false, false
	}
	ext = strings.ToLower(ext)
	for _, p := range players {
		if ext != "" && p.exts != nil && !slices.Contains(p.exts, ext) {
			continue
		}
		if path, err := lookPath(p.name); err == nil && path != "" {
			return path, append([]string(nil), p.args...), p.zeroOnFailure, true
		}
	}
	return "", nil, false, false
}

// installHint names what to install for audio playback on this platform.
func installHint() string {
	if runtime.GOOS == "darwin" {
		return "install ffmpeg (`brew install ffmpeg`) for ffplay"
	}
	return "install ffmpeg for ffplay (`sudo apt install ffmpeg`, `sudo dnf install ffmpeg`), or pulseaudio-utils for paplay, or alsa-utils for aplay (wav only)"
}

// Play plays the audio file at path with the first suitable installed
// player and returns when playback ends. It runs the player directly (no
// shell), with no terminal input and its output captured, so it cannot
// disturb the UI. Cancelling ctx stops playback; the error then wraps
// ctx.Err(). Without a player the error wraps ErrNoPlayer and says what to
// install.
func Play(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return cannotPlay(path, err)
	}
	st, err := os.Stat(abs)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return cannotPlay(path, pe.Err) // the path comes last, once
	case err != nil:
		return cannotPlay(path, err)
	case st.IsDir():
		return cannotPlay(path, errors.New("it is a directory"))
	}
	ext := filepath.Ext(abs)
	name, args, zeroOnFailure, ok := choosePlayer(exec.LookPath, ext)
	if !ok {
		if _, _, some := Player(exec.LookPath); some {
			return cannotPlay(path, fmt.Errorf("%w for %s files — %s", ErrNoPlayer, ext, installHint()))
		}
		return cannotPlay(path, fmt.Errorf("%w — %s", ErrNoPlayer, installHint()))
	}
	// abs never starts with "-", so no player mistakes it for an option.
	cmd := exec.CommandContext(ctx, name, append(args, abs)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A player that forks helpers could keep the output pipe open after
	// being killed; WaitDelay stops Wait from waiting on them for ever.
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("playback of %s stopped: %w", path, ctx.Err())
	}
	msg := strings.TrimSpace(out.String())
	if (err != nil || zeroOnFailure && msg != "") && soundDeviceMissing(msg) {
		return cannotPlay(path, fmt.Errorf("%w on this machine (%s found none to open) — open the file elsewhere", ErrNoSoundDevice, filepath.Base(name)))
	}
	if len(msg) > 300 {
		msg = "…" + msg[len(msg)-300:]
	}
	player := filepath.Base(name)
	switch {
	case err != nil && msg != "":
		return cannotPlay(path, fmt.Errorf("%s: %s (%w)", player, msg, err))
	case err != nil:
		return cannotPlay(path, fmt.Errorf("%s failed: %w", player, err))
	case zeroOnFailure && msg != "":
		return cannotPlay(path, fmt.Errorf("%s: %s", player, msg))
	}
	return nil
}

// cannotPlay words a failure to play path with the reason first: the
// status line shows what fits of it (80 columns), and the path — a long
// one, in the outputs folder — is the part the user already knows.
func cannotPlay(path string, reason error) error {
	return fmt.Errorf("%w — cannot play %s", reason, path)
}
