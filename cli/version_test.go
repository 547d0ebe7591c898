package cli

import (
	"runtime/debug"
	"testing"
)

func vcsSettings(kv ...string) []debug.BuildSetting {
	var out []debug.BuildSetting
	for i := 0; i < len(kv); i += 2 {
		out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
	}
	return out
}

// TestVersionFromBuildInfo: a build nothing was stamped into says what the
// toolchain recorded, and says so when that holds no commit.
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		// go install …@v1.2.3 builds from the module zip: no VCS to ask.
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3 (no commit recorded)"},
		// A checkout built with -buildvcs=false.
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel (no commit recorded)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: vcsSettings("vcs.revision", "329117fa0b1c2d3e", "vcs.time", "2026-11-22T10:00:00Z", "vcs.modified", "true")},
			"devel (329117fa0b1c, 2026-11-22T10:00:00Z, modified)"},
		// A pseudo-version carries the commit and its time already.
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261122100000-329117fa0b1c+dirty"},
			Settings: vcsSettings("vcs.revision", "329117fa0b1c2d3e", "vcs.time", "2026-11-22T10:00:00Z", "vcs.modified", "true")},
			"v0.0.0-20261122100000-329117fa0b1c+dirty"},
		// go install …@main: a pseudo-version without VCS settings.
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261122100000-329117fa0b1c"}},
			"v0.0.0-20261122100000-329117fa0b1c"},
		{nil, "unknown (built without module support)"},
	} {
		if got := versionFrom("", tc.info); got != tc.want {
			t.Errorf("versionFrom(\"\", %+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

// TestStampedVersionNamesTheCommit: what a release build stamps in with
// -ldflags -X (GoReleaser, go tool task build) prints with its commit — a
// tagged build never says a bare v1.2.3 — and what was not stamped comes
// from the build info.
func TestStampedVersionNamesTheCommit(t *testing.T) {
	t.Parallel()
	const sha = "329117fa0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
	devel := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	vcs := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
		Settings: vcsSettings("vcs.revision", "aaaabbbbccccdddd", "vcs.time", "2026-11-20T09:00:00Z", "vcs.modified", "false")}
	for _, tc := range []struct {
		version, commit, date string
		info                  *debug.BuildInfo
		want                  string
	}{
		// GoReleaser on a tag.
		{"v1.2.3", sha, "2026-11-22T10:00:00Z", devel, "v1.2.3 (329117fa0b1c, 2026-11-22T10:00:00Z)"},
		// GoReleaser's snapshot: the short commit in the version is not enough.
		{"v0.0.0-SNAPSHOT-329117f", sha, "2026-11-22T10:00:00Z", devel,
			"v0.0.0-SNAPSHOT-329117f (329117fa0b1c, 2026-11-22T10:00:00Z)"},
		// go tool task build on an untagged, changed checkout.
		{"devel-dirty", sha, "2026-11-22T10:00:00Z", nil, "devel-dirty (329117fa0b1c, 2026-11-22T10:00:00Z)"},
		// Only a version stamped: the commit comes from the build info…
		{"v1.2.3", "", "", vcs, "v1.2.3 (aaaabbbbcccc, 2026-11-20T09:00:00Z)"},
		// …or the version says it has none.
		{"v1.2.3", "", "", devel, "v1.2.3 (no commit recorded)"},
		// Only a commit stamped: the version is the toolchain's.
		{"", sha, "", devel, "devel (329117fa0b1c)"},
		// Nothing stamped: "" lets chorusVersion ask the build info.
		{"", "", "", vcs, ""},
	} {
		if got := stampedVersion(tc.version, tc.commit, tc.date, tc.info); got != tc.want {
			t.Errorf("stampedVersion(%q, %q, %q) = %q, want %q", tc.version, tc.commit, tc.date, got, tc.want)
		}
	}
}
