package cli

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// chorusVersion is the version `chorus --version` prints and the log file
// records: what main stamped in (StampedVersion) when it stamped anything,
// else the module version from the build info (a tag for
// `go install …@v1.2.3`, a pseudo-version for a build from a checkout)
// with the commit, its time and whether the tree had changes — or, when
// the toolchain recorded no commit, a version that says so. A bug report
// then names the code exactly, or says that it cannot.
func chorusVersion(stamped string) string {
	info, _ := debug.ReadBuildInfo()
	return versionFrom(stamped, info)
}

// StampedVersion is the version of a build that was stamped with
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…" (GoReleaser
// and `go tool task build` do): "v1.2.3 (329117fa0b1c, 2026-11-22T10:00:00Z)".
// A tag alone is not enough to find the code a bug report is about — a
// release rebuilt from a moved tag, a snapshot — so the commit is always
// named; what was not stamped comes from the build info. It returns "" when
// nothing was stamped, and main hands that on as Options.Version.
func StampedVersion(version, commit, date string) string {
	info, _ := debug.ReadBuildInfo()
	return stampedVersion(version, commit, date, info)
}

// stampedVersion is StampedVersion with the build info given, for tests.
func stampedVersion(version, commit, date string, info *debug.BuildInfo) string {
	if version == "" && commit == "" {
		return ""
	}
	b := buildOf(info)
	if version != "" {
		b.version = version
	}
	if commit != "" {
		b.revision, b.time, b.modified = commit, date, false
	}
	return b.String()
}

// versionFrom is chorusVersion with its inputs given, for tests.
func versionFrom(stamped string, info *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if info == nil {
		return "unknown (built without module support)"
	}
	return buildOf(info).String()
}

// build is what a binary knows about the code it was built from.
type build struct {
	version, revision, time string
	modified                bool
}

// buildOf reads the module version and the VCS settings of the build info.
func buildOf(info *debug.BuildInfo) build {
	b := build{version: "devel"}
	if info == nil {
		return b
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// pseudoVersion finds the commit time and hash of a Go pseudo-version
// (v0.0.0-20261122100000-329117fa0b1c).
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}`)

// String is the version with what it does not say itself in parentheses.
func (b build) String() string {
	short := b.revision[:min(12, len(b.revision))]
	pseudo := pseudoVersion.MatchString(b.version)
	var extra []string
	switch {
	case short == "" && !pseudo:
		extra = append(extra, "no commit recorded")
	case short != "" && !strings.Contains(b.version, short):
		extra = append(extra, short)
	}
	if b.time != "" && !pseudo {
		extra = append(extra, b.time)
	}
	if b.modified && !strings.HasSuffix(b.version, "+dirty") {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return b.version
	}
	return b.version + " (" + strings.Join(extra, ", ") + ")"
}
