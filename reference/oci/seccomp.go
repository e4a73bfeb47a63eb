package oci

import (
	"fmt"
	"slices"
	"sync"

	mobyseccomp "github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// SeccompSource names where the default seccomp profile's rules come from: moby's default
// profile, the one Docker applies, as the Go module github.com/moby/profiles/seccomp. The
// version is go.mod's; TestSeccompSourceIsGoModsVersion keeps this name in step with it.
const SeccompSource = "github.com/moby/profiles/seccomp v0.3.0"

// defaultCapabilitiesSeccomp is defaultSeccomp for a bounding set of DefaultCapabilities,
// computed once per process: the profile depends only on the bounding set, the architecture and
// the kernel, and building it (moby's profile twice, evaluated) took longer than the rest of
// Spec. Spec shares the result between configurations, which only read it.
var defaultCapabilitiesSeccomp = sync.OnceValues(func() (*specs.LinuxSeccomp, error) {
	return defaultSeccomp(&specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{Bounding: DefaultCapabilities}}})
})

// seccompFor returns the seccomp profile of a container whose process spec s holds its
// capabilities: the shared one for the default bounding set, a new one otherwise.
func seccompFor(s *specs.Spec) (*specs.LinuxSeccomp, error) {
	if slices.Equal(s.Process.Capabilities.Bounding, DefaultCapabilities) {
		return defaultCapabilitiesSeccomp()
	}
	return defaultSeccomp(s)
}

// defaultSeccomp returns the seccomp profile of a container whose process spec s already holds
// its capabilities. Its rules are moby's default profile for those capabilities, this
// architecture and this kernel (SeccompSource: the system calls Docker allows, clone3 answered
// with ENOSYS unless CAP_SYS_ADMIN is granted, socket families and clone flags restricted as
// Docker restricts them). Two things differ, both as containers-common's profile (podman's)
// does them:
//
//   - a system call the profile does not name, and a call that matches none of the rules of
//     the system call it names (an argument outside what is allowed), fails with ENOSYS, not
//     EPERM: a program that calls something newer than the profile falls back to the older
//     call, as glibc 2.34 and later do only on ENOSYS (SEC-012);
//   - a system call moby's profile names but does not allow for these capabilities (mount
//     without CAP_SYS_ADMIN, reboot without CAP_SYS_BOOT, ...) keeps failing with EPERM, by
//     one rule that lists them: the call exists, the container may not make it.
//
// OCI runtimes skip names their seccomp library does not know (runc, crun), so the profile
// may name calls newer than the host's libseccomp.
func defaultSeccomp(s *specs.Spec) (*specs.LinuxSeccomp, error) {
	profile, err := mobyseccomp.GetDefaultProfile(s)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile from %s: %w", SeccompSource, err)
	}
	granted := map[string]bool{}
	for _, rule := range profile.Syscalls {
		for _, name := range rule.Names {
			granted[name] = true
		}
	}
	var denied []string
	for _, rule := range mobyseccomp.DefaultProfile().Syscalls {
		for _, name := range rule.Names {
			if !granted[name] {
				granted[name] = true // listed once
				denied = append(denied, name)
			}
		}
	}
	slices.Sort(denied)
	if len(denied) > 0 {
		eperm := uint(unix.EPERM)
		profile.Syscalls = append(profile.Syscalls, specs.LinuxSyscall{
			Names: denied, Action: specs.ActErrno, ErrnoRet: &eperm,
		})
	}
	enosys := uint(unix.ENOSYS)
	profile.DefaultAction = specs.ActErrno
	profile.DefaultErrnoRet = &enosys
	return profile, nil
}
