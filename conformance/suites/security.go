package suites

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// climbTo is a relative path that climbs from any directory to the root and then down to the
// absolute path dir: what a runtime that joins an unchecked name into a host path would reach.
func climbTo(dir string) string {
	return strings.Repeat("../", 64) + strings.TrimPrefix(filepath.Clean(dir), "/")
}

// emptyDir fails the spec unless dir exists and holds nothing.
func expectEmptyDir(dir, why string) {
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred(), "read %s", dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	Expect(names).To(BeEmpty(), "%s: %s must stay empty", why, dir)
}

// hostileName is a pod or container name a runtime must refuse before it reaches a host path.
type hostileName struct {
	what string
	// pod is given with --name ("" keeps the manifest's metadata.name); meta replaces
	// metadata.name; container replaces the first container's name.
	pod, meta, container string
}

func (s *suite) registerSecurity() {
	Describe("Hostile names", profileLabel("core"), func() {
		It("refuses pod and container names that are not DNS labels before using them in a host path", req(spec.SEC005), func(ctx SpecContext) {
			work, run := s.f.Config().WorkDir, s.f.RunID()
			canary := filepath.Join(work, "sec005-canary")
			Expect(os.MkdirAll(canary, 0o777)).To(Succeed())
			probeDir := filepath.Join(work, "sec005-probe")
			Expect(os.MkdirAll(probeDir, 0o777)).To(Succeed())
			DeferCleanup(func() { _ = os.RemoveAll(canary); _ = os.RemoveAll(probeDir) })
			valid := run + "-sec005"
			names := []hostileName{
				{what: "a --name climbing out with ..", pod: climbTo(canary) + "/pod-" + run},
				{what: "a --name with a slash", pod: run + "-sec005/x"},
				{what: "a --name of ..", pod: ".."},
				{what: "a --name longer than a file name may be", pod: run + "-" + strings.Repeat("a", 300)},
				{what: "a metadata.name climbing out with ..", meta: climbTo(canary) + "/meta-" + run},
				{what: "a container name climbing out with ..", pod: valid, container: climbTo(canary) + "/ctr-" + run},
				{what: "a container name with a slash", pod: valid, container: "a/b"},
				{what: "a container name longer than a file name may be", pod: valid, container: strings.Repeat("c", 300)},
			}
			tried := map[string]bool{}
			DeferCleanup(func(ctx SpecContext) {
				for name := range tried { // a runtime that accepted one must not leave it behind
					_, _ = s.f.RT.Remove(ctx, name, true)
				}
			})
			for i, n := range names {
				b := fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0))
				pod := b.Build(fw.BuildEnv{Name: valid, Image: s.f.Image, ProbeDir: probeDir, RunID: run})
				if n.meta != "" {
					pod.Metadata.Name = n.meta
				}
				if n.container != "" {
					pod.Spec.Containers[0].Name = n.container
				}
				data, err := json.Marshal(pod)
				Expect(err).NotTo(HaveOccurred())
				manifest := filepath.Join(work, "m", "sec005-"+string(rune('a'+i))+".json")
				Expect(os.MkdirAll(filepath.Dir(manifest), 0o755)).To(Succeed())
				Expect(os.WriteFile(manifest, data, 0o644)).To(Succeed())
				args := []string{"run", "--detach"}
				name := pod.Metadata.Name
				if n.pod != "" {
					args, name = append(args, "--name", n.pod), n.pod
				}
				tried[name] = true
				res, err := s.f.RT.Exec(ctx, append(args, manifest)...)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.ExitCode).To(Equal(runtimev1.ExitFailed), "%s must be refused\n%s", n.what, res)
				Expect(res.Error).NotTo(BeNil(), "%s: a JSON error report\n%s", n.what, res)
				Expect(res.Error.Code).To(Equal(runtimev1.CodeInvalidManifest), "%s: the name is refused as invalid, not tried\n%s", n.what, res)
				Expect(res.Error.Findings).NotTo(BeEmpty(), "%s: the findings name the defect\n%s", n.what, res)
				expectEmptyDir(canary, n.what)
			}
			list, err := s.f.RT.List(ctx)
			Expect(err).NotTo(HaveOccurred())
			for _, e := range list {
				Expect(tried).NotTo(HaveKey(e.Name), "a refused pod is listed")
			}
		})
	})

	// a mounts the probe directory and an emptyDir; b also mounts a second hostPath volume,
	// which a must not see. The host's mount table is read while both run: a device number
	// names a filesystem only while it is mounted (a container's tmpfs, once gone, frees its
	// number for the next mount on the host).
	var otherDir string
	var host []probe.Mount
	hostPaths := &fw.Scenario{
		Short: "host-paths",
		Drive: func(ctx context.Context, p *fw.Pod) error {
			if _, err := p.WaitFor(ctx, "a and b to report", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return countMatches(tl, fw.ProbeEvent("a", probe.TypeReport)) > 0 && countMatches(tl, fw.ProbeEvent("b", probe.TypeReport)) > 0
			}); err != nil {
				return err
			}
			var err error
			if host, err = fw.HostMounts(); err != nil {
				return err
			}
			return p.Stop(ctx, nil, false)
		},
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).EmptyDir("scratch", false).
			Main("a", fw.Loop().Report(), fw.WithMount("scratch", "/scratch", false)).
			Main("b", fw.Loop().Report(), fw.WithMount("other", "/other", true)).
			Mutate(func(p *v1alpha1.Pod) {
				// Beside the pod's probe directory, never inside it: a holds the probe directory.
				otherDir = filepath.Join(filepath.Dir(p.Spec.Volumes[0].HostPath.Path), "host-paths-other")
				_ = os.MkdirAll(otherDir, 0o755)
				p.Spec.Volumes = append(p.Spec.Volumes, v1alpha1.Volume{Name: "other", HostPath: &v1alpha1.HostPathVolumeSource{Path: otherDir}})
			}),
	}
	s.ordered("Host paths a container gets", hostPaths, func(get func() *fw.Outcome) {
		It("gives a container no host path but the hostPath volumes it mounts", req(spec.SEC006), func(ctx SpecContext) {
			out := get()
			Expect(host).NotTo(BeEmpty(), "the host's mount table, read while the containers ran")
			real := func(p string) string {
				r, err := filepath.EvalSymlinks(p)
				Expect(err).NotTo(HaveOccurred())
				return r
			}
			probeDir, other := real(out.Pod.Dir), real(otherDir)
			allowed := map[string][]string{"a": {probeDir}, "b": {probeDir, other}}
			type seen struct{ container, mount, host string }
			var podOwned []seen
			var devices []string
			for _, c := range []string{"a", "b"} {
				rep, ok := out.Timeline.First(fw.ProbeEvent(c, probe.TypeReport))
				Expect(ok).To(BeTrue(), "no report from %s\n%s", c, out.Timeline)
				mapped := false
				for _, m := range rep.Probe.Report.Mounts {
					hp, ok := fw.HostPathOf(m, host)
					if !ok {
						continue // a filesystem made for the container (proc, tmpfs, ...)
					}
					if m.Path == fw.ProbeMount {
						Expect(hp).To(Equal(probeDir), "%s: %s is the probe directory", c, fw.ProbeMount)
						mapped = true
					}
					if withinAny(hp, allowed[c]) {
						continue
					}
					Expect(withinAny(hp, []string{other})).To(BeFalse(), "%s sees the hostPath volume of another container at %s (host path %s)", c, m.Path, hp)
					if fw.IsReadOnlyDefaultDevice(m, hp) {
						// A masked path (crun binds the host's /dev/null read-only): not a host
						// path in SEC-006's sense.
						devices = append(devices, c+" "+m.Path+" <- "+hp+" (read-only default device)")
						continue
					}
					podOwned = append(podOwned, seen{c, m.Path, hp})
				}
				// Without this the check below could hold vacuously on a host whose mounts the
				// harness cannot map.
				Expect(mapped).To(BeTrue(), "%s: the harness could not map %s to its host path; mounts %+v", c, fw.ProbeMount, rep.Probe.Report.Mounts)
			}
			// Whatever else a container got from the host must be the pod's own (its root
			// filesystem, its emptyDir): `rm` removes it. A host path that outlives the pod was
			// the host's.
			var lines []string
			for _, p := range podOwned {
				lines = append(lines, p.container+" "+p.mount+" <- "+p.host)
			}
			AddReportEntry("host paths that must go with the pod", strings.Join(lines, "\n"), ReportEntryVisibilityFailureOrVerbose)
			if len(devices) > 0 {
				AddReportEntry("host device nodes bound read-only (not host paths: default devices)", strings.Join(devices, "\n"), ReportEntryVisibilityFailureOrVerbose)
			}
			Expect(out.Pod.Cleanup(ctx)).To(Succeed())
			for _, p := range podOwned {
				_, err := os.Lstat(p.host)
				Expect(errors.Is(err, fs.ErrNotExist)).To(BeTrue(),
					"%s got host path %s at %s: it is not a hostPath volume the container mounts, and it outlived the pod (%v)", p.container, p.host, p.mount, err)
			}
		})
	})
}

// registerStatePrivacy declares SEC-007's spec: while a pod runs (so its state exists), nothing
// in or below the state directories the runtime names in `version` (contract 1.2,
// stateDirectories) can be read by a user other than the runtime's owner. The runtime's owner is
// the harness's own effective user: the harness runs the runtime's command itself. What "can be
// read" means is fw.ExposedState's: reachability from the state directory down (a private top
// directory hides whatever is below it), with the group class and paths of other owners counted
// as other users. A runtime reporting contract 1.0 or 1.1 names no state directory: the spec is
// skipped, saying so, and a skipped spec of core leaves a certification bundle unverifiable, so
// no certification passes SEC-007 without checking it.
func (s *suite) registerStatePrivacy() {
	var (
		problems []string
		exposed  []fw.StateExposure
		more     bool
		walked   bool
		walkErr  error
		// changed is an entry below the state directories written since the pod was created
		// (less a second: file times come from a coarser clock than the runtime's events).
		changed   string
		looked    int
		changeErr error
	)
	statePrivate := &fw.Scenario{
		Short: "state-private",
		Drive: func(ctx context.Context, p *fw.Pod) error {
			tl, err := p.WaitFor(ctx, "a to report", p.PodTimeout(), func(tl *fw.Timeline) bool {
				return countMatches(tl, fw.ProbeEvent("a", probe.TypeReport)) > 0
			})
			if err != nil {
				return err
			}
			if v := s.f.Version; v.HasStateDirectories() && len(v.StateDirectories) > 0 {
				problems, exposed, more, walkErr = fw.ExposedState(v.StateDirectories, uint32(os.Geteuid()))
				walked = true
				if created, ok := tl.First(fw.RuntimeEv(runtimev1.EventPodCreated, "")); !ok {
					changeErr = fmt.Errorf("the pod's events hold no PodCreated to date its state by")
				} else if len(problems) == 0 {
					changed, looked, changeErr = fw.ChangedSince(v.StateDirectories, created.Time.Add(-time.Second))
				}
			}
			return p.Stop(ctx, nil, false)
		},
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).EmptyDir("scratch", false).
			Main("a", fw.Loop().Report(), fw.WithMount("scratch", "/scratch", false)),
	}
	s.ordered("The state of a running pod", statePrivate, func(get func() *fw.Outcome) {
		It("is in the state directories the runtime names, which no user but the runtime's owner can read", req(spec.SEC007), func() {
			v := s.f.Version
			if !v.HasStateDirectories() {
				Skip(fmt.Sprintf("not checkable: the runtime reports contract %s, and only contract 1.%d and later name the state directories (version's stateDirectories); %s is untested for it",
					v.ContractVersion, runtimev1.StateDirectoriesSince, spec.SEC007))
			}
			Expect(v.StateDirectories).NotTo(BeEmpty(),
				"the runtime reports contract %s but names no state directory (version's stateDirectories, required since 1.%d): %s cannot be checked, so it is not met",
				v.ContractVersion, runtimev1.StateDirectoriesSince, spec.SEC007)
			Expect(walked).To(BeTrue(), "the state directories were not walked while the pod ran")
			Expect(walkErr).NotTo(HaveOccurred(), "read the state directories %v while the pod ran", v.StateDirectories)
			Expect(problems).To(BeEmpty(), "every state directory the runtime names (%v) must exist while a pod runs", v.StateDirectories)
			Expect(changeErr).NotTo(HaveOccurred(), "look for the running pod's state below %v", v.StateDirectories)
			Expect(changed).NotTo(BeEmpty(), "the runtime names %v as its state directories, but nothing below them (%d entries looked at) was written since the pod was created: they do not hold its state, so their modes say nothing of %s",
				v.StateDirectories, looked, spec.SEC007)
			var lines []string
			for _, e := range exposed {
				lines = append(lines, e.String())
			}
			if more {
				lines = append(lines, "… (the walk stopped there)")
			}
			Expect(lines).To(BeEmpty(), "users other than the runtime's owner (uid %d) can read state below %v while the pod runs:\n%s",
				os.Geteuid(), v.StateDirectories, strings.Join(lines, "\n"))
		})
	})
}

// withinAny reports whether path is one of dirs or below one of them.
func withinAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}
