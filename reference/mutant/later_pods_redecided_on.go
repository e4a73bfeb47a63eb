//go:build mutant_later_pods_redecided

package mutant

// LaterPodsRedecided is true in the mutant build mutant_later_pods_redecided: an AllPods Notification decides a pod created after it again at every look until the pod matches, so a pod that gets the selector's labels by an update becomes a target (breaks NOTIF-002).
const LaterPodsRedecided = true
