package oci

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

func TestSpecDefaults(t *testing.T) {
	s, err := Spec(ContainerConfig{Rootfs: "/r", Args: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Process
	if !p.NoNewPrivileges || p.Terminal {
		t.Errorf("noNewPrivileges=%v terminal=%v, want true/false", p.NoNewPrivileges, p.Terminal)
	}
	for name, set := range map[string][]string{"bounding": p.Capabilities.Bounding, "effective": p.Capabilities.Effective, "permitted": p.Capabilities.Permitted} {
		if !slices.Equal(set, DefaultCapabilities) {
			t.Errorf("%s capabilities = %v, want Docker's %v", name, set, DefaultCapabilities)
		}
	}
	if len(p.Capabilities.Ambient) != 0 || len(p.Capabilities.Inheritable) != 0 {
		t.Errorf("ambient/inheritable capabilities = %v / %v, want none", p.Capabilities.Ambient, p.Capabilities.Inheritable)
	}
	if len(p.Rlimits) != 1 || p.Rlimits[0].Type != "RLIMIT_NOFILE" || p.Rlimits[0].Hard > DefaultNofile {
		t.Errorf("rlimits = %+v, want only RLIMIT_NOFILE <= %d", p.Rlimits, DefaultNofile)
	}
	if p.OOMScoreAdj != nil {
		t.Errorf("oomScoreAdj = %d, want unset", *p.OOMScoreAdj)
	}
	if p.Cwd != "/" || !slices.Contains(p.Env, "PATH="+DefaultPath) {
		t.Errorf("cwd %q env %v: want / and a default PATH", p.Cwd, p.Env)
	}
	if s.Hostname != "" {
		t.Errorf("hostname = %q, want none", s.Hostname)
	}
	if !slices.Equal(s.Linux.MaskedPaths, defaultMaskedPaths) || !slices.Equal(s.Linux.ReadonlyPaths, defaultReadonlyPaths) {
		t.Errorf("masked %v readonly %v, want runc spec's", s.Linux.MaskedPaths, s.Linux.ReadonlyPaths)
	}
	var types []string
	for _, ns := range s.Linux.Namespaces {
		if ns.Path != "" {
			t.Errorf("namespace %s joins %s, want new", ns.Type, ns.Path)
		}
		types = append(types, string(ns.Type))
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"ipc", "mount", "network", "pid", "uts"}) {
		t.Errorf("namespaces = %v", types)
	}
	var dests []string
	for _, m := range s.Mounts {
		dests = append(dests, m.Destination)
	}
	if !slices.Equal(dests, []string{"/proc", "/dev", "/dev/pts", "/dev/shm", "/dev/mqueue", "/sys", "/sys/fs/cgroup"}) {
		t.Errorf("mounts = %v, want runc spec's", dests)
	}
	if s.Linux.Seccomp == nil {
		t.Fatalf("no seccomp profile")
	}
}

// ruleFor returns the action and errno of the first rule of profile that names syscall without
// argument conditions, and whether there is one.
func ruleFor(profile *specs.LinuxSeccomp, syscall string) (specs.LinuxSeccompAction, uint, bool) {
	for _, r := range profile.Syscalls {
		if slices.Contains(r.Names, syscall) && len(r.Args) == 0 {
			var errno uint
			if r.ErrnoRet != nil {
				errno = *r.ErrnoRet
			}
			return r.Action, errno, true
		}
	}
	return "", 0, false
}

func TestSEC012_SEC013_SeccompAllowsTheNewerCallsAndFailsWhatItDoesNotNameWithENOSYS(t *testing.T) {
	s, err := Spec(ContainerConfig{Rootfs: "/r", Args: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Linux.Seccomp
	if p.DefaultAction != specs.ActErrno || p.DefaultErrnoRet == nil || *p.DefaultErrnoRet != uint(unix.ENOSYS) {
		t.Fatalf("default action %s errno %v, want SCMP_ACT_ERRNO with ENOSYS", p.DefaultAction, p.DefaultErrnoRet)
	}
	for _, tc := range []struct {
		syscall string
		action  specs.LinuxSeccompAction
		errno   uint
	}{
		// What glibc 2.34+ and current programs call first (SEC-010, SEC-013).
		{"faccessat2", specs.ActAllow, 0},
		{"close_range", specs.ActAllow, 0},
		{"openat2", specs.ActAllow, 0},
		{"clone3", specs.ActErrno, uint(unix.ENOSYS)}, // moby's rule: glibc falls back to clone
		// What a process that drops privileges calls (SEC-011).
		{"setuid", specs.ActAllow, 0},
		{"setgroups", specs.ActAllow, 0},
		{"chown", specs.ActAllow, 0},
		// Named by moby's profile, not allowed without CAP_SYS_ADMIN / CAP_SYS_BOOT /
		// CAP_SYS_MODULE: the call exists, the container may not make it.
		{"mount", specs.ActErrno, uint(unix.EPERM)},
		{"unshare", specs.ActErrno, uint(unix.EPERM)},
		{"reboot", specs.ActErrno, uint(unix.EPERM)},
		{"init_module", specs.ActErrno, uint(unix.EPERM)},
	} {
		action, errno, ok := ruleFor(p, tc.syscall)
		if !ok || action != tc.action || errno != tc.errno {
			t.Errorf("%s: rule %v action %q errno %d, want %q errno %d", tc.syscall, ok, action, errno, tc.action, tc.errno)
		}
	}
}

func TestSeccompFollowsTheBoundingSet(t *testing.T) {
	s, err := Spec(ContainerConfig{Rootfs: "/r", Args: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if action, _, ok := ruleFor(s.Linux.Seccomp, "chroot"); !ok || action != specs.ActAllow {
		t.Errorf("chroot: %q, want allowed with CAP_SYS_CHROOT in the bounding set", action)
	}
	s.Process.Capabilities.Bounding = slices.DeleteFunc(slices.Clone(s.Process.Capabilities.Bounding), func(c string) bool { return c == "CAP_SYS_CHROOT" })
	p, err := defaultSeccomp(s)
	if err != nil {
		t.Fatal(err)
	}
	if action, errno, ok := ruleFor(p, "chroot"); !ok || action != specs.ActErrno || errno != uint(unix.EPERM) {
		t.Errorf("chroot without CAP_SYS_CHROOT: %q errno %d, want EPERM", action, errno)
	}
}

func TestSeccompSourceIsGoModsVersion(t *testing.T) {
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "github.com/moby/profiles/seccomp" {
			if want := f[0] + " " + f[1]; SeccompSource != want {
				t.Fatalf("SeccompSource = %q, but go.mod requires %q: update it, docs/runtime.md and its table of defaults", SeccompSource, want)
			}
			return
		}
	}
	t.Fatal("go.mod does not require github.com/moby/profiles/seccomp")
}

func TestNonRootProcessHasOnlyTheBoundingSet(t *testing.T) {
	s, err := Spec(ContainerConfig{Rootfs: "/r", Args: []string{"sh"}, UID: 1000, GID: 1000})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Process.Capabilities
	if !slices.Equal(c.Bounding, DefaultCapabilities) || len(c.Effective) != 0 || len(c.Permitted) != 0 {
		t.Errorf("capabilities of UID 1000 = %+v, want the default bounding set and nothing effective or permitted", c)
	}
}

func TestSpecTranslatesTheConfig(t *testing.T) {
	s, err := Spec(ContainerConfig{
		Rootfs: "/r", Args: []string{"app", "-x"}, Env: []string{"PATH=/bin", "A=b"}, Cwd: "/work",
		UID: 1000, GID: 1001, AdditionalGids: []uint32{5},
		JoinNamespaces: map[string]string{NamespaceNetwork: "/pin/net", NamespaceUTS: "/pin/uts"},
		CgroupsPath:    "/podspec/uid/c1",
		Resources:      Resources{CPURequestMilli: 250, CPULimitMilli: 1500, MemoryLimitBytes: 1 << 20, PidsLimit: 10},
		Mounts:         []Mount{{Source: "/host/data", Destination: "/data", ReadOnly: true}, {Source: "/host/rw", Destination: "/rw"}},
		OOMScoreAdj:    500,
		Annotations:    map[string]string{"podspec.dev/pod": "p"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Process.Env, []string{"PATH=/bin", "A=b"}) || s.Process.Cwd != "/work" {
		t.Errorf("env %v cwd %s", s.Process.Env, s.Process.Cwd)
	}
	if u := s.Process.User; u.UID != 1000 || u.GID != 1001 || !slices.Equal(u.AdditionalGids, []uint32{5}) {
		t.Errorf("user = %+v", u)
	}
	paths := map[specs.LinuxNamespaceType]string{}
	for _, ns := range s.Linux.Namespaces {
		paths[ns.Type] = ns.Path
	}
	if paths[specs.NetworkNamespace] != "/pin/net" || paths[specs.UTSNamespace] != "/pin/uts" || paths[specs.IPCNamespace] != "" || paths[specs.MountNamespace] != "" {
		t.Errorf("namespaces = %v", paths)
	}
	r := s.Linux.Resources
	if *r.CPU.Shares != 256 || *r.CPU.Quota != 150000 || *r.CPU.Period != CPUPeriod || *r.Memory.Limit != 1<<20 || *r.Pids.Limit != 10 {
		t.Errorf("resources = cpu %+v memory %+v pids %+v", r.CPU, r.Memory, r.Pids)
	}
	if s.Linux.CgroupsPath != "/podspec/uid/c1" || *s.Process.OOMScoreAdj != 500 || s.Annotations["podspec.dev/pod"] != "p" {
		t.Errorf("cgroupsPath %s oom %d annotations %v", s.Linux.CgroupsPath, *s.Process.OOMScoreAdj, s.Annotations)
	}
	last := s.Mounts[len(s.Mounts)-2:]
	if last[0].Destination != "/data" || !slices.Contains(last[0].Options, "ro") || slices.Contains(last[1].Options, "ro") || last[1].Type != "bind" {
		t.Errorf("volume mounts = %+v", last)
	}
	if slices.Contains(last[0].Options, "rro") {
		t.Errorf("read-only mount without a RecursiveReadOnly option got rro: %+v", last[0])
	}
	s, err = Spec(ContainerConfig{Rootfs: "/r", Args: []string{"app"}, RecursiveReadOnly: "rro",
		Mounts: []Mount{{Source: "/host/data", Destination: "/data", ReadOnly: true}, {Source: "/host/rw", Destination: "/rw"}}})
	if err != nil {
		t.Fatal(err)
	}
	last = s.Mounts[len(s.Mounts)-2:]
	if !slices.Contains(last[0].Options, "ro") || !slices.Contains(last[0].Options, "rro") || slices.Contains(last[1].Options, "rro") {
		t.Errorf("with RecursiveReadOnly rro, volume mounts = %+v; want ro and rro on the read-only one only", last)
	}
}

func TestSpecRejects(t *testing.T) {
	base := func() ContainerConfig { return ContainerConfig{Rootfs: "/r", Args: []string{"sh"}} }
	cases := []struct {
		name   string
		mutate func(*ContainerConfig)
		want   string
	}{
		{"a hostname while joining the pod's UTS namespace", func(c *ContainerConfig) {
			c.Hostname = "x"
			c.JoinNamespaces = map[string]string{NamespaceUTS: "/proc/1/ns/uts"}
		}, "rename the whole pod"},
		{"a negative oomScoreAdj", func(c *ContainerConfig) { c.OOMScoreAdj = -998 }, "negative"},
		{"a missing rootfs", func(c *ContainerConfig) { c.Rootfs = "" }, "rootfs"},
		{"missing args", func(c *ContainerConfig) { c.Args = nil }, "args"},
		{"a relative working directory", func(c *ContainerConfig) { c.Cwd = "tmp" }, "not absolute"},
		{"a relative volume source", func(c *ContainerConfig) { c.Mounts = []Mount{{Source: "x", Destination: "/x"}} }, "absolute"},
		{"an unclean cgroups path", func(c *ContainerConfig) { c.CgroupsPath = "/a/../b" }, "clean"},
		{"joining a mount namespace", func(c *ContainerConfig) { c.JoinNamespaces = map[string]string{"mount": "/x"} }, "not supported"},
		{"a negative memory limit", func(c *ContainerConfig) { c.Resources.MemoryLimitBytes = -1 }, "negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.mutate(&c)
			_, err := Spec(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestCPUConversions(t *testing.T) {
	cases := []struct {
		name   string
		milli  int64
		shares uint64
		quota  int64
	}{
		{"one CPU is 1024 shares and a full period", 1000, 1024, 100000},
		{"half a CPU", 500, 512, 50000},
		{"one millicore is clamped to the minimums", 1, 2, 1000},
		{"two and a half CPUs", 2500, 2560, 250000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := CPUShares(tc.milli); got != tc.shares {
				t.Errorf("CPUShares(%d) = %d, want %d", tc.milli, got, tc.shares)
			}
			if got := CPUQuota(tc.milli); got != tc.quota {
				t.Errorf("CPUQuota(%d) = %d, want %d", tc.milli, got, tc.quota)
			}
		})
	}
}

func TestWriteBundleWritesConfigJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	if err := WriteBundle(dir, ContainerConfig{Rootfs: "rootfs", Args: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s specs.Spec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Root.Path != "rootfs" || s.Process.Args[0] != "true" {
		t.Fatalf("config = root %+v args %v", s.Root, s.Process.Args)
	}
	// The file holds the whole of Spec's configuration, field for field.
	want, err := Spec(ContainerConfig{Rootfs: "rootfs", Args: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(s)
	if string(gb) != string(wb) {
		t.Fatalf("config.json decodes to\n%s\nwant Spec's\n%s", gb, wb)
	}
	if err := WriteBundle(dir, ContainerConfig{Rootfs: "rootfs"}); err == nil {
		t.Fatal("WriteBundle without args succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("bundle dir holds %d entries, want only config.json", len(entries))
	}
}

func TestValidateID(t *testing.T) {
	cases := []struct {
		name, id string
		ok       bool
	}{
		{"a typical instance id is valid", "d8437e7288cb-a-0", true},
		{"dots, plus and underscores are valid", "a.b+c_d", true},
		{"a slash is rejected", "a/b", false},
		{"dot-dot is rejected", "..", false},
		{"an empty id is rejected", "", false},
		{"a space is rejected", "a b", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := ValidateID(tc.id); (err == nil) != tc.ok {
				t.Fatalf("ValidateID(%q) = %v, want ok=%v", tc.id, err, tc.ok)
			}
		})
	}
}

func TestTheSharedDefaultProfileIsTheOneDefaultSeccompMakes(t *testing.T) {
	s, err := Spec(ContainerConfig{Rootfs: "/r", Args: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := defaultSeccomp(s)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(s.Linux.Seccomp)
	b, _ := json.Marshal(fresh)
	if string(a) != string(b) {
		t.Errorf("the shared profile for the default capabilities differs from defaultSeccomp's:\n%s\n%s", a, b)
	}
}

func TestSEC024_CapDropThenCapAdd(t *testing.T) {
	for _, c := range []struct {
		name      string
		drop, add []string
		want      []string
	}{
		{"nothing changed is the default set", nil, nil, DefaultCapabilities},
		{"drop ALL leaves nothing", []string{"ALL"}, nil, nil},
		{"drop ALL then add one", []string{"ALL"}, []string{"CAP_NET_BIND_SERVICE"}, []string{"CAP_NET_BIND_SERVICE"}},
		{"a dropped and added one stays", []string{"CAP_CHOWN", "CAP_KILL"}, []string{"CAP_CHOWN"},
			slices.DeleteFunc(slices.Clone(DefaultCapabilities), func(c string) bool { return c == "CAP_KILL" })},
		{"dropping one the set lacks changes nothing", []string{"CAP_SYS_ADMIN"}, nil, DefaultCapabilities},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Capabilities(c.drop, c.add); !slices.Equal(got, c.want) {
				t.Errorf("Capabilities(%q, %q) = %q, want %q", c.drop, c.add, got, c.want)
			}
		})
	}
	s, err := Spec(ContainerConfig{Rootfs: "/r", Args: []string{"sh"}, CapDrop: []string{"ALL"}, CapAdd: []string{"CAP_CHOWN"}, RootfsReadonly: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CAP_CHOWN"}
	if c := s.Process.Capabilities; !slices.Equal(c.Bounding, want) || !slices.Equal(c.Effective, want) || !slices.Equal(c.Permitted, want) || len(c.Ambient) != 0 || len(c.Inheritable) != 0 {
		t.Errorf("capabilities of root after drop ALL, add CHOWN = %+v, want CAP_CHOWN bounding, effective and permitted", c)
	}
	if !s.Root.Readonly {
		t.Error("root not read-only with RootfsReadonly")
	}
	if action, _, ok := ruleFor(s.Linux.Seccomp, "chroot"); ok && action == specs.ActAllow {
		t.Error("chroot allowed by seccomp without CAP_SYS_CHROOT: the profile does not follow the changed set")
	}
}
