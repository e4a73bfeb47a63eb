package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// The kills of a `run --detach` (SUP-010): a runtime names none of its creation steps, so the
// spec spreads killedRunPoints kills evenly from the command's start to killedRunReach times
// how long it takes here (the median of killedRunTrials runs), so that every step of a
// creation lasting more than a tenth of the whole is likely hit.
const (
	killedRunTrials = 5
	killedRunPoints = 24
	killedRunReach  = 1.1
)

// killedRunAt is the moment, after its start, at which the k-th run is killed (k from 0 to
// killedRunPoints-1) when run --detach takes d.
func killedRunAt(k int, d time.Duration) time.Duration {
	return time.Duration(float64(d) * killedRunReach * float64(k) / float64(killedRunPoints-1))
}

// registerKilledRun: a run --detach killed (SIGKILL) while it creates the pod leaves, by the time
// the next verb looks, the whole pod, supervised from that verb on, or nothing of it, its name
// free for a new pod (SUP-010).
func (s *suite) registerKilledRun() {
	Describe("A run --detach killed while it creates the pod", profileLabel(spec.ProfileCore), func() {
		It("leaves, by the next verb, the whole pod, supervised from that verb on, or nothing of it, its name free", req(spec.SUP010), func(ctx SpecContext) {
			// app runs until its stop signal and then exits 0: a stop ends the pod Succeeded.
			prepare := func(short string) *fw.Pod {
				p, err := s.f.Prepare(short, fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Loop().On("SIGTERM", "exit:0s:0")))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(p.Cleanup(ctx)).To(Succeed(), "remove %s", p.Name) })
				return p
			}
			// How long run --detach of this pod takes here: only where the kills fall depends on it.
			var took []time.Duration
			for i := range killedRunTrials {
				p := prepare(fmt.Sprintf("killrun-m%d", i))
				res, err := p.Run(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.ExitCode).To(Equal(runtimev1.ExitOK), "run --detach of the spec's pod\n%s", res)
				took = append(took, res.Duration)
				Expect(p.Cleanup(ctx)).To(Succeed(), "remove %s", p.Name)
			}
			slices.Sort(took)
			d := took[len(took)/2]
			fmt.Fprintf(GinkgoWriter, "run --detach took %v (median of %v); kills from 0 to %v\n", d, took, killedRunAt(killedRunPoints-1, d))

			pods := make([]*fw.Pod, killedRunPoints)
			for k := range killedRunPoints {
				at := killedRunAt(k, d)
				p := prepare(fmt.Sprintf("killrun-%d", k))
				pods[k] = p
				started, err := p.StartRun(ctx)
				Expect(err).NotTo(HaveOccurred())
				run, err := started.KillAfter(at)
				Expect(err).NotTo(HaveOccurred())
				trial := fmt.Sprintf("run --detach --name %s killed %v after its start", p.Name, at)
				if !run.Killed {
					// The kill came after the end: the run said what it did.
					trial = fmt.Sprintf("run --detach --name %s, which ended before its kill %v after its start", p.Name, at)
					Expect(run.ExitCode).To(Equal(runtimev1.ExitOK), "%s: run --detach of the spec's pod\n%s", trial, run)
				}

				// The next verb decides: the whole pod, or nothing of it.
				st, res, err := p.ValidStatus(ctx)
				var ce *fw.CommandError
				if errors.As(err, &ce) && ce.Result.ExitCode == runtimev1.ExitNotFound {
					fmt.Fprintf(GinkgoWriter, "%s: status NotFound\n", trial)
					Expect(run.Killed).To(BeTrue(), "%s: run --detach reported the pod created, yet status does not find it\n%s\n%s", trial, run, ce.Result)
					res, err := p.Run(ctx)
					Expect(err).NotTo(HaveOccurred())
					Expect(res.ExitCode).To(Equal(runtimev1.ExitOK), "%s: status answered NotFound, so nothing of the pod may remain and its name must be free, but run --detach of the name failed\n%s\n%s", trial, ce.Result, res)
					Expect(p.WaitForProbe(ctx, "app's start in the pod run again", p.PodTimeout(), fw.ProbeReported("app", probe.TypeStart))).
						To(Succeed(), "%s: the pod run again under the freed name must run", trial)
				} else {
					Expect(err).NotTo(HaveOccurred(), "%s: the next verb must find the whole pod (a status that validates) or nothing of it (NotFound)", trial)
					fmt.Fprintf(GinkgoWriter, "%s: status %s\n", trial, st.Phase)
					Expect(st.UID).NotTo(BeEmpty(), "%s: the whole pod has its UID\n%s", trial, res)
					if !run.Killed {
						var ref fw.PodRef
						Expect(json.Unmarshal(run.Stdout, &ref)).To(Succeed(), "%s: the output of run --detach\n%s", trial, run)
						Expect(st.UID).To(Equal(ref.UID), "%s: status shows another pod than the one run created", trial)
					}
					p.Exists(st.UID)
					// Only the probe is watched from here on: status was the next verb, and the
					// pod must be supervised from it on.
					Expect(p.WaitForProbe(ctx, "app's start", p.PodTimeout(), fw.ProbeReported("app", probe.TypeStart))).
						To(Succeed(), "%s: status found the pod, so it must be whole and supervised from that verb on: its container must start", trial)
				}
				Expect(p.Stop(ctx, nil, false)).To(Succeed(), "%s: stop", trial)
				final, err := p.Wait(ctx)
				Expect(err).NotTo(HaveOccurred(), "%s: wait after the stop", trial)
				Expect(final.Phase).To(Equal(v1alpha1.PodSucceeded), "%s: app exits 0 on its stop signal, so the stop ends the pod Succeeded\n%s", trial, final)
				tl, err := p.Timeline(ctx)
				Expect(err).NotTo(HaveOccurred(), "%s: events", trial)
				Expect(tl.Consistent()).To(Succeed(), "%s: the runtime's events must match what the workload reports", trial)
				Expect(tl.All(fw.ProbeEvent("app", probe.TypeStart))).To(HaveLen(1), "%s: one pod, one instance of app (restartPolicy Never)\n\n%s", trial, tl)
			}

			// list holds every pod the spec accounted for, under the UID it knows, and no other.
			list, err := s.f.RT.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			want := map[string]string{}
			for _, p := range pods {
				want[p.Name] = p.UID
			}
			got := map[string]string{}
			var unknown []string
			for _, e := range list {
				if !strings.HasPrefix(e.Name, s.f.PodName("killrun-")) {
					continue
				}
				if _, ok := want[e.Name]; !ok {
					unknown = append(unknown, fmt.Sprintf("%s (%s, %s)", e.Name, e.UID, e.Phase))
				}
				got[e.Name] = e.UID
			}
			Expect(unknown).To(BeEmpty(), "list shows pods no run created and no status found")
			Expect(got).To(Equal(want), "list: every pod of the spec, under the UID status or run gave")
		})
	})
}
