package suites

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
)

// ms is a duration in milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// i64 returns a pointer to n.
func i64(n int64) *int64 { return &n }

// endsOrIsStopped is the Drive of a scenario whose pod a correct runtime ends on its own: it
// waits, bounded (a quarter of the pod timeout), for PodFinished and stops a pod that has not
// ended by then, so that a runtime leaving a container waiting fails the scenario's spec, not
// its BeforeAll.
func endsOrIsStopped(ctx context.Context, p *fw.Pod) error {
	if _, err := p.WaitFor(ctx, "the pod's end", p.PodTimeout()/4, func(tl *fw.Timeline) bool {
		_, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodFinished, ""))
		return ok
	}); err == nil || ctx.Err() != nil {
		return err
	}
	return p.Stop(ctx, nil, false)
}

// requireRoot skips the spec unless the harness runs as root: without root it cannot do what
// cannot says, and untested goes untested (the subject and its verb: "MAIN-004 is").
func requireRoot(cannot, untested string) {
	GinkgoHelper()
	if uid := os.Geteuid(); uid != 0 {
		Skip(fmt.Sprintf("not checkable: the harness runs as uid %d and cannot %s (run it as root); %s untested here", uid, cannot, untested))
	}
}

// runToEnd starts pod short, waits for its end and returns its timeline; the pod is removed
// after the spec.
func (s *suite) runToEnd(ctx SpecContext, short string, b *fw.PodBuilder) *fw.Timeline {
	GinkgoHelper()
	p, err := s.f.Start(ctx, short, b)
	DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed()) })
	Expect(err).NotTo(HaveOccurred())
	_, err = p.Wait(ctx)
	Expect(err).NotTo(HaveOccurred())
	tl, err := p.Timeline(ctx)
	Expect(err).NotTo(HaveOccurred())
	return tl
}

// fastBackoff makes restarts quick (0.2 s, no growth) so restart tests take little time.
func fastBackoff(b *fw.PodBuilder) *fw.PodBuilder { return b.Backoff(0.2, 1, 0.2, 600) }

// uuidPattern is an RFC 9562 UUID in its canonical text form (version 1-8, variant 10xx).
var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// signal is the API's signal value for a name.
func signal(name string) *v1alpha1.Signal {
	n, _ := v1alpha1.SignalNumber(name)
	return &v1alpha1.Signal{Name: name, Number: n}
}

// probeSignal matches the workload's report that it received sig.
func probeSignal(container, sig string) fw.Matcher {
	return func(e fw.Entry) bool {
		return fw.ProbeEvent(container, probe.TypeSignal)(e) && e.Probe.Signal == sig
	}
}

// runtimeSignal matches the runtime's SignalSent of sig to a container.
func runtimeSignal(container, sig string) fw.Matcher {
	return func(e fw.Entry) bool {
		return fw.RuntimeEv(runtimev1.EventSignalSent, container)(e) && e.Runtime.Signal != nil && e.Runtime.Signal.Name == sig
	}
}

// instanceEnd matches the end of a container's last instance as the timeline knows it.
func lastEnd(tl *fw.Timeline, container string) (time.Time, error) {
	inst := tl.Instances(container)
	if len(inst) == 0 || inst[len(inst)-1].End.IsZero() {
		return time.Time{}, fmt.Errorf("%s has no ended instance\n\n%s", container, tl)
	}
	return inst[len(inst)-1].End, nil
}

// endedBefore holds when the last instance of container ended before the first entry matching m.
func endedBefore(tl *fw.Timeline, container, what string, m fw.Matcher) error {
	end, err := lastEnd(tl, container)
	if err != nil {
		return err
	}
	e, ok := tl.First(m)
	if !ok {
		return fmt.Errorf("%s is not on the timeline\n\n%s", what, tl)
	}
	if !end.Before(e.Time) {
		return fmt.Errorf("%s had not exited before %s\n\n%s", container, what, tl)
	}
	return nil
}

// allEndedBeforeFinish holds when every workload report and every ContainerExited precedes
// PodFinished (HB-016).
func allEndedBeforeFinish(tl *fw.Timeline) error {
	fin, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodFinished, ""))
	if !ok {
		return fmt.Errorf("PodFinished is not on the timeline\n\n%s", tl)
	}
	for _, e := range tl.Entries {
		if e.Time.IsZero() {
			continue
		}
		late := (e.Runtime != nil && e.Runtime.Type == runtimev1.EventContainerExited) || (e.Probe != nil)
		if late && e.Time.After(fin.Time) {
			return fmt.Errorf("an event of the pod's processes came after PodFinished\n\n%s", tl)
		}
	}
	if len(tl.All(fw.RuntimeEv(runtimev1.EventContainerStarted, ""))) != len(tl.All(fw.RuntimeEv(runtimev1.EventContainerExited, ""))) {
		return fmt.Errorf("not every started instance has a ContainerExited before PodFinished\n\n%s", tl)
	}
	return nil
}

// countMatches counts the entries a matcher selects.
func countMatches(tl *fw.Timeline, m fw.Matcher) int { return len(tl.All(m)) }

// rowEntries makes one table entry per row that keep accepts (nil: every row), named by text.
func rowEntries[R any](rows []R, text func(R) string, keep func(R) bool) []TableEntry {
	var out []TableEntry
	for _, r := range rows {
		if keep == nil || keep(r) {
			out = append(out, Entry(text(r), r))
		}
	}
	return out
}
