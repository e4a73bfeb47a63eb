//go:build !mutant_allpods_skips_later_pods

package mutant

// AllPodsSkipsLaterPods, when true (build tag mutant_allpods_skips_later_pods), makes the runtime break a requirement: an AllPods Notification targets no pod created after it (breaks NOTIF-004).
const AllPodsSkipsLaterPods = false
