package oci

// mutantRuncCapabilities is the capability set of the mutant build mutant_runc_capabilities
// (package reference/mutant): `runc spec`'s three, the reference's default until it took
// Docker's 14, with which a program that starts as root can neither chown nor drop to its own
// user. Used only in a branch guarded by the mutant switch.
var mutantRuncCapabilities = []string{"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"}
