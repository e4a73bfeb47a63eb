//go:build !mutant_pod_cgroup_left

package mutant

// PodCgroupLeft, when true (build tag mutant_pod_cgroup_left), makes the runtime break a requirement: removing a pod leaves its cgroup directory (the parent of its instances' cgroups) behind (breaks GC-006).
const PodCgroupLeft = false
