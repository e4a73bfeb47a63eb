package main

import (
	"runtime/debug"
	"strings"
)

// release is the version podspec reports when the binary was not built from a tagged module
// (a local build, `go build ./cmd/podspec`): the reference runtime's own version.
const release = "0.1.0"

// buildInfo is what a binary knows of the source it was built from, read from the Go build
// information (runtime/debug): the module version (v0.1.0 when installed with
// `go install podspec.dev/podspec/cmd/podspec@v0.1.0`) and, when built in a git checkout, the
// commit and whether the tree had uncommitted changes.
type buildInfo struct {
	release  string // v0.1.0, or the release constant for a local build
	commit   string // the full commit hash, "" when unknown
	time     string // the commit's time (RFC 3339), "" when unknown
	modified bool   // built from a tree with uncommitted changes
}

// readBuild reads the binary's build information.
func readBuild() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return buildOf(bi)
}

// buildOf reads bi (nil when the binary has none).
func buildOf(bi *debug.BuildInfo) buildInfo {
	b := buildInfo{release: release}
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.release = strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// version is the release with the commit as semantic-version build metadata: 0.1.0+3f2c1ab
// (0.1.0+3f2c1ab.dirty from a modified tree), or the release alone when the commit is unknown.
func (b buildInfo) version() string {
	if b.commit == "" {
		return b.release
	}
	v := b.release + "+" + short(b.commit)
	if b.modified {
		v += ".dirty"
	}
	return v
}

// String is the line `podspec --version` prints.
func (b buildInfo) String() string {
	s := "podspec " + b.release
	switch {
	case b.commit == "":
		s += " (commit unknown: built without version control information)"
	default:
		s += " (commit " + b.commit
		if b.time != "" {
			s += ", " + b.time
		}
		if b.modified {
			s += ", with uncommitted changes"
		}
		s += ")"
	}
	return s
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
