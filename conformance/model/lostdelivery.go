package model

import (
	"fmt"

	"podspec.dev/podspec/spec"
)

// checkLostDeliveriesNotRerun: a delivery that was running when the pod's supervisor was lost
// (its NotifierStarted before the crash was issued, its NotifierFinished, if any, after it) is
// not run again: no later NotifierStarted of the same Notification to the same container
// (NTF-012; whether its outcome was observed, and so its record, is not judged here).
func checkLostDeliveriesNotRerun(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		ds := rp.deliveries(c)
		for _, k := range rp.crashes {
			for i, d := range ds {
				if !d.start.Time.Before(k.Issued) || (d.end != nil && d.end.Time.Before(k.Issued)) {
					continue
				}
				for _, again := range ds[i+1:] {
					if again.start.Notification == d.start.Notification && again.start.Time.After(k.Issued) {
						out = append(out, Finding{Rule: spec.NTF012, Seq: again.start.Seq, Container: c.name, Message: fmt.Sprintf(
							"the delivery of Notification %s that ran when the supervisor was lost (#%d, crash issued %s) was run again",
							d.start.Notification, d.start.Seq, k.Issued.Format("15:04:05.000"))})
						break
					}
				}
			}
		}
	}
	return out
}
