//go:build mutant_host_resolv_conf

package mutant

// HostResolvConf is true in the mutant build mutant_host_resolv_conf: every container gets the host's /etc/resolv.conf bound read-only at /etc/resolv.conf, as container engines do for networking, though no volume names it (breaks SEC-006).
const HostResolvConf = true
