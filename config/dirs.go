package config

import (
	"os"
	"path/filepath"
	"strings"
)

// Where Chorus keeps its files: the XDG directories, each with a
// fallback so a missing home directory never stops a run.

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

// ConfigDir is $XDG_CONFIG_HOME/chorus (or the platform equivalent).
func ConfigDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "chorus")
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "chorus-config")
	}
	return filepath.Join(d, "chorus")
}

// DataDir is $XDG_DATA_HOME/chorus, defaulting to ~/.local/share/chorus.
func DataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "chorus")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "chorus")
	}
	return filepath.Join(os.TempDir(), "chorus-data")
}

// CacheDir is $XDG_CACHE_HOME/chorus (or the platform equivalent).
func CacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "chorus")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "chorus-cache")
	}
	return filepath.Join(d, "chorus")
}

// StateDir is $XDG_STATE_HOME/chorus, defaulting to ~/.local/state/chorus:
// what Chorus keeps about its own runs (the log file), as opposed to the
// user's data.
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "chorus")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "chorus")
	}
	return filepath.Join(os.TempDir(), "chorus-state")
}
