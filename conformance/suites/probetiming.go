package suites

import (
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Probe timing: a readiness probe with initialDelaySeconds 2 and periodSeconds basePeriod times
// the run's slow factor (rounded up to whole seconds) whose command takes checkTakes. An attempt
// is seen when its report arrives: its start plus exec start-up plus checkTakes. A runtime that
// waited periodSeconds after the previous attempt ended, instead of starting attempts
// periodSeconds apart, drifts by at least checkTakes each period, which is more than the mean gap
// may be off (ExecJitter / (measuredAttempts-1) + EarlyMargin). The measurement holds only while
// every attempt (exec start-up, checkTakes, exec tear-down) fits in the period: attempts do not
// overlap, so one that outlasts the period rightly delays the next (HOOK-007), which the harness,
// seeing only reports, cannot tell from a late start. On 2 CPUs at a load average of 60 an attempt
// of this probe took 0.9-4.2 s (a 4 s period was overrun), so the period grows with the slow
// factor a loaded machine declares, as ExecJitter does.
const (
	basePeriod        = 4 * time.Second
	probeInitialDelay = 2 * time.Second
	checkTakes        = 600 * time.Millisecond
	// measuredAttempts are the attempts whose spacing is measured (6 gaps).
	measuredAttempts = 7
)

// probePeriodFor is the scenario's periodSeconds at a slow factor: basePeriod times the factor,
// rounded up to whole seconds.
func probePeriodFor(slowFactor float64) time.Duration {
	return time.Duration(math.Ceil(basePeriod.Seconds()*max(slowFactor, 1))) * time.Second
}

func (s *suite) registerProbeTiming() {
	// The tolerances are known before BeforeSuite builds the framework: the tree is built first.
	probePeriod := probePeriodFor(s.opts.Framework.Tolerances.SlowFactor)
	attempt := func(e fw.Entry) bool {
		return fw.ProbeEvent("r", probe.TypeCheck)(e) && e.Probe.Handler == "readiness"
	}
	sc := &fw.Scenario{
		Short: "probe-period",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("r", fw.Loop(), fw.Readiness(fw.CheckSlow(checkTakes, 0),
				fw.ProbeTiming{PeriodSeconds: int32(probePeriod / time.Second), InitialDelaySeconds: int32(probeInitialDelay / time.Second)})),
		Drive: fw.StopWhen("enough readiness attempts", func(tl *fw.Timeline) bool {
			return countMatches(tl, attempt) >= measuredAttempts
		}, nil, false),
	}
	s.ordered("Probe attempt timing", sc, func(get func() *fw.Outcome) {
		It("starts the first attempt initialDelaySeconds after the probe became active, then one every periodSeconds", req(spec.HOOK007Period, spec.HOOK007InitialDelay), func() {
			tl, tol := get().Timeline, s.f.Tolerances()
			started := fw.RuntimeEv(runtimev1.EventContainerStarted, "r")
			// With no postStart and no startup probe, the readiness probe is active once r started.
			Expect(tl.AtLeast("r's start to its first readiness attempt", started, attempt, probeInitialDelay+checkTakes, tol.EarlyMargin)).To(Succeed())
			Expect(tl.WithinBudget("r's start to its first readiness attempt", started, attempt, probeInitialDelay+checkTakes+tol.ExecJitter.Value, tol.Reaction)).To(Succeed())
			Expect(tl.Periodic("r's readiness attempts", attempt, measuredAttempts, probePeriod, tol.ExecJitter, tol.EarlyMargin)).To(Succeed())
		})
	})
}
