package suites

import (
	"net"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/spec"
)

// hostPortPage is what the published pod's web server answers.
const hostPortPage = "hello from a published port\n"

// registerHostPorts: a container port's hostPort is published on the host (NET-004 to NET-007).
// The pod's container is busybox's httpd serving on the pod's loopback only (its namespace has
// no other interface, SEC-009), with two ports published: one on hostIP 127.0.0.1, one without
// hostIP (127.0.0.1 by default). The specs connect from the host to 127.0.0.1 only: the page
// answers on both; listening on 127.0.0.2 (no traffic) shows the default is not every address;
// a pod asking for a hostPort held by another process is refused with Conflict and not
// created; once the pod ended nothing listens on either port.
func (s *suite) registerHostPorts() {
	Describe("Published ports", Ordered, ContinueOnFailure, profileLabel("core"), func() {
		var p *fw.Pod
		var explicit, defaulted int
		pod := func(explicit, defaulted int) *fw.PodBuilder {
			return fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).Grace(5).Main("web", fw.Loop(), func(c *v1alpha1.Container) {
				c.Command = []string{"sh", "-c", "mkdir -p /www && echo '" + hostPortPage[:len(hostPortPage)-1] + "' > /www/index.html && exec httpd -f -p 127.0.0.1:8080 -h /www"}
				c.Args = nil
				c.Ports = []v1alpha1.ContainerPort{
					{Name: "explicit", ContainerPort: 8080, HostPort: int32(explicit), HostIP: "127.0.0.1"},
					{Name: "defaulted", ContainerPort: 8080, HostPort: int32(defaulted)},
				}
			})
		}
		BeforeAll(func(ctx SpecContext) {
			if s.f.Config().Busybox == "" {
				Skip("the web server is busybox's httpd: the test image has no busybox (--busybox)")
			}
			explicit, defaulted = freeHostPort(), freeHostPort()
			p = s.submitPod(ctx, "hostport", pod(explicit, defaulted))
			Expect(p.Created()).To(BeTrue(), "%s", p.RunResult)
			Expect(p.WaitContainersStarted(ctx, "web")).To(Succeed())
		})
		// page expects the page on addr within the reaction tolerance of the server's start.
		page := func(addr, what string) {
			tol := s.f.Tolerances().Reaction
			Eventually(func() (string, error) { return fw.FetchPage(addr) }).WithTimeout(tol.Value).WithPolling(100*time.Millisecond).
				Should(Equal(hostPortPage), "the page on %s (%s), within %s of the server's start", addr, what, tol.Name)
		}
		It("connects 127.0.0.1:hostPort on the host to the container port on the pod's loopback", req(spec.NET004), func() {
			addr := "127.0.0.1:" + strconv.Itoa(explicit)
			page(addr, "hostIP 127.0.0.1")
		})
		It("publishes a hostPort without hostIP on 127.0.0.1, and not on every address", req(spec.NET005), func() {
			addr := "127.0.0.1:" + strconv.Itoa(defaulted)
			page(addr, "no hostIP")
			// Another loopback address takes the port only if the runtime did not listen on every
			// address (0.0.0.0); nothing is sent to it.
			l, err := net.Listen("tcp", "127.0.0.2:"+strconv.Itoa(defaulted))
			Expect(err).NotTo(HaveOccurred(), "the runtime holds port %d on every address, not on 127.0.0.1 only", defaulted)
			Expect(l.Close()).To(Succeed())
		})
		It("refuses a pod whose hostPort another process holds with Conflict, creating nothing", req(spec.NET006), func(ctx SpecContext) {
			held, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			defer held.Close()
			heldPort := held.Addr().(*net.TCPAddr).Port
			for _, c := range []struct {
				short, what         string
				explicit, defaulted int
			}{
				{"hostport-held", "a hostPort another process holds", heldPort, freeHostPort()},
				{"hostport-taken", "the hostPort of a running pod", freeHostPort(), defaulted},
			} {
				other, err := s.f.Prepare(c.short, pod(c.explicit, c.defaulted))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(other.Cleanup(ctx)).To(Succeed()) })
				res, err := other.Run(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.ExitCode).To(Equal(runtimev1.ExitConflict), "run of a pod with %s\n%s", c.what, res)
				Expect(res.Error).NotTo(BeNil(), "%s", res)
				Expect(res.Error.Code).To(Equal(runtimev1.CodeConflict), "%s", res)
				st, err := s.f.RT.Exec(ctx, "status", other.Name)
				Expect(err).NotTo(HaveOccurred())
				Expect(st.ExitCode).To(Equal(runtimev1.ExitNotFound), "the refused pod %s exists\n%s", other.Name, st)
			}
		})
		It("leaves nothing listening on its host ports once the pod ended", req(spec.NET007), func(ctx SpecContext) {
			Expect(p.Stop(ctx, nil, false)).To(Succeed())
			_, err := p.Wait(ctx)
			Expect(err).NotTo(HaveOccurred())
			for _, port := range []int{explicit, defaulted} {
				addr := "127.0.0.1:" + strconv.Itoa(port)
				Eventually(func() bool { return fw.Accepts(addr) }).WithTimeout(s.f.Tolerances().Reaction.Value).WithPolling(100*time.Millisecond).
					Should(BeFalse(), "%s accepts connections after the pod ended (%s)", addr, s.f.Tolerances().Reaction.Name)
			}
		})
	})
}

// freeHostPort is a TCP port nothing listens on now on the host's 127.0.0.1.
func freeHostPort() int {
	port, err := fw.FreeLoopbackPort()
	Expect(err).NotTo(HaveOccurred())
	return port
}
