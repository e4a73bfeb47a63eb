//go:build mutant_allpods_skips_later_pods

package mutant

// AllPodsSkipsLaterPods is true in the mutant build mutant_allpods_skips_later_pods: an AllPods Notification targets no pod created after it (breaks NOTIF-004).
const AllPodsSkipsLaterPods = true
