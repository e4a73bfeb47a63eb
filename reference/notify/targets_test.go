package notify

import (
	"fmt"
	"testing"
	"time"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/store"
)

// NOTIF-002: an AllPods Notification decides a pod created after it from the labels the pod was
// created with. A pod relabelled by an update is not a target if it did not match at creation,
// and stays one if it did; the state keeps the creation labels through an update's writes.
func TestAPodCreatedLaterIsDecidedFromItsCreationLabels(t *testing.T) {
	s, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := &Object{CreatedAt: time.Now().Add(-time.Minute), Notification: v1alpha1.Notification{Spec: v1alpha1.NotificationSpec{
		Notifier: "n", TargetPolicy: v1alpha1.AllPods,
		Selector: &v1alpha1.LabelSelector{MatchLabels: map[string]string{"role": "target"}},
	}}}
	cases := []struct {
		name            string
		created, update map[string]string
		want            bool
	}{
		{"relabelled to match", map[string]string{"role": "other"}, map[string]string{"role": "target"}, false},
		{"created without labels, relabelled to match", nil, map[string]string{"role": "target"}, false},
		{"relabelled not to match", map[string]string{"role": "target"}, map[string]string{"role": "other"}, true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("p%d", i)
			p, err := s.CreatePod(&v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Name: name, Labels: c.created}}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := p.ReadState()
			if err != nil {
				t.Fatal(err)
			}
			st.Pod.Metadata.Labels = c.update // what an in-place update of the labels writes
			if err := p.WriteState(st); err != nil {
				t.Fatal(err)
			}
			pi, err := ReadPod(s, name)
			if err != nil {
				t.Fatal(err)
			}
			if got := TargetsLater(o, *pi); got != c.want {
				t.Errorf("TargetsLater = %v, want %v (created with %v, now %v)", got, c.want, c.created, pi.Labels)
			}
		})
	}
	// A state written before CreationLabels existed: the current labels decide.
	st := &store.State{Pod: v1alpha1.Pod{Metadata: v1alpha1.ObjectMeta{Labels: map[string]string{"role": "target"}}}}
	if got := st.LabelsAtCreation(); got["role"] != "target" {
		t.Errorf("LabelsAtCreation of an old state = %v, want its current labels", got)
	}
}
