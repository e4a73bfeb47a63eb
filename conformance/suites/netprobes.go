package suites

import (
	"context"
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

// httpGet, tcpSocket and grpc probes and httpGet hooks (HOOK-015..HOOK-019). The servers are
// the workloads' own (podspec-probe -http, -tcp, -grpc), listening inside the pod's network
// namespace and reporting every request before they answer it: the requests and what they were
// answered are the ground truth the runtime's ContainerReady, stop signals and ends are placed
// against. Every pod's containers share one network namespace, so each server has its own port.

// served matches the requests a container's servers reported that keep accepts (nil: all).
func served(container string, keep func(*probe.Request) bool) fw.Matcher {
	return func(e fw.Entry) bool {
		return fw.ProbeEvent(container, probe.TypeRequest)(e) && e.Probe.Request != nil && (keep == nil || keep(e.Probe.Request))
	}
}

// answered keeps HTTP and HTTPS requests for path (without the query) answered with status (0:
// any).
func answered(path string, status int) func(*probe.Request) bool {
	return func(r *probe.Request) bool {
		p, _, _ := strings.Cut(r.Path, "?")
		return (r.Protocol == "http" || r.Protocol == "https") && p == path && (status == 0 || r.Status == status)
	}
}

// readyEv matches a container's ContainerReady.
func readyEv(container string) fw.Matcher {
	return fw.RuntimeEv(runtimev1.EventContainerReady, container)
}

// httpGet is an httpGet action on 127.0.0.1 (host empty).
func httpGet(path string, port v1alpha1.PortRef, headers ...v1alpha1.HTTPHeader) *v1alpha1.HTTPGetAction {
	return &v1alpha1.HTTPGetAction{Path: path, Port: port, HTTPHeaders: headers}
}

// stopAfterSettling waits for cond, then lets settle pass (probe attempts that must keep failing
// go on failing meanwhile), then stops the pod. cond holds for a conforming runtime; the wait is
// bounded (a quarter of the pod timeout) and the pod is stopped when it ends, so that a runtime
// that never makes cond hold is judged by the specs, each on what it checks, not by the scenario.
func stopAfterSettling(what string, cond func(*fw.Timeline) bool, settle time.Duration) func(context.Context, *fw.Pod) error {
	return func(ctx context.Context, p *fw.Pod) error {
		if _, err := p.WaitFor(ctx, what, p.PodTimeout()/4, cond); err != nil && ctx.Err() != nil {
			return err
		}
		time.Sleep(settle)
		return p.Stop(ctx, nil, false)
	}
}

// startedWhenListening is a tcpSocket startup probe on port: a container with it is Started, and
// its liveness probe active, only once its server listens (HOOK-017), so that a liveness check
// cannot find the port still closed while the workload starts.
func startedWhenListening(port int32) fw.ContainerOpt {
	return fw.NetProbe(fw.ProbeStartup, v1alpha1.Probe{TCPSocket: &v1alpha1.TCPSocketAction{Port: v1alpha1.PortNumber(port)}},
		fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 30})
}

// atLeast holds when the timeline has n entries matching m.
func atLeast(tl *fw.Timeline, n int, m fw.Matcher) bool { return countMatches(tl, m) >= n }

func (s *suite) registerHTTPGetProbes() {
	never := fw.WithRestartPolicy(v1alpha1.RestartPolicyNever)
	every := fw.ProbeTiming{PeriodSeconds: 1}
	header := v1alpha1.HTTPHeader{Name: "X-Podspec", Value: "conformance"}
	readiness := func(h *v1alpha1.HTTPGetAction, t fw.ProbeTiming) fw.ContainerOpt {
		return fw.NetProbe(fw.ProbeReadiness, v1alpha1.Probe{HTTPGet: h}, t)
	}
	sc := &fw.Scenario{
		Short: "httpget-probes",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("h200", fw.Loop().ServeHTTP("127.0.0.1:8001").Route("/healthz", "200"),
				readiness(httpGet("/healthz?probe=1", v1alpha1.PortNumber(8001), header), every)).
			Main("h399", fw.Loop().ServeHTTP("127.0.0.1:8002").Route("/healthz", "399"),
				readiness(httpGet("/healthz", v1alpha1.PortNumber(8002)), every)).
			Main("h400", fw.Loop().ServeHTTP("127.0.0.1:8003").Route("/healthz", "400"),
				readiness(httpGet("/healthz", v1alpha1.PortNumber(8003)), every)).
			Main("hredirect", fw.Loop().ServeHTTP("127.0.0.1:8004").Route("/moved", "302>/denied").Route("/denied", "500"),
				readiness(httpGet("/moved", v1alpha1.PortNumber(8004)), every)).
			Main("hoffhost", fw.Loop().ServeHTTP("127.0.0.1:8008").ServeHTTP("127.0.0.2:8008").
				Route("/away", "302>http://127.0.0.2:8008/denied").Route("/denied", "500"),
				readiness(httpGet("/away", v1alpha1.PortNumber(8008)), every)).
			Main("hslow", fw.Loop().ServeHTTP("127.0.0.1:8005").Route("/healthz", "200@3s"),
				readiness(httpGet("/healthz", v1alpha1.PortNumber(8005)), fw.ProbeTiming{PeriodSeconds: 1, TimeoutSeconds: 1})).
			Main("hhttps", fw.Loop().ServeHTTPS("127.0.0.1:8007").Route("/healthz", "200"),
				readiness(&v1alpha1.HTTPGetAction{Path: "/healthz", Port: v1alpha1.PortNumber(8007), Scheme: v1alpha1.URISchemeHTTPS}, every)).
			Main("hlive", fw.Loop().ServeHTTP("127.0.0.1:8006").Route("/live", "200", "200", "500"), never, startedWhenListening(8006),
				fw.NetProbe(fw.ProbeLiveness, v1alpha1.Probe{HTTPGet: httpGet("/live", v1alpha1.PortNumber(8006))}, fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1})),
		Drive: stopAfterSettling("h200, h399, hhttps and hoffhost Ready, hlive ended, three answers from h400, hredirect's /denied and hslow", func(tl *fw.Timeline) bool {
			for _, c := range []string{"h200", "h399", "hhttps", "hoffhost"} {
				if _, ok := tl.First(readyEv(c)); !ok {
					return false
				}
			}
			return runtimeExited("hlive")(tl) &&
				atLeast(tl, 3, served("h400", nil)) && atLeast(tl, 3, served("hredirect", answered("/denied", 0))) &&
				atLeast(tl, 3, served("hslow", nil))
		}, 2*time.Second),
	}
	s.ordered("httpGet probes", sc, func(get func() *fw.Outcome) {
		It("count an attempt as a success exactly when the answer's status is from 200 to 399", req(spec.HOOK016), func() {
			tl := get().Timeline
			Expect(tl.Before("h200 is Ready only after a request it answered 200", served("h200", answered("/healthz", 200)), readyEv("h200"))).To(Succeed())
			Expect(tl.Before("h399 is Ready only after a request it answered 399", served("h399", answered("/healthz", 399)), readyEv("h399"))).To(Succeed())
			Expect(countMatches(tl, served("h400", answered("/healthz", 400)))).To(BeNumerically(">=", 3), "h400's probe was attempted\n%s", tl)
			Expect(tl.NeverHappened("h400 Ready: every answer was 400", readyEv("h400"))).To(Succeed())
		})
		It("send a GET for the path and query with the httpHeaders", req(spec.HOOK016), func() {
			tl := get().Timeline
			first, ok := tl.First(served("h200", nil))
			Expect(ok).To(BeTrue(), "a request to h200\n%s", tl)
			r := first.Probe.Request
			Expect(r.Path).To(Equal("/healthz?probe=1"), "the probe's path, query included")
			Expect(r.Headers).To(HaveKeyWithValue("X-Podspec", "conformance"), "the probe's httpHeaders")
		})
		It("follow a redirect to the same host and count the status it leads to", req(spec.HOOK016), func() {
			tl := get().Timeline
			Expect(tl.Before("the redirect from /moved is followed to /denied", served("hredirect", answered("/moved", 302)), served("hredirect", answered("/denied", 500)))).To(Succeed())
			Expect(tl.NeverHappened("hredirect Ready: the redirect leads to a 500", readyEv("hredirect"))).To(Succeed())
		})
		It("count a redirect to another host as its own status, not following it", req(spec.HOOK016), func() {
			tl := get().Timeline
			Expect(tl.Before("hoffhost is Ready after its 302 to 127.0.0.2", served("hoffhost", answered("/away", 302)), readyEv("hoffhost"))).To(Succeed())
			Expect(tl.NeverHappened("a request to hoffhost's server on 127.0.0.2: a redirect to another host is not followed", served("hoffhost", func(r *probe.Request) bool { return r.Local == "127.0.0.2:8008" }))).To(Succeed())
		})
		It("use TLS without verifying the server's certificate for scheme HTTPS", req(spec.HOOK016), func() {
			tl := get().Timeline
			overTLS := func(r *probe.Request) bool { return r.Protocol == "https" && r.Status == 200 }
			Expect(tl.Before("hhttps is Ready after a request over TLS to its self-signed server", served("hhttps", overTLS), readyEv("hhttps"))).To(Succeed())
		})
		It("count an answer later than timeoutSeconds as a failure", req(spec.HOOK016), func() {
			tl := get().Timeline
			Expect(countMatches(tl, served("hslow", nil))).To(BeNumerically(">=", 3), "hslow's probe was attempted\n%s", tl)
			Expect(tl.NeverHappened("hslow Ready: its 200 comes 3 s after the request, the timeout is 1 s", readyEv("hslow"))).To(Succeed())
		})
		It("stop a container whose liveness answers fail, not while they succeed", req(spec.HOOK016), func() {
			out := get()
			Expect(out.Timeline.Before("hlive's stop signal follows its first 500, not its 200s", served("hlive", answered("/live", 500)), runtimeSignal("hlive", "SIGTERM"))).To(Succeed())
			t := out.Final.Terminated("hlive")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "%s", out.Final)
		})
	})
}

func (s *suite) registerNetProbeAddresses() {
	never := fw.WithRestartPolicy(v1alpha1.RestartPolicyNever)
	every := fw.ProbeTiming{PeriodSeconds: 1}
	tcp := func(kind, host string, port v1alpha1.PortRef, t fw.ProbeTiming) fw.ContainerOpt {
		return fw.NetProbe(kind, v1alpha1.Probe{TCPSocket: &v1alpha1.TCPSocketAction{Host: host, Port: port}}, t)
	}
	sc := &fw.Scenario{
		Short: "probe-addresses",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("named", fw.Loop().ServeHTTP("127.0.0.1:8011").Route("/", "200"),
				fw.WithPorts(v1alpha1.ContainerPort{Name: "web", ContainerPort: 8011}),
				fw.NetProbe(fw.ProbeReadiness, v1alpha1.Probe{HTTPGet: httpGet("", v1alpha1.PortNamed("web"))}, every)).
			Main("viaip", fw.Loop().ServeTCP("127.0.0.2:8012", 0),
				tcp(fw.ProbeReadiness, "127.0.0.2", v1alpha1.PortNumber(8012), every)).
			Main("vialocalhost", fw.Loop().ServeTCP("127.0.0.1:8013", 0),
				tcp(fw.ProbeReadiness, "localhost", v1alpha1.PortNumber(8013), every)).
			Main("vianame", fw.Loop().ServeTCP("127.0.0.1:8014", 0),
				tcp(fw.ProbeReadiness, "probe-server.invalid", v1alpha1.PortNumber(8014), every)).
			Main("tcpnone", fw.Loop(),
				tcp(fw.ProbeReadiness, "", v1alpha1.PortNumber(8021), every)).
			Main("tcplive", fw.Loop().ServeTCP("127.0.0.1:8022", 3), never, startedWhenListening(8022),
				tcp(fw.ProbeLiveness, "", v1alpha1.PortNumber(8022), fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 1})),
		// The settling time lets vianame's and tcpnone's probes fail a few more times.
		Drive: stopAfterSettling("named, viaip and vialocalhost Ready, tcplive ended", func(tl *fw.Timeline) bool {
			for _, c := range []string{"named", "viaip", "vialocalhost"} {
				if _, ok := tl.First(readyEv(c)); !ok {
					return false
				}
			}
			return runtimeExited("tcplive")(tl)
		}, 3*time.Second),
	}
	s.ordered("Addresses of httpGet and tcpSocket probes", sc, func(get func() *fw.Outcome) {
		It("connect inside the pod to 127.0.0.1 for an empty host or localhost, to an IP host, and to a named port's containerPort", req(spec.HOOK015), func() {
			tl := get().Timeline
			Expect(tl.Before("named is Ready after a request on containerPort 8011 of its port web", served("named", answered("/", 200)), readyEv("named"))).To(Succeed())
			// The kernel establishes a TCP connection before the listener accepts, and so before it
			// reports it: a tcpSocket probe's success may precede its report, which only shows that
			// the probe reached the one listener at that address, inside the pod.
			for _, c := range []string{"viaip", "vialocalhost"} {
				Expect(tl.Happened(c+" Ready", readyEv(c))).To(Succeed())
				Expect(tl.Happened("a connection to "+c+"'s listener", served(c, nil))).To(Succeed())
			}
		})
		It("fail an attempt whose host is neither an IP address nor localhost", req(spec.HOOK015), func() {
			tl := get().Timeline
			Expect(tl.NeverHappened("a connection to vianame's listener: its probe's host is a name", served("vianame", nil))).To(Succeed())
			Expect(tl.NeverHappened("vianame Ready", readyEv("vianame"))).To(Succeed())
		})
		It("count a tcpSocket attempt as a success exactly when the connection is established", req(spec.HOOK017), func() {
			out := get()
			tl := out.Timeline
			Expect(tl.Happened("viaip Ready: its listener accepts", readyEv("viaip"))).To(Succeed())
			Expect(tl.NeverHappened("tcpnone Ready: nothing listens on its port", readyEv("tcpnone"))).To(Succeed())
			conns := tl.All(served("tcplive", nil))
			Expect(conns).To(HaveLen(3), "tcplive's listener accepts three connections (its startup probe's, two liveness checks), then closes\n%s", tl)
			Expect(tl.Before("tcplive's stop signal follows its last accepted connection", func(e fw.Entry) bool { return e == conns[2] }, runtimeSignal("tcplive", "SIGTERM"))).To(Succeed())
			t := out.Final.Terminated("tcplive")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal("Unhealthy"), "%s", out.Final)
		})
	})
}

func (s *suite) registerGRPCProbes() {
	every := fw.ProbeTiming{PeriodSeconds: 1}
	grpcProbe := func(port int32, service *string) fw.ContainerOpt {
		return fw.NetProbe(fw.ProbeReadiness, v1alpha1.Probe{GRPC: &v1alpha1.GRPCAction{Port: port, Service: service}}, every)
	}
	app := "app"
	checked := func(service, answer string) func(*probe.Request) bool {
		return func(r *probe.Request) bool {
			return r.Protocol == "grpc" && r.Path == "/grpc.health.v1.Health/Check" && r.Service == service && r.Answer == answer
		}
	}
	sc := &fw.Scenario{
		Short: "grpc-probes",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Main("gapp", fw.Loop().ServeGRPC("127.0.0.1:8031", "=NOT_SERVING", "app=SERVING"), grpcProbe(8031, &app)).
			Main("gdefault", fw.Loop().ServeGRPC("127.0.0.1:8032", "app=NOT_SERVING"), grpcProbe(8032, nil)).
			Main("gnot", fw.Loop().ServeGRPC("127.0.0.1:8033", "app=NOT_SERVING"), grpcProbe(8033, &app)),
		Drive: stopAfterSettling("gapp and gdefault Ready, three checks of gnot", func(tl *fw.Timeline) bool {
			_, r1 := tl.First(readyEv("gapp"))
			_, r2 := tl.First(readyEv("gdefault"))
			return r1 && r2 && atLeast(tl, 3, served("gnot", nil))
		}, time.Second),
	}
	s.ordered("grpc probes", sc, func(get func() *fw.Outcome) {
		It("count an attempt as a success exactly when Health/Check of the probe's service answers SERVING", req(spec.HOOK018), func() {
			tl := get().Timeline
			Expect(tl.Before("gapp is Ready after a check of service app answered SERVING", served("gapp", checked("app", "SERVING")), readyEv("gapp"))).To(Succeed())
			Expect(tl.NeverHappened("a check of gapp's service \"\" (NOT_SERVING): the probe names app", served("gapp", checked("", "NOT_SERVING")))).To(Succeed())
			Expect(tl.Before("gdefault is Ready after a check of the default service \"\" answered SERVING", served("gdefault", checked("", "SERVING")), readyEv("gdefault"))).To(Succeed())
			Expect(countMatches(tl, served("gnot", checked("app", "NOT_SERVING")))).To(BeNumerically(">=", 3), "gnot's checks of service app, answered NOT_SERVING\n%s", tl)
			Expect(tl.NeverHappened("gnot Ready: its service app is NOT_SERVING", readyEv("gnot"))).To(Succeed())
		})
	})
}

func (s *suite) registerHTTPGetHooks() {
	srv := v1alpha1.PortNumber(8041)
	hook := func(path string) v1alpha1.LifecycleHandler {
		return v1alpha1.LifecycleHandler{HTTPGet: httpGet(path, srv)}
	}
	sc := &fw.Scenario{
		Short: "httpget-hooks",
		// The hooks' server is a sidecar whose startup probe passes once it listens: the main
		// containers, and so their postStart hooks, start only then. It answers hookbad's
		// postStart after 2 s, so that hookbad's workload has reported its start before the
		// runtime kills it for the failed hook.
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).
			Sidecar("hooksrv", fw.Loop().ServeHTTP("127.0.0.1:8041").Route("/started", "399").Route("/refused", "400@2s").Route("/draining", "204"),
				fw.NetProbe(fw.ProbeStartup, v1alpha1.Probe{TCPSocket: &v1alpha1.TCPSocketAction{Port: srv}}, fw.ProbeTiming{PeriodSeconds: 1, FailureThreshold: 30})).
			Main("hookok", fw.Loop(), fw.PostStartAction(hook("/started")), fw.PreStopAction(hook("/draining"))).
			Main("hookbad", fw.Loop(), fw.WithRestartPolicy(v1alpha1.RestartPolicyNever), fw.PostStartAction(hook("/refused"))),
		Drive: stopAfterSettling("hookok Ready and hookbad ended", func(tl *fw.Timeline) bool {
			_, ok := tl.First(readyEv("hookok"))
			return ok && runtimeExited("hookbad")(tl)
		}, 0),
	}
	s.ordered("httpGet hooks", sc, func(get func() *fw.Outcome) {
		It("succeed exactly when the answer's status is from 200 to 399", req(spec.HOOK019), func() {
			out := get()
			tl := out.Timeline
			Expect(tl.Before("hookok is Ready after its postStart GET was answered 399", served("hooksrv", answered("/started", 399)), readyEv("hookok"))).To(Succeed())
			Expect(tl.Happened("hookbad's postStart GET", served("hooksrv", answered("/refused", 400)))).To(Succeed())
			Expect(tl.NeverHappened("hookbad Ready: its postStart GET was answered 400", readyEv("hookbad"))).To(Succeed())
			t := out.Final.Terminated("hookbad")
			Expect(t).NotTo(BeNil(), "%s", out.Final)
			Expect(t.Reason).To(Equal(v1alpha1.ReasonStartError), "a failed postStart hook\n%s", out.Final)
		})
		It("deliver a preStop GET before the container's stop signal", req(spec.HOOK019), func() {
			tl := get().Timeline
			Expect(tl.Before("hookok's preStop GET precedes its SIGTERM", served("hooksrv", answered("/draining", 204)), runtimeSignal("hookok", "SIGTERM"))).To(Succeed())
		})
	})
}
