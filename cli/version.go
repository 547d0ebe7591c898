package cli

import (
	"runtime/debug"
	"strings"
)

// chorusVersion is the version `chorus --version` prints and the log file
// records: the release version when one was stamped in, else the module
// version from the build info (a tag for `go install …@v1.2.3`, a
// pseudo-version for a build from a checkout) with the commit, its time and
// whether the tree had changes. A bug report then names the code exactly.
func chorusVersion(stamped string) string {
	info, _ := debug.ReadBuildInfo()
	return versionFrom(stamped, info)
}

// versionFrom is chorusVersion with its inputs given, for tests.
func versionFrom(stamped string, info *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if info == nil {
		return "unknown (built without module support)"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var extra []string
	// A pseudo-version already carries the commit; a tag or "devel" does not.
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		extra = append(extra, rev[:min(12, len(rev))])
	}
	if at != "" && !strings.Contains(v, "-") {
		extra = append(extra, at)
	}
	if modified && !strings.HasSuffix(v, "+dirty") {
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return v
}
