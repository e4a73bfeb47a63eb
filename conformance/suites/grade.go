package suites

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/spec"
)

// Compliance levels of a run (podspec-conformance run --compliance-level): the lowest level of
// requirement whose failed spec fails the run. Under ComplianceMust, a failed spec that traces
// only to SHOULD (or MAY) requirements is recorded as not met, a warning (RFC 2119: a SHOULD may
// be ignored for valid reasons); under ComplianceShould it fails like a MUST's.
const (
	ComplianceMust   = "must"
	ComplianceShould = "should"
)

// NotMetEntry names the report entry a graded spec records when it failed below the run's
// compliance level; the coverage matrix reads it.
const NotMetEntry = "not met"

// gradedLabel marks the specs declared with gradedIt: every spec that traces only to requirements
// below MUST must carry it (TestTraceability), so that no such spec fails a run at level must.
const gradedLabel = "graded"

// levelRank orders the registry's levels; the compliance levels map onto the same ranks.
var levelRank = map[string]int{spec.May: 1, spec.Should: 2, spec.Must: 3, ComplianceShould: 2, ComplianceMust: 3}

// ValidComplianceLevel reports whether level is one a run accepts.
func ValidComplianceLevel(level string) bool {
	return level == ComplianceMust || level == ComplianceShould
}

// belowLevel reports whether a failure of a spec tracing to ids counts only as a warning at the
// compliance level, and the highest registry level among ids: true when every ID is in the
// registry and each is below level. A spec with no ID, an unknown ID or one MUST among its IDs
// is never below must.
func belowLevel(ids []string, level string) (string, bool) {
	limit, ok := levelRank[level]
	if !ok || len(ids) == 0 {
		return "", false
	}
	top := ""
	for _, id := range ids {
		r, ok := spec.Lookup(id)
		if !ok {
			return "", false
		}
		if levelRank[r.Level] > levelRank[top] {
			top = r.Level
		}
	}
	return top, levelRank[top] < limit
}

// gradedIt declares a spec whose failure is graded by the level of the requirements it traces
// to (from the registry): below the run's compliance level, its first failed assertion ends the
// spec, which passes for Ginkgo and records a NotMetEntry report entry with the failure;
// otherwise it fails like any spec. Ginkgo failures other than Gomega assertions (a panic, Fail,
// an interrupt) still fail it. InterceptGomegaFailure swaps Gomega's global fail handler while
// the body runs; that is safe because specs run one at a time and scenario goroutines never
// assert (they return errors).
func (s *suite) gradedIt(text string, ids []string, body func()) {
	It(text, req(ids...), Label(gradedLabel), Offset(1), func() {
		level, below := belowLevel(ids, s.opts.ComplianceLevel)
		if !below {
			body()
			return
		}
		if err := InterceptGomegaFailure(body); err != nil {
			AddReportEntry(NotMetEntry, fmt.Sprintf("%s requirement not met (warning at compliance level %s): %v", level, s.opts.ComplianceLevel, err))
		}
	})
}
