package suites

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// fullDiskSize is the tmpfs the full-disk specs give the runtime as its root: room for a pod's
// state, logs and instances, little enough to fill in a moment.
const fullDiskSize = 64 << 20

// fullDiskChurns bounds the restarts of churn the full-disk scenario waits for before the loss:
// each exit and restart is a state write and events the runtime cannot record at once, so its
// state grows while the disk is full.
const fullDiskChurns = 8

// fullDiskRun is what the full-disk scenario saw, for its specs.
type fullDiskRun struct {
	pod  *fw.Pod
	disk *fw.SmallDisk
	// filled is what the filler took; churned is the highest churn instance that reported its
	// start while the disk was full (ground truth from inside: the workloads report on a socket
	// and in the pod's probe directory, both outside the disk).
	filled  int64
	churned int
	// adopted is the first status once there is room again after the loss (the verb that makes
	// the next supervisor adopt the state on disk); its error is the SUP-002 spec's to judge.
	adopted    *fw.PodStatusView
	adoptedErr error
	// crashFullErr is the IO error of a crash refused on the full disk (then tried again once
	// there was room).
	crashFullErr error
	// final is the pod's status after the stop; tl its events and the workloads' reports.
	final    *fw.PodStatusView
	finalErr error
	tl       *fw.Timeline
	tlErr    error
}

// registerFullDisk: the runtime's state root is a small tmpfs the harness fills to the last
// byte while a container exits and restarts, so that every state and event write fails; then
// the supervisor is lost (crash), the harness frees the disk, and the next verb adopts the state
// the full disk left. A write in place leaves a truncated state there (SUP-002); the events the
// lost supervisor could not write are written later in their place or not at all (SUP-009).
func (s *suite) registerFullDisk() {
	var r fullDiskRun
	Describe("A full state disk, then the loss of the supervisor", Ordered, ContinueOnFailure, profileLabel(runtimev1.ProfileRecovery), func() {
		BeforeAll(func(ctx SpecContext) {
			s.requireFullDisk()
			iso, disk, err := s.f.OnSmallDisk("fulldisk", fullDiskSize)
			Expect(err).NotTo(HaveOccurred())
			r.disk = disk
			// Clean-ups run last in, first out: the unmount after the pod's removal, whatever
			// that removal did.
			DeferCleanup(func() { Expect(disk.Unmount()).To(Succeed()) })
			DeferCleanup(func(ctx SpecContext) {
				// Free the disk first, so that the clean-up's own writes have room.
				freeErr := disk.Free()
				Expect(iso.CleanupPods(ctx)).To(Succeed())
				Expect(freeErr).NotTo(HaveOccurred())
			})
			v, _, err := iso.RT.Version(ctx)
			Expect(err).NotTo(HaveOccurred(), "version with --root %s", disk.Dir)
			s.requireStateOnDisk(v, disk)
			r.pod, err = iso.Start(ctx, "fulldisk", fastBackoff(fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyOnFailure)).
				Main("steady", fw.Loop()).
				Main("churn", fw.ExitAfter(1, 0).WaitFor("go").Counted()))
			Expect(err).NotTo(HaveOccurred())
			fullDiskDrive(ctx, &r, s.f.Tolerances().Reaction.Value)
		})
		It("leaves the old state or the new on a full disk, never a part: after the loss the next supervisor adopts it, status validates and the pod goes on as its manifest says", req(spec.SUP002), func() {
			Expect(r.adoptedErr).NotTo(HaveOccurred(), "the first status once there is room again after the supervisor was lost on a full disk (filled %d bytes, churn started %d instances meanwhile)", r.filled, r.churned)
			Expect(r.finalErr).NotTo(HaveOccurred(), "the pod's end after the stop")
			Expect(r.tlErr).NotTo(HaveOccurred(), "the pod's events")
			Expect(r.final.Phase).To(BeElementOf(v1alpha1.PodSucceeded, v1alpha1.PodFailed), "%s", r.final)
			Expect(r.final.Reason).To(Equal(v1alpha1.ReasonStopped), "the pod ended by the stop request\n%s", r.final)
			// Adopted after the loss, churn went on restarting as its policy says: it runs
			// again (an instance after those of the full disk) and ends with the stop.
			reps := instanceReports(r.tl, "churn")
			Expect(len(reps)).To(BeNumerically(">", r.churned), "churn started again after the loss and the adoption\n%s", r.tl)
			for _, c := range []string{"steady", "churn"} {
				Expect(r.final.Terminated(c)).NotTo(BeNil(), "%s terminated\n%s", c, r.final)
			}
		})
		It("continues the event sequence after a full disk and the supervisor's loss: seq 1, 2, 3 … without a gap or a repeat, no event recorded twice, PodFinished once and last", req(spec.SUP009), func() {
			Expect(r.tlErr).NotTo(HaveOccurred(), "the pod's events")
			Expect(r.tl).NotTo(BeNil(), "the scenario read the pod's events")
			Expect(eventsRecordedOnce(r.tl.RuntimeEvents())).To(Succeed(), "filled %d bytes, churn started %d instances while the disk was full\n%s", r.filled, r.churned, r.tl)
		})
	})
}

// requireFullDisk skips the full-disk specs when the harness cannot make a full disk under the
// runtime's state: it must mount a tmpfs (root), and the supervisor's loss needs `crash` (the
// optional recovery profile).
func (s *suite) requireFullDisk() {
	requireRoot("mount the small file system it fills under the runtime's state", spec.SUP002+" and "+spec.SUP009+" are")
	if !s.f.Version.Has(runtimev1.ProfileRecovery) {
		Skip(fmt.Sprintf("not checkable: the runtime does not declare the optional profile %q, whose verb crash loses the supervisor on the full disk; %s and %s are untested here",
			runtimev1.ProfileRecovery, spec.SUP002, spec.SUP009))
	}
}

// requireStateOnDisk skips the full-disk specs unless every state directory the runtime names
// under the small disk's root lies on that disk: only then does filling it fail the runtime's
// state and event writes.
func (s *suite) requireStateOnDisk(v *runtimev1.Version, disk *fw.SmallDisk) {
	if !v.HasStateDirectories() {
		Skip(fmt.Sprintf("not checkable: the runtime reports contract %s, and only contract 1.%d and later name the state directories (version's stateDirectories), so the harness cannot know that a full disk holds its state; %s and %s are untested for it",
			v.ContractVersion, runtimev1.StateDirectoriesSince, spec.SUP002, spec.SUP009))
	}
	Expect(v.StateDirectories).NotTo(BeEmpty(), "a runtime of contract 1.%d names its state directories", runtimev1.StateDirectoriesSince)
	var outside []string
	for _, dir := range v.StateDirectories {
		if ok, why := disk.Holds(dir); !ok {
			outside = append(outside, why)
		}
	}
	if len(outside) > 0 {
		Skip(fmt.Sprintf("not checkable: with --root %s the runtime keeps state outside that root, which the harness cannot fill: %s; %s and %s are untested for it",
			disk.Dir, strings.Join(outside, "; "), spec.SUP002, spec.SUP009))
	}
}

// fullDiskDrive fills the disk once both containers run and lets churn exit and restart (the
// marker go makes every instance exit 1 at once) while the disk is full, loses the supervisor,
// frees the disk, adopts with status, lets churn run (go removed) and stops the pod. What the
// specs judge is kept in r, not failed here.
func fullDiskDrive(ctx context.Context, r *fullDiskRun, reaction time.Duration) {
	p := r.pod
	_, err := p.WaitFor(ctx, "both containers started", p.PodTimeout(), fw.AllStarted("steady", "churn"))
	Expect(err).NotTo(HaveOccurred())
	r.filled, err = r.disk.Fill()
	Expect(err).NotTo(HaveOccurred())
	Expect(p.Touch("go")).To(Succeed())
	// Every restart on the full disk is waited for, up to fullDiskQuiet after the previous one:
	// a runtime may be unable to create an instance while its disk is full (the reference's
	// OCI state is on it too), and then it goes on failing to start churn, and to record that,
	// until the loss. The first exit is always waited for: it is the workload's own report.
	quiet := 2*reaction + time.Second
	for r.churned <= fullDiskChurns {
		next := r.churned + 1
		err := p.WaitForProbe(ctx, fmt.Sprintf("churn's instance %d to start on the full disk", next), quiet, func(evs []probe.Event) bool {
			return churnStarted(evs) >= next
		})
		r.churned = churnStarted(p.Probe.Events())
		if err != nil {
			Expect(ctx.Err()).NotTo(HaveOccurred())
			break
		}
	}
	// The contract lets a verb fail with IO while the state directory cannot be written, so a
	// crash refused on the full disk is tried again once there is room, at once: what is on
	// disk then is still what the full disk left (a runtime that cannot read it fails SUP-002).
	if _, err := p.Crash(ctx); err != nil {
		var ce *fw.CommandError
		Expect(errors.As(err, &ce) && ce.Result.ExitCode == runtimev1.ExitIO).To(BeTrue(), "crash on the full disk: exit 0, or IO (3) as the contract allows while the state cannot be written: %v", err)
		r.crashFullErr = err
	}
	Expect(p.Remove("go")).To(Succeed())
	Expect(r.disk.Free()).To(Succeed())
	// From here on the events are read at the end whatever happened, for the SUP-009 spec.
	defer func() { r.tl, r.tlErr = p.Timeline(ctx) }()
	if r.crashFullErr != nil {
		if _, err := p.Crash(ctx); err != nil {
			r.adoptedErr = fmt.Errorf("crash once the disk had room again (on the full disk it had failed: %v): %w", r.crashFullErr, err)
			return
		}
	}
	r.adopted, _, r.adoptedErr = p.ValidStatus(ctx)
	if r.adoptedErr != nil {
		r.adoptedErr = fmt.Errorf("the first verb after the loss, once the disk had room again: %w", r.adoptedErr)
		return
	}
	_, err = p.WaitFor(ctx, "churn running again after the adoption", p.PodTimeout(), func(tl *fw.Timeline) bool {
		if churnStarted(p.Probe.Events()) <= r.churned {
			return false
		}
		// The runtime recorded that start: churn's last start or exit is a start.
		evs := tl.All(func(e fw.Entry) bool {
			return e.Runtime != nil && e.Runtime.Container == "churn" &&
				(e.Runtime.Type == runtimev1.EventContainerStarted || e.Runtime.Type == runtimev1.EventContainerExited)
		})
		return len(evs) > 0 && evs[len(evs)-1].Runtime.Type == runtimev1.EventContainerStarted
	})
	if err != nil {
		r.adoptedErr = err
		return
	}
	if err := p.Stop(ctx, nil, false); err != nil {
		r.finalErr = err
	} else {
		r.final, r.finalErr = p.Wait(ctx)
	}
}

// churnStarted is the highest instance of churn that reported its start.
func churnStarted(evs []probe.Event) int {
	n := 0
	for _, ev := range evs {
		if ev.Container == "churn" && ev.Role == probe.RoleWorkload && ev.Type == probe.TypeStart && !ev.Fallback {
			n = max(n, ev.Instance)
		}
	}
	return n
}

// eventsRecordedOnce checks a finished pod's events for what SUP-009 forbids: seq 1, 2, 3 …
// (eventsWellFormed: no gap, no repeat, PodFinished last), the pod's one-time events at most
// once (PodFinished exactly once), and no instance's start or exit recorded twice.
func eventsRecordedOnce(evs []runtimev1.Event) error {
	if err := eventsWellFormed(evs, true); err != nil {
		return err
	}
	once := map[runtimev1.EventType]bool{runtimev1.EventPodCreated: true, runtimev1.EventPodStarted: true,
		runtimev1.EventPodTerminating: true, runtimev1.EventPodFinished: true}
	perInstance := map[runtimev1.EventType]bool{runtimev1.EventContainerCreated: true,
		runtimev1.EventContainerStarted: true, runtimev1.EventContainerExited: true}
	seen := map[string]int64{}
	for _, ev := range evs {
		var key string
		switch {
		case once[ev.Type]:
			key = string(ev.Type)
		case perInstance[ev.Type] && ev.ContainerID != "":
			key = fmt.Sprintf("%s of %s instance %s", ev.Type, ev.Container, ev.ContainerID)
		default:
			continue
		}
		if first, dup := seen[key]; dup {
			return fmt.Errorf("%s recorded twice: seq %d and seq %d", key, first, ev.Seq)
		}
		seen[key] = ev.Seq
	}
	return nil
}
