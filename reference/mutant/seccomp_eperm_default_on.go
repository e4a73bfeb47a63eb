//go:build mutant_seccomp_eperm_default

package mutant

// SeccompEPERMDefault is true in the mutant build mutant_seccomp_eperm_default: containers get moby's default seccomp profile unchanged, whose default action fails a system call it does not name with EPERM instead of ENOSYS (breaks SEC-012).
const SeccompEPERMDefault = true
