package suites

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// logBound is SUP-013's bound on what a runtime keeps of one instance's log.
const logBound = 64 << 20

// registerLogBound: a container that writes more than the bound as fast as it can leaves a log of
// at most the bound, its newest output, whole (SUP-013), and none of its writes failed.
func (s *suite) registerLogBound() {
	const flooded = logBound + logBound/2 // 96 MiB in numbered lines of probe.FloodLine bytes
	sc := &fw.Scenario{
		Short: "log-bound",
		Pod:   fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Main("app", fw.Exit(0).Flood(flooded)),
	}
	s.ordered("A container writing more output than the log bound", sc, func(get func() *fw.Outcome) {
		s.gradedIt("keeps at most 64 MiB of its log, the newest output, whole", []string{spec.SUP013}, func() {
			ctx := context.Background()
			out := get()
			t := out.Final.Terminated("app")
			Expect(t).NotTo(BeNil(), "app's final state")
			Expect(t.ExitCode).NotTo(BeNil(), "app's exit code")
			Expect(*t.ExitCode).NotTo(Equal(int32(probe.FloodFailed)), "a write to app's standard output failed: its log could not grow")
			Expect(*t.ExitCode).To(BeZero(), "app's exit code")
			logs, err := s.f.RT.Logs(ctx, out.Pod.Name, "app", false)
			Expect(err).NotTo(HaveOccurred())
			Expect(len(logs)).To(BeNumerically("<=", logBound), "bytes of app's log: it wrote %d", flooded)
			lines := bytes.Split(bytes.TrimSuffix(logs, []byte("\n")), []byte("\n"))
			Expect(len(lines)).To(BeNumerically(">", 1), "app's log keeps its newest output")
			last := flooded/probe.FloodLine - 1
			first := last - (len(lines) - 1)
			for i, l := range lines {
				n, err := strconv.Atoi(string(bytes.SplitN(l, []byte(" "), 2)[0]))
				Expect(err == nil && n == first+i).To(BeTrue(), "line %d of app's log is %.20q…, want line %08d: the log must be the newest output, whole and in order", i, l, first+i)
			}
			AddReportEntry("log kept", fmt.Sprintf("%d of %d bytes", len(logs), flooded))
		})
	})
}
