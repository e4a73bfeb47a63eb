package main

import (
	"runtime/debug"
	"testing"
)

// podspec version and --version name the release and the commit from the Go build information:
// the module version of a `go install ...@v0.2.0`, the commit of a build in a git checkout
// (.dirty with uncommitted changes), and say so when the commit is unknown.
func TestBuildNamesTheReleaseAndTheCommit(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-07T05:00:00Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "3f2c1ab09d1e55aa77bb88cc99dd00ee11ff2233"
	cases := []struct {
		name          string
		bi            *debug.BuildInfo
		version, line string
	}{
		{"no build information", nil, release, "podspec " + release + " (commit unknown: built without version control information)"},
		{"a tagged module", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, "0.2.0", "podspec 0.2.0 (commit unknown: built without version control information)"},
		{"a git checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")},
			release + "+3f2c1ab09d1e", "podspec " + release + " (commit " + rev + ", 2026-12-07T05:00:00Z)"},
		{"a modified checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")},
			release + "+3f2c1ab09d1e.dirty", "podspec " + release + " (commit " + rev + ", 2026-12-07T05:00:00Z, with uncommitted changes)"},
	}
	for _, c := range cases {
		b := buildOf(c.bi)
		if got := b.version(); got != c.version {
			t.Errorf("%s: version %q, want %q", c.name, got, c.version)
		}
		if got := b.String(); got != c.line {
			t.Errorf("%s: --version %q, want %q", c.name, got, c.line)
		}
	}
}
