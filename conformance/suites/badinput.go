package suites

import (
	"context"
	"slices"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// badRow is a manifest the runtime must refuse, and the rule its findings must name ("" when the
// refusal is not a validator finding).
type badRow struct {
	key  string
	rule string
	// also lists other rules that report the same defect (a schema and a semantic check may
	// both catch it); any of rule and also satisfies the row.
	also   []string
	mutate func(*v1alpha1.Pod)
}

func badRows() []badRow {
	never := v1alpha1.RestartPolicyNever
	return []badRow{
		{key: "cycle", rule: spec.DEP003, mutate: func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].DependsOn = []v1alpha1.Dependency{{Name: "b"}}
			p.Spec.Containers[1].DependsOn = []v1alpha1.Dependency{{Name: "a"}}
		}},
		{key: "no-main", rule: spec.MAIN001, also: []string{spec.MAN002, spec.MAN003}, mutate: func(p *v1alpha1.Pod) { p.Spec.Containers = nil }},
		{key: "sigkill", rule: spec.STOP001, mutate: func(p *v1alpha1.Pod) { p.Spec.Containers[0].StopSignal = "SIGKILL" }},
		{key: "dep-unknown", rule: spec.DEP001, mutate: func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].DependsOn = []v1alpha1.Dependency{{Name: "ghost"}}
		}},
		{key: "dup-name", rule: spec.ID002, mutate: func(p *v1alpha1.Pod) { p.Spec.Containers[1].Name = "a" }},
		{key: "defer-always", rule: spec.DEFER001, mutate: func(p *v1alpha1.Pod) {
			p.Spec.DeferContainers = []v1alpha1.DeferContainer{{Name: "d", Image: p.Spec.Containers[0].Image, RestartPolicy: v1alpha1.RestartPolicyAlways}}
		}},
		{key: "bad-backoff", rule: spec.RST001, mutate: func(p *v1alpha1.Pod) {
			z := 0.0
			p.Spec.RestartBackoff = &v1alpha1.Backoff{InitialSeconds: &z}
			p.Spec.RestartPolicy = never
		}},
	}
}

func (s *suite) registerBadInput() {
	rows := badRows()
	scen := map[string]*fw.Scenario{}
	for _, r := range rows {
		b := fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("a", fw.Exit(0)).Main("b", fw.Exit(0)).Mutate(r.mutate)
		scen[r.key] = s.scenarios.Add(&fw.Scenario{Short: "bad-" + r.key, Pod: b, Refused: true})
	}
	missingHost := s.scenarios.Add(&fw.Scenario{Short: "bad-hostpath", Refused: true,
		Pod: fw.NewPod().Main("a", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, v1alpha1.Volume{Name: "missing", HostPath: &v1alpha1.HostPathVolumeSource{Path: "/nonexistent/podspec-conformance"}})
			p.Spec.Containers[0].VolumeMounts = append(p.Spec.Containers[0].VolumeMounts, v1alpha1.VolumeMount{Name: "missing", MountPath: "/missing"})
		})})
	missingImage := s.scenarios.Add(&fw.Scenario{Short: "bad-image", Refused: true,
		Pod: fw.NewPod().Main("a", fw.Exit(0)).Mutate(func(p *v1alpha1.Pod) {
			p.Spec.Containers[0].Image = "oci:/nonexistent/podspec-conformance-image:probe"
		})})

	nothingCreated := func(ctx context.Context, out *fw.Outcome) {
		res, err := s.f.RT.Exec(ctx, "status", out.Pod.Name, "-o", "json")
		Expect(err).NotTo(HaveOccurred())
		Expect(res.ExitCode).To(Equal(runtimev1.ExitNotFound), "a refused pod does not exist\n%s", res)
		list, err := s.f.RT.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range list {
			Expect(e.Name).NotTo(Equal(out.Pod.Name), "a refused pod is not listed")
		}
	}
	Describe("Bad input", profileLabel("core"), func() {
		var entries []TableEntry
		for _, r := range rows {
			entries = append(entries, Entry("refuses a manifest with a "+r.rule+" error: "+r.key, r))
		}
		DescribeTable("the runtime refuses an invalid manifest with the validator's findings and creates nothing", req(spec.MAN010),
			func(ctx SpecContext, r badRow) {
				out := s.await(ctx, scen[r.key])
				res := out.Pod.RunResult
				Expect(res.ExitCode).To(Equal(runtimev1.ExitFailed), "exit status\n%s", res)
				Expect(res.Error).NotTo(BeNil(), "a JSON error report on stderr\n%s", res)
				Expect(res.Error.Code).To(Equal(runtimev1.CodeInvalidManifest), "%s", res)
				var rules []string
				for _, f := range res.Error.Findings {
					rules = append(rules, f.Rule)
				}
				found := slices.ContainsFunc(append([]string{r.rule}, r.also...), func(id string) bool { return slices.Contains(rules, id) })
				Expect(found).To(BeTrue(), "findings %v must include %s (or %v)\n%s", rules, r.rule, r.also, res)
				nothingCreated(ctx, out)
			}, entries)
		It("refuses a pod whose hostPath does not exist, and creates nothing", req(spec.VOL008), func(ctx SpecContext) {
			out := s.await(ctx, missingHost)
			Expect(out.Pod.RunResult.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", out.Pod.RunResult)
			nothingCreated(ctx, out)
		})
		It("fails creation naming an image that cannot be resolved, and leaves nothing behind", req(spec.IMG003), func(ctx SpecContext) {
			out := s.await(ctx, missingImage)
			res := out.Pod.RunResult
			Expect(res.ExitCode).To(Equal(runtimev1.ExitFailed), "%s", res)
			Expect(res.Error).NotTo(BeNil(), "%s", res)
			Expect(res.Error.Message).To(ContainSubstring("/nonexistent/podspec-conformance-image"), "the error names the image")
			nothingCreated(ctx, out)
		})
	})
}
