//go:build mutant_pod_cgroup_left

package mutant

// PodCgroupLeft is true in the mutant build mutant_pod_cgroup_left: removing a pod leaves its cgroup directory (the parent of its instances' cgroups) behind (breaks GC-006).
const PodCgroupLeft = true
