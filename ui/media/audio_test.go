package media

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/testkit"
)

func fakeLookPath(installed ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(installed, name) {
			return "/usr/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
}

func TestPlayer(t *testing.T) {
	cases := []struct {
		installed []string
		name      string
		args      []string
	}{
		{[]string{"aplay", "paplay", "ffplay", "afplay"}, "/usr/bin/ffplay", []string{"-nodisp", "-autoexit", "-loglevel", "error"}},
		{[]string{"aplay", "afplay"}, "/usr/bin/afplay", nil},
		{[]string{"aplay", "paplay"}, "/usr/bin/paplay", nil},
		{[]string{"aplay"}, "/usr/bin/aplay", []string{"-q"}},
		{nil, "", nil},
	}
	for _, c := range cases {
		name, args, ok := Player(fakeLookPath(c.installed...))
		if name != c.name || !slices.Equal(args, c.args) || ok != (c.name != "") {
			t.Errorf("Player with %v = %q %q %v, want %q %q", c.installed, name, args, ok, c.name, c.args)
		}
	}
	if _, _, ok := Player(nil); ok {
		t.Errorf("Player(nil) found a player")
	}
	// Formats narrow the choice: aplay plays only wav, paplay no mp3.
	if _, _, _, ok := choosePlayer(fakeLookPath("aplay", "paplay"), ".MP3"); ok {
		t.Errorf("aplay/paplay chosen for an mp3")
	}
	if name, _, _, _ := choosePlayer(fakeLookPath("aplay", "paplay"), ".flac"); name != "/usr/bin/paplay" {
		t.Errorf("flac went to %q, want paplay", name)
	}
	if name, _, _, _ := choosePlayer(fakeLookPath("aplay"), ".wav"); name != "/usr/bin/aplay" {
		t.Errorf("wav went to %q, want aplay", name)
	}
}

// fakePlayers puts shell scripts named after players in a fresh directory
// that becomes the whole PATH.
func fakePlayers(t *testing.T, scripts map[string]string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

func TestPlayRunsPlayerDirectly(t *testing.T) {
	out := filepath.Join(t.TempDir(), "args")
	t.Setenv("ARGS_OUT", out)
	fakePlayers(t, map[string]string{"ffplay": `for a in "$@"; do printf '%s\n' "$a"; done > "$ARGS_OUT"`})
	dir := t.TempDir()
	t.Chdir(dir)
	// A name starting with "-" and containing shell syntax must reach the
	// player as one absolute path, never as an option or a command.
	name := "-x $(touch pwned); song.mp3"
	if err := os.WriteFile(name, []byte("ID3"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Play(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the player did not run: %v", err)
	}
	want := "-nodisp\n-autoexit\n-loglevel\nerror\n" + filepath.Join(dir, name) + "\n"
	if string(got) != want {
		t.Errorf("player got arguments\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat("pwned"); err == nil {
		t.Errorf("the file name was run by a shell")
	}
}

func TestPlayErrors(t *testing.T) {
	song := filepath.Join(t.TempDir(), "song.mp3")
	os.WriteFile(song, []byte("ID3"), 0o600)
	wav := filepath.Join(t.TempDir(), "beep.wav")
	os.WriteFile(wav, []byte("RIFF"), 0o600)

	t.Run("no player", func(t *testing.T) {
		fakePlayers(t, nil)
		err := Play(context.Background(), song)
		if !errors.Is(err, ErrNoPlayer) || !strings.Contains(err.Error(), "install ffmpeg") {
			t.Errorf("got %v, want ErrNoPlayer telling what to install", err)
		}
	})
	t.Run("only aplay for an mp3", func(t *testing.T) {
		fakePlayers(t, map[string]string{"aplay": "exit 0"})
		err := Play(context.Background(), song)
		if !errors.Is(err, ErrNoPlayer) || !strings.Contains(err.Error(), ".mp3") || !strings.Contains(err.Error(), "ffmpeg") {
			t.Errorf("got %v, want ErrNoPlayer for .mp3 naming ffmpeg", err)
		}
		if err := Play(context.Background(), wav); err != nil {
			t.Errorf("aplay should play a wav: %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		fakePlayers(t, map[string]string{"ffplay": "exit 0"})
		if err := Play(context.Background(), song+".gone"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("got %v, want a not-exist error", err)
		}
	})
	t.Run("player fails", func(t *testing.T) {
		fakePlayers(t, map[string]string{"paplay": "echo 'Failed to open audio file.' >&2; exit 1"})
		err := Play(context.Background(), wav)
		if err == nil || !strings.Contains(err.Error(), "paplay") || !strings.Contains(err.Error(), "Failed to open audio file.") {
			t.Errorf("got %v, want the player's own message", err)
		}
	})
	t.Run("ffplay fails with status 0", func(t *testing.T) {
		fakePlayers(t, map[string]string{"ffplay": "echo 'song.mp3: Invalid data found when processing input' >&2; exit 0"})
		err := Play(context.Background(), song)
		if err == nil || !strings.Contains(err.Error(), "Invalid data") {
			t.Errorf("got %v, want ffplay's message as an error", err)
		}
	})
}

func TestPlayCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "started")
	if err := testkit.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no fifos here: %v", err)
	}
	t.Setenv("STARTED", fifo)
	// The player reports its pid, then becomes a long-running process.
	fakePlayers(t, map[string]string{"ffplay": `echo $$ > "$STARTED"; exec /bin/sleep 600`})
	song := filepath.Join(t.TempDir(), "song.ogg")
	os.WriteFile(song, []byte("OggS"), 0o600)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Play(ctx, song) }()

	f, err := os.Open(fifo) // blocks until the player has started
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Play returned %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Play did not return after cancellation")
	}
	if alive, err := testkit.ProcessExists(pid); alive || err != nil {
		t.Errorf("player %d still exists after cancellation (kill -0: %v)", pid, err)
		_ = testkit.KillProcess(pid)
	}
}

// TestPlayRealFFplay plays a real file with the real ffplay where it is
// installed, through SDL's dummy audio driver so no sound card is needed.
func TestPlayRealFFplay(t *testing.T) {
	if _, err := exec.LookPath("ffplay"); err != nil {
		t.Skip("ffplay is not installed")
	}
	t.Setenv("SDL_AUDIODRIVER", "dummy")
	dir := t.TempDir()
	wav := filepath.Join(dir, "beep.wav")
	if err := os.WriteFile(wav, sineWAV(8000, 0.1), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Play(context.Background(), wav); err != nil {
		t.Errorf("playing a valid wav: %v", err)
	}
	bad := filepath.Join(dir, "notes.wav")
	os.WriteFile(bad, []byte("not audio at all\n"), 0o600)
	if err := Play(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "notes.wav") {
		t.Errorf("playing a text file: %v, want ffplay's error", err)
	}
}

// sineWAV returns a mono 16-bit PCM WAV of a square-ish tone.
func sineWAV(rate int, seconds float64) []byte {
	n := int(float64(rate) * seconds)
	var data bytes.Buffer
	for i := range n {
		v := int16(8000)
		if (i/10)%2 == 0 {
			v = -v
		}
		binary.Write(&data, binary.LittleEndian, v)
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+data.Len()))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(rate * 2), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(data.Len()))
	b.Write(data.Bytes())
	return b.Bytes()
}

// TestPlayNamesAMissingSoundDevice: a player that finds no sound device
// (ALSA with no card, here for real) is reported as such, not by its
// last line ("…No such file or directory").
func TestPlayNamesAMissingSoundDevice(t *testing.T) {
	t.Run("fake aplay", func(t *testing.T) {
		fakePlayers(t, map[string]string{"aplay": "echo 'aplay: main:831: audio open error: No such file or directory' >&2; exit 1"})
		wav := filepath.Join(t.TempDir(), "a.wav")
		os.WriteFile(wav, sineWAV(8000, 0.05), 0o600)
		err := Play(context.Background(), wav)
		if !errors.Is(err, ErrNoSoundDevice) || !strings.Contains(err.Error(), "no sound device on this machine") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("real ffplay without a card", func(t *testing.T) {
		if _, err := exec.LookPath("ffplay"); err != nil {
			t.Skip("ffplay is not installed")
		}
		if _, err := os.Stat("/dev/snd"); err == nil {
			t.Skip("this machine has sound devices")
		}
		t.Setenv("SDL_AUDIODRIVER", "alsa")
		wav := filepath.Join(t.TempDir(), "beep.wav")
		os.WriteFile(wav, sineWAV(8000, 0.05), 0o600)
		if err := Play(context.Background(), wav); !errors.Is(err, ErrNoSoundDevice) {
			t.Fatalf("err = %v, want ErrNoSoundDevice", err)
		}
	})
}

// TestPlayErrorsSayTheReasonFirst: the TUI's status line shows what fits
// of a playback error in 80 columns; with the path first (a long one, in
// the outputs folder) the reason was cut. Each failure starts with why,
// and ends naming the file.
func TestPlayErrorsSayTheReasonFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outputs", "2026-01-02", "session-20260102-101112-abcd")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	song := filepath.Join(dir, "text-to-speech-task-3-a-rather-long-generated-name.mp3")
	wav := filepath.Join(dir, "text-to-speech-task-4-a-rather-long-generated-name.wav")
	for _, p := range []string{song, wav} {
		if err := os.WriteFile(p, []byte("RIFF"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		players map[string]string
		file    string
		reason  string
	}{
		{"no player", nil, song, "no audio player found"},
		{"no player for the format", map[string]string{"aplay": "exit 0"}, song, "no audio player found for .mp3 files"},
		{"missing file", map[string]string{"ffplay": "exit 0"}, song + ".gone", "no such file or directory"},
		{"a directory", map[string]string{"ffplay": "exit 0"}, dir, "it is a directory"},
		{"no sound device", map[string]string{"aplay": "echo 'aplay: main:831: audio open error: No such file' >&2; exit 1"}, wav, "no sound device on this machine"},
		{"player fails", map[string]string{"paplay": "echo 'Failed to open audio file.' >&2; exit 1"}, wav, "paplay: Failed to open audio file."},
	} {
		fakePlayers(t, tc.players)
		err := Play(context.Background(), tc.file)
		if err == nil {
			t.Errorf("%s: played", tc.name)
			continue
		}
		msg := err.Error()
		if first := msg[:min(len(msg), 79)]; !strings.HasPrefix(first, tc.reason) {
			t.Errorf("%s: the first 79 columns are %q, want them to start with %q", tc.name, first, tc.reason)
		}
		if !strings.HasSuffix(msg, "cannot play "+tc.file) {
			t.Errorf("%s: %q does not end naming the file", tc.name, msg)
		}
	}
}
