package model

import (
	"maps"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
)

// life is a pod the harness created, run issued at ms and returned 50 ms later, with labels role.
func life(name string, ms int, role string) PodLife {
	return PodLife{Name: name, UID: "uid-" + name, Labels: map[string]string{"role": role}, Run: at(ms), Ran: at(ms + 50)}
}

// relabelled is l with an accepted update that gives it the label role, issued at ms.
func relabelled(l PodLife, ms int, role string) PodLife {
	labels := maps.Clone(l.Labels)
	labels["role"] = role
	l.Updates = append(l.Updates, Update{Issued: at(ms), Returned: at(ms + 50), Accepted: true,
		Pod: &v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: l.Name, Labels: labels}}})
	return l
}

// targeted is pod p (labels role=t, created before 0) delivered Notification n of x (created
// 900..950 ms with spec s) in a and c, read once at 4 s with p's record and the others given;
// lives are the pods the harness created beside p.
func targeted(s v1alpha1.NotificationSpec, others []v1alpha1.PodNotificationRecord, lives ...PodLife) *hist {
	return ntfPod(func(h *hist) *hist {
		h.pod.Metadata.Labels = map[string]string{"role": "t"}
		p := rec(ok, "", dlv("a", ok, ""), dlv("c", ok, ""))
		p.Pod, p.PodUID = "p", "uid-p"
		v := NotificationView{Read: at(4000), Records: append([]v1alpha1.PodNotificationRecord{p}, others...)}
		t := countsOf(v.Records)
		v.Status = v1alpha1.NotificationStatus{Phase: ok, Targets: t[0], Pending: t[1], Running: t[2], Succeeded: t[3], Failed: t[4], Skipped: t[5]}
		if s.TargetPolicy == v1alpha1.AllPods {
			v.Status.Phase = v1alpha1.NotificationRunning
		}
		s.Notifier = "x"
		h.notes = append(h.notes, Notification{Name: "n", Spec: s, Issued: at(900), Returned: at(950), Views: []NotificationView{v}})
		h.lives = append([]PodLife{life("p", -1000, "t")}, lives...)
		return h.deliver(1000, 300, "a", "x", "n").deliver(1000, 300, "c", "x", "n").handler("a", "x", 1010, 1200, 0)
	})
}

// other is the final record of a pod q without deliveries.
func other(pod, uid string, phase v1alpha1.NotificationPhase, reason string) v1alpha1.PodNotificationRecord {
	return v1alpha1.PodNotificationRecord{Pod: pod, PodUID: uid, Phase: phase, Reason: reason, Containers: []v1alpha1.ContainerDelivery{}}
}

func targetCases() []modelCase {
	named := v1alpha1.NotificationSpec{Pods: []string{"p", "gone"}}
	sel := &v1alpha1.LabelSelector{MatchLabels: map[string]string{"role": "t"}}
	pre := v1alpha1.NotificationSpec{Selector: sel}
	all := v1alpha1.NotificationSpec{Selector: sel, TargetPolicy: v1alpha1.AllPods}
	notFound := other("gone", "", skipped, v1alpha1.ReasonPodNotFound)
	return []modelCase{
		{"a name in spec.pods that names no pod, recorded Skipped PodNotFound, conforms", targeted(named, []v1alpha1.PodNotificationRecord{notFound}), nil},
		{"a name of a pod created after the Notification, recorded Skipped PodNotFound, conforms",
			targeted(named, []v1alpha1.PodNotificationRecord{notFound}, life("gone", 2000, "t")), nil},
		{"a name in spec.pods that names no pod without a record breaks NOTIF-005", targeted(named, nil), []string{spec.NOTIF005}},
		{"a name of a pod created later recorded with its UID breaks NOTIF-005",
			targeted(named, []v1alpha1.PodNotificationRecord{other("gone", "uid-gone", ok, "")}, life("gone", 2000, "t")), []string{spec.NOTIF005}},
		{"a named pod that existed recorded PodNotFound breaks NOTIF-003",
			targeted(named, []v1alpha1.PodNotificationRecord{notFound}, life("gone", -500, "t")), []string{spec.NOTIF003}},
		{"a selector's targets that exist and match conform",
			targeted(pre, []v1alpha1.PodNotificationRecord{other("q", "uid-q", ok, "")}, life("q", -500, "t"), life("r", -400, "b")), nil},
		{"a PreExistingPods target whose labels did not match breaks NOTIF-003",
			targeted(pre, []v1alpha1.PodNotificationRecord{other("r", "uid-r", ok, "")}, life("r", -400, "b")), []string{spec.NOTIF003}},
		{"a pod that existed and matched without a record breaks NOTIF-003", targeted(pre, nil, life("q", -500, "t")), []string{spec.NOTIF003}},
		{"a matching pod created after a PreExistingPods Notification, no target, conforms", targeted(pre, nil, life("q", 2000, "t")), nil},
		{"a matching pod created after a PreExistingPods Notification, a target, breaks NOTIF-003",
			targeted(pre, []v1alpha1.PodNotificationRecord{other("q", "uid-q", ok, "")}, life("q", 2000, "t")), []string{spec.NOTIF003}},
		{"a matching pod created after an AllPods Notification, a target, conforms",
			targeted(all, []v1alpha1.PodNotificationRecord{other("q", "uid-q", ok, "")}, life("q", 2000, "t")), nil},
		{"a matching pod created after an AllPods Notification without a record breaks NOTIF-004", targeted(all, nil, life("q", 2000, "t")), []string{spec.NOTIF004}},
		{"a matching pod created just before the read, without a record yet, conforms", targeted(all, nil, life("q", 3500, "t")), nil},
		{"a pod relabelled to match after its creation, no target, conforms", targeted(all, nil, relabelled(life("q", 2000, "b"), 3000, "t")), nil},
		{"a pod relabelled to match after its creation, a target, breaks NOTIF-002",
			targeted(all, []v1alpha1.PodNotificationRecord{other("q", "uid-q", ok, "")}, relabelled(life("q", 2000, "b"), 3000, "t")), []string{spec.NOTIF002}},
		{"a pod relabelled while the Notification was created, a target, conforms",
			targeted(all, []v1alpha1.PodNotificationRecord{other("q", "uid-q", ok, "")}, relabelled(life("q", -500, "b"), 920, "t")), nil},
	}
}
