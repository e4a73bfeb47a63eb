package v1

import "strings"

// Profile is a capability profile a runtime declares in `version` (section 6). The suite runs
// every test of every declared profile and fails a declared profile that does not work; it
// skips only the tests of optional profiles the runtime does not declare.
type Profile string

// Capability profiles (section 6).
const (
	// ProfileCore is required: version, run, status, wait, events, stop, logs, list, rm and the
	// pod lifecycle.
	ProfileCore Profile = "core"
	// ProfileDefer covers defer containers.
	ProfileDefer Profile = "defer"
	// ProfileNotifier covers notify, notification … and notifier delivery.
	ProfileNotifier Profile = "notifier"
	// ProfileUpdate covers update and in-place update semantics.
	ProfileUpdate Profile = "update"
	// ProfileGC covers gc, retention and shared volumes' reclaim.
	ProfileGC Profile = "gc"
	// ProfileRecovery (contract 1.1) adds the verb crash, so a harness can test supervisor loss
	// and adoption; it adds no requirement of its own.
	ProfileRecovery Profile = "recovery"
)

// Profiles lists every profile of the contract, in the order of section 6's table.
var Profiles = []Profile{ProfileCore, ProfileDefer, ProfileNotifier, ProfileUpdate, ProfileGC, ProfileRecovery}

// Known reports whether p is a profile of this contract version.
func (p Profile) Known() bool {
	for _, q := range Profiles {
		if p == q {
			return true
		}
	}
	return false
}

// Version is what `version` prints (section 4.1). ContractVersion, Runtime.Name,
// Runtime.Version and Profiles (holding ProfileCore) are required; OCIRuntime is informational.
// StateDirectories (contract 1.2) is required of a runtime reporting 1.2 or later and absent
// from older ones (HasStateDirectories).
type Version struct {
	ContractVersion string          `json:"contractVersion"`
	Runtime         RuntimeInfo     `json:"runtime"`
	OCIRuntime      *OCIRuntimeInfo `json:"ociRuntime,omitempty"`
	Profiles        []Profile       `json:"profiles"`
	// StateDirectories are the absolute paths of the directories where the runtime keeps pod
	// state (contract 1.2): every file it writes for a pod is below one of them, and no user but
	// the runtime's owner may read them (SEC-007).
	StateDirectories []string `json:"stateDirectories,omitempty"`
}

// StateDirectoriesSince is the contract minor version that added Version.StateDirectories.
const StateDirectoriesSince = 2

// ContractMinor returns the minor number of a contract version 1.N, and false for anything else.
func ContractMinor(v string) (int, bool) {
	rest, ok := strings.CutPrefix(v, "1.")
	if !ok || rest == "" {
		return 0, false
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
		if n > 1<<20 {
			return 0, false
		}
	}
	return n, true
}

// HasStateDirectories reports whether the version's contract has the field stateDirectories
// (1.2 or later): a runtime reporting it must name its state directories there.
func (v *Version) HasStateDirectories() bool {
	n, ok := ContractMinor(v.ContractVersion)
	return ok && n >= StateDirectoriesSince
}

// RuntimeInfo names a runtime and its version.
type RuntimeInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// OCIRuntimeInfo describes the OCI runtime a runtime's pods run on; every field may be empty.
type OCIRuntimeInfo struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	Path    string `json:"path,omitempty"`
}

// Has reports whether the version declares profile p.
func (v *Version) Has(p Profile) bool {
	for _, q := range v.Profiles {
		if q == p {
			return true
		}
	}
	return false
}
