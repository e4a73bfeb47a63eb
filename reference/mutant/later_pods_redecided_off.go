//go:build !mutant_later_pods_redecided

package mutant

// LaterPodsRedecided, when true (build tag mutant_later_pods_redecided), makes the runtime break a requirement: an AllPods Notification decides a pod created after it again at every look until the pod matches, so a pod that gets the selector's labels by an update becomes a target (breaks NOTIF-002).
const LaterPodsRedecided = false
