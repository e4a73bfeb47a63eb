//go:build !mutant_seccomp_runtime_tools_profile

package mutant

// SeccompRuntimeToolsProfile, when true (build tag mutant_seccomp_runtime_tools_profile), makes the runtime break a requirement: containers get runtime-tools' default seccomp profile, the reference's until it took moby's: EPERM for every system call it does not name, clone3, faccessat2, close_range and openat2 among them (breaks SEC-010, SEC-012, SEC-013).
const SeccompRuntimeToolsProfile = false
