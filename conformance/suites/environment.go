package suites

import (
	"slices"
	"strconv"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	. "github.com/onsi/gomega"    //nolint:revive // Gomega's DSL

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// allowedCaps is the capability bounding set SEC-002 allows, as a bit mask.
var allowedCaps = func() uint64 {
	var m uint64
	for _, bit := range []uint{
		0,  // CAP_CHOWN
		1,  // CAP_DAC_OVERRIDE
		3,  // CAP_FOWNER
		4,  // CAP_FSETID
		5,  // CAP_KILL
		6,  // CAP_SETGID
		7,  // CAP_SETUID
		8,  // CAP_SETPCAP
		10, // CAP_NET_BIND_SERVICE
		13, // CAP_NET_RAW
		18, // CAP_SYS_CHROOT
		27, // CAP_MKNOD
		29, // CAP_AUDIT_WRITE
		31, // CAP_SETFCAP
	} {
		m |= 1 << bit
	}
	return m
}()

func (s *suite) registerEnvironment() {
	sc := &fw.Scenario{
		Short: "environment",
		Pod: fw.NewPod().RestartPolicy(v1alpha1.RestartPolicyNever).EmptyDir("data", false).EmptyDir("mem", true).
			Init("i1", fw.ExitAfter(0, ms(100)).Report()).
			Main("app", fw.ExitAfter(0, ms(1500)).Report().List("/data"),
				fw.WithMount("data", "/data", false), fw.WithMount("mem", "/mem", false), fw.WithMount("data", "/ro", true),
				fw.WithLimits("500m", "256Mi", "64"), // room for the hook's runc exec in the same cgroup
				fw.PostStart(fw.HookHandler(0, 0).Report())).
			Main("args", fw.ExitAfter(0, ms(1000)).Report(), fw.ArgsOnly()),
	}
	s.ordered("What a container sees", sc, func(get func() *fw.Outcome) {
		report := func(container, role string) *probe.Report {
			for _, e := range get().Timeline.All(fw.ProbeEvent(container, probe.TypeReport)) {
				if e.Probe.Role == role {
					return e.Probe.Report
				}
			}
			Fail("no " + role + " report from " + container + "\n" + get().Timeline.String())
			return nil
		}
		workloads := func() map[string]*probe.Report {
			return map[string]*probe.Report{"i1": report("i1", probe.RoleWorkload), "app": report("app", probe.RoleWorkload), "args": report("args", probe.RoleWorkload)}
		}
		mount := func(r *probe.Report, path string) *probe.Mount {
			for i := len(r.Mounts) - 1; i >= 0; i-- { // the last mount at a path is the visible one
				if r.Mounts[i].Path == path {
					return &r.Mounts[i]
				}
			}
			return nil
		}
		It("starts every container process with noNewPrivileges", req(spec.SEC001), func() {
			for name, r := range workloads() {
				Expect(r.NoNewPrivs).To(BeTrue(), "%s", name)
			}
			Expect(report("app", probe.RoleHook).NoNewPrivs).To(BeTrue(), "the postStart hook")
		})
		It("bounds capabilities to the allowed set", req(spec.SEC002), func() {
			for name, r := range workloads() {
				bnd, err := strconv.ParseUint(r.CapBnd, 16, 64)
				Expect(err).NotTo(HaveOccurred(), "%s CapBnd %q", name, r.CapBnd)
				Expect(bnd&^allowedCaps).To(BeZero(), "%s has capabilities outside the allowed set: CapBnd %s, extra bits %x", name, r.CapBnd, bnd&^allowedCaps)
			}
		})
		It("masks /proc/kcore, /proc/keys, /proc/timer_list and /sys/firmware", req(spec.SEC003), func() {
			for name, r := range workloads() {
				for path, state := range r.Masked {
					Expect(state).NotTo(Equal("visible"), "%s sees %s", name, path)
				}
				Expect(r.Masked).To(HaveLen(4), "%s", name)
			}
		})
		It("mounts /proc/sys, /proc/sysrq-trigger, /proc/irq and /proc/bus read-only", req(spec.SEC004), func() {
			for name, r := range workloads() {
				for _, p := range []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"} {
					if slices.Contains(r.Absent, p) {
						continue // this kernel has no such path: nothing to protect
					}
					m := mount(r, p)
					Expect(m).NotTo(BeNil(), "%s: %s is not a mount", name, p)
					Expect(m.ReadOnly).To(BeTrue(), "%s: %s is writable", name, p)
				}
			}
		})
		It("puts every container of the pod in one network, IPC and UTS namespace", req(spec.SEC008), func() {
			rs := workloads()
			for _, ns := range []string{"net", "ipc", "uts"} {
				Expect(rs["i1"].Namespaces[ns]).NotTo(BeEmpty())
				Expect(rs["app"].Namespaces[ns]).To(Equal(rs["i1"].Namespaces[ns]), "%s namespace of app and i1", ns)
				Expect(rs["args"].Namespaces[ns]).To(Equal(rs["i1"].Namespaces[ns]), "%s namespace of args and i1", ns)
			}
		})
		It("gives the pod a network namespace with only the loopback interface", req(spec.SEC009), func() {
			for name, r := range workloads() {
				Expect(r.Interfaces).To(Equal([]string{"lo"}), "%s", name)
			}
		})
		It("creates each emptyDir volume, empty, before the first container starts", req(spec.VOL004), func() {
			r := report("app", probe.RoleWorkload)
			Expect(r.Dirs).To(HaveKey("/data"))
			Expect(r.Dirs["/data"]).NotTo(BeNil(), "/data must exist")
			Expect(r.Dirs["/data"]).To(BeEmpty())
		})
		It("mounts an emptyDir with medium Memory as a tmpfs", req(spec.VOL006), func() {
			m := mount(report("app", probe.RoleWorkload), "/mem")
			Expect(m).NotTo(BeNil())
			Expect(m.FSType).To(Equal("tmpfs"))
		})
		It("mounts a volume read-only where the mount says readOnly", req(spec.VOL009), func() {
			r := report("app", probe.RoleWorkload)
			ro, rw := mount(r, "/ro"), mount(r, "/data")
			Expect(ro).NotTo(BeNil())
			Expect(ro.ReadOnly).To(BeTrue(), "/ro")
			Expect(rw.ReadOnly).To(BeFalse(), "/data")
		})
		It("applies the container's cpu, memory and pids limits to its cgroup", req(spec.RES002), func() {
			c := report("app", probe.RoleWorkload).Cgroup
			Expect(c.Version).NotTo(BeZero(), "the container sees its cgroup")
			Expect(c.MemoryBytes).To(BeEquivalentTo(256<<20), "memory limit %+v", c)
			Expect(c.Pids).To(BeEquivalentTo(64), "pids limit %+v", c)
			Expect(c.CPUPeriodMicros).To(BeNumerically(">", 0), "cpu period %+v", c)
			Expect(float64(c.CPUQuotaMicros)/float64(c.CPUPeriodMicros)).To(BeNumerically("~", 0.5, 0.01), "cpu quota %+v", c)
		})
		It("gives a container that sets no pids limit a finite default pids limit", req(spec.RES003), func() {
			for _, name := range []string{"i1", "args"} {
				c := report(name, probe.RoleWorkload).Cgroup
				Expect(c.Version).NotTo(BeZero(), "%s sees its cgroup", name)
				Expect(c.Pids).To(BeNumerically(">", 0), "%s sets no pids limit and got no pids limit (pids.max %d; -1 is max)", name, c.Pids)
			}
		})
		It("runs an exec hook inside the container: its namespaces, cgroup, user and environment", req(spec.HOOK003), func() {
			app, hook := report("app", probe.RoleWorkload), report("app", probe.RoleHook)
			for _, ns := range []string{"mnt", "net", "ipc", "uts", "pid", "cgroup"} {
				Expect(hook.Namespaces[ns]).To(Equal(app.Namespaces[ns]), "%s namespace of the hook and its container", ns)
			}
			Expect(hook.UID).To(Equal(app.UID))
			Expect(hook.Env).To(HaveKeyWithValue(fw.EnvRunID, app.Env[fw.EnvRunID]))
			Expect(hook.Cgroup).To(Equal(app.Cgroup))
		})
		It("starts an instance before its postStart hook", req(spec.HB005), func() {
			tl := get().Timeline
			Expect(tl.Before("app started before its postStart hook", fw.RuntimeEv(runtimev1.EventContainerStarted, "app"), fw.HandlerEvent("app", "postStart", probe.TypeHandlerStart))).To(Succeed())
			// The hook's own report can come after the start even when the runtime began the hook
			// first (an exec takes longer to come up than a start): the runtime's own record of
			// when it began the hook must come after the start too.
			hookStarted := func(e fw.Entry) bool {
				return fw.RuntimeEv(runtimev1.EventHookStarted, "app")(e) && e.Runtime.Hook == "postStart"
			}
			Expect(tl.Before("the runtime began app's postStart hook after app's start", fw.RuntimeEv(runtimev1.EventContainerStarted, "app"), hookStarted)).To(Succeed())
		})
		It("keeps the image's Entrypoint when a container gives only args", req(spec.IMG008), func() {
			r := report("args", probe.RoleWorkload)
			Expect(r.Args).NotTo(BeEmpty())
			Expect(r.Args[0]).To(Equal(fw.ProbePath))
			Expect(slices.Contains(r.Args, "-report")).To(BeTrue(), "the args reached the entrypoint: %q", r.Args)
		})
		It("reports a container without a readiness probe ready once it is started", req(spec.DEP009), func() {
			tl := get().Timeline
			Expect(tl.Before("args Started before Ready", fw.RuntimeEv(runtimev1.EventContainerStarted, "args"), fw.RuntimeEv(runtimev1.EventContainerReady, "args"))).To(Succeed())
			Expect(get().Final.Container("args").Ready).To(BeFalse(), "not ready once it exited\n%s", get().Final)
		})
	})
}
