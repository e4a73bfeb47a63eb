package framework

// The driver of the notifier profile's verbs (docs/runtime-interface.md 4.12): notify,
// notification status|results|rm, decoded into the API types; and the Framework's bookkeeping of
// the Notifications a run created, so that none outlives the run.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
)

// Notify runs `notify MANIFEST` and decodes the Notification it prints. The raw result is
// returned for refusals (err is then a *CommandError).
func (r *Runtime) Notify(ctx context.Context, manifest string) (*v1alpha1.Notification, *Result, error) {
	var n v1alpha1.Notification
	res, err := r.mustJSON(ctx, &n, "notify", manifest)
	return &n, res, err
}

// NotifyPod runs the shorthand `notify POD NOTIFIER`.
func (r *Runtime) NotifyPod(ctx context.Context, pod, notifier string) (*v1alpha1.Notification, *Result, error) {
	var n v1alpha1.Notification
	res, err := r.mustJSON(ctx, &n, "notify", pod, notifier)
	return &n, res, err
}

// NotificationStatus runs `notification status NAME`.
func (r *Runtime) NotificationStatus(ctx context.Context, name string) (*v1alpha1.NotificationStatus, error) {
	var st v1alpha1.NotificationStatus
	_, err := r.mustJSON(ctx, &st, "notification", "status", name)
	return &st, err
}

// NotificationResults runs `notification results NAME`: one record per target pod.
func (r *Runtime) NotificationResults(ctx context.Context, name string) ([]v1alpha1.PodNotificationRecord, error) {
	var recs []v1alpha1.PodNotificationRecord
	_, err := r.mustJSON(ctx, &recs, "notification", "results", name)
	return recs, err
}

// NotificationRemove runs `notification rm NAME` and returns the raw result (NotFound is exit 4).
func (r *Runtime) NotificationRemove(ctx context.Context, name string) (*Result, error) {
	return r.exec(ctx, nil, "notification", "rm", name)
}

// FinalNotification reports whether a Notification or delivery phase is final.
func FinalNotification(p v1alpha1.NotificationPhase) bool {
	switch p {
	case v1alpha1.NotificationSucceeded, v1alpha1.NotificationFailed, v1alpha1.NotificationSkipped:
		return true
	}
	return false
}

// Labels every test pod can carry (PodBuilder.TestLabels), so that a Notification's selector
// matches the pods of one test of one run and nothing else in the runtime's root.
const (
	LabelRun  = "conformance.podspec.dev/run"
	LabelTest = "conformance.podspec.dev/test"
)

// TestLabels labels the pod with the run ID and test, plus extra labels.
func (b *PodBuilder) TestLabels(test string, extra map[string]string) *PodBuilder {
	b.envMutate = append(b.envMutate, func(p *v1alpha1.Pod, env BuildEnv) {
		if p.Metadata.Labels == nil {
			p.Metadata.Labels = map[string]string{}
		}
		for k, v := range extra {
			p.Metadata.Labels[k] = v
		}
		p.Metadata.Labels[LabelTest] = test
		p.Metadata.Labels[LabelRun] = env.RunID
	})
	return b
}

// TestSelector selects the pods of one test of this run carrying the extra labels too.
func (f *Framework) TestSelector(test string, extra map[string]string) *v1alpha1.LabelSelector {
	m := map[string]string{LabelRun: f.cfg.RunID, LabelTest: test}
	for k, v := range extra {
		m[k] = v
	}
	return &v1alpha1.LabelSelector{MatchLabels: m}
}

// Notify writes a Notification named after short (namespaced by the run ID), runs `notify` and
// remembers it for RemoveNotifications.
func (f *Framework) Notify(ctx context.Context, short string, spec v1alpha1.NotificationSpec) (*v1alpha1.Notification, error) {
	n := v1alpha1.Notification{
		TypeMeta: v1alpha1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: v1alpha1.KindNotification},
		Metadata: v1alpha1.ObjectMeta{Name: f.PodName(short)},
		Spec:     spec,
	}
	data, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode notification: %w", err)
	}
	path := filepath.Join(f.cfg.WorkDir, "n", short+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create notification directory: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, fmt.Errorf("write notification: %w", err)
	}
	f.remember(n.Metadata.Name)
	issued := time.Now()
	out, _, err := f.RT.Notify(ctx, path)
	if err == nil {
		f.logNotification(n.Metadata.Name, spec, issued, time.Now())
	}
	return out, err
}

// NotifyPod runs `notify POD NOTIFIER` and remembers the Notification it created.
func (f *Framework) NotifyPod(ctx context.Context, p *Pod, notifier string) (*v1alpha1.Notification, error) {
	issued := time.Now()
	out, _, err := f.RT.NotifyPod(ctx, p.Name, notifier)
	if err != nil {
		return nil, err
	}
	if out.Metadata.Name == "" {
		return out, fmt.Errorf("notify %s %s printed a Notification without a name", p.Name, notifier)
	}
	f.remember(out.Metadata.Name)
	f.logNotification(out.Metadata.Name, out.Spec, issued, time.Now())
	return out, nil
}

// NotificationLog is what the run created and read of one Notification: its spec, when `notify`
// was issued (the Notification did not exist before) and returned (it existed after), every read
// of it, in read order, and when `notification rm` was issued and returned, if the run removed it.
type NotificationLog struct {
	Name              string
	Spec              v1alpha1.NotificationSpec
	Issued, Returned  time.Time
	Views             []NotificationView
	Removing, Removed time.Time
}

// logNotification starts the log of a Notification the run created.
func (f *Framework) logNotification(name string, spec v1alpha1.NotificationSpec, issued, returned time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.notified == nil {
		f.notified = map[string]*NotificationLog{}
	}
	f.notified[name] = &NotificationLog{Name: name, Spec: spec, Issued: issued, Returned: returned}
}

// Notified is a copy of the log of every Notification the run created whose spec.pods names
// the pod, whose reads hold a record of it, or that selects its pods by labels (the lifecycle
// model decides whether the selector matches the pod's labels, as submitted or updated).
func (f *Framework) Notified(pod string) []NotificationLog {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []NotificationLog
	for _, l := range f.notified {
		if l.about(pod) {
			c := *l
			c.Views = append([]NotificationView(nil), l.Views...)
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Issued.Before(out[j].Issued) })
	return out
}

func (l *NotificationLog) about(pod string) bool {
	if l.Spec.Selector != nil || slices.Contains(l.Spec.Pods, pod) {
		return true
	}
	for i := range l.Views {
		if l.Views[i].Record(pod) != nil {
			return true
		}
	}
	return false
}

func (f *Framework) remember(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.notifications == nil {
		f.notifications = map[string]bool{}
	}
	f.notifications[name] = true
}

// RemoveNotification runs `notification rm NAME`; a Notification already gone is not an error.
func (f *Framework) RemoveNotification(ctx context.Context, name string) error {
	issued := time.Now()
	res, err := f.RT.NotificationRemove(ctx, name)
	if err != nil {
		return err
	}
	if res.ExitCode != runtimev1.ExitOK && res.ExitCode != runtimev1.ExitNotFound {
		return &CommandError{Result: res}
	}
	f.mu.Lock()
	delete(f.notifications, name)
	if l := f.notified[name]; l != nil && res.ExitCode == runtimev1.ExitOK {
		l.Removing, l.Removed = issued, time.Now()
	}
	f.mu.Unlock()
	return nil
}

// RemoveNotifications deletes every Notification the run created and has not deleted yet, with
// a context detached from ctx (see CleanupTimeout).
func (f *Framework) RemoveNotifications(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
	defer cancel()
	f.mu.Lock()
	names := make([]string, 0, len(f.notifications))
	for n := range f.notifications {
		names = append(names, n)
	}
	f.mu.Unlock()
	var errs []error
	for _, n := range names {
		if err := f.RemoveNotification(ctx, n); err != nil {
			errs = append(errs, fmt.Errorf("remove notification %s: %w", n, err))
		}
	}
	return errors.Join(errs...)
}

// NotificationView is a Notification's status and pod records read one after the other,
// beginning at Read.
type NotificationView struct {
	Name    string
	Read    time.Time
	Status  *v1alpha1.NotificationStatus
	Records []v1alpha1.PodNotificationRecord
}

// Record returns the pod record of a pod, or nil.
func (v *NotificationView) Record(pod string) *v1alpha1.PodNotificationRecord {
	for i := range v.Records {
		if v.Records[i].Pod == pod {
			return &v.Records[i]
		}
	}
	return nil
}

// Delivery returns a container's delivery in the record of a pod, or nil.
func (v *NotificationView) Delivery(pod, container string) *v1alpha1.ContainerDelivery {
	r := v.Record(pod)
	if r == nil {
		return nil
	}
	for i := range r.Containers {
		if r.Containers[i].Name == container {
			return &r.Containers[i]
		}
	}
	return nil
}

// String renders the view for failure messages.
func (v *NotificationView) String() string {
	if v == nil {
		return "<no notification>"
	}
	b, err := json.MarshalIndent(struct {
		Name    string                           `json:"name"`
		Status  *v1alpha1.NotificationStatus     `json:"status"`
		Records []v1alpha1.PodNotificationRecord `json:"records"`
	}{v.Name, v.Status, v.Records}, "", "  ")
	if err != nil {
		return fmt.Sprintf("%+v", *v)
	}
	return string(b)
}

// ReadNotification reads a Notification's status, then its records.
// Every view read of a Notification the run created is kept in its log (Notified).
func (f *Framework) ReadNotification(ctx context.Context, name string) (*NotificationView, error) {
	read := time.Now()
	st, err := f.RT.NotificationStatus(ctx, name)
	if err != nil {
		return nil, err
	}
	recs, err := f.RT.NotificationResults(ctx, name)
	if err != nil {
		return nil, err
	}
	v := &NotificationView{Name: name, Read: read, Status: st, Records: recs}
	f.mu.Lock()
	if l := f.notified[name]; l != nil {
		l.Views = append(l.Views, *v)
	}
	f.mu.Unlock()
	return v, nil
}

// AwaitNotification polls a Notification until cond holds (bounded by PodTimeout) and returns
// the view that satisfied it; the error carries the last view.
func (f *Framework) AwaitNotification(ctx context.Context, name, what string, cond func(*NotificationView) bool) (*NotificationView, error) {
	return f.AwaitNotificationWithin(ctx, name, what, f.cfg.Tolerances.PodTimeout, cond)
}

// AwaitNotificationWithin is AwaitNotification bounded by another tolerance. It returns the last
// view it read, also when cond never held.
func (f *Framework) AwaitNotificationWithin(ctx context.Context, name, what string, tol Tolerance, cond func(*NotificationView) bool) (*NotificationView, error) {
	timeout := tol.Value
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last *NotificationView
	var lastErr error
	for {
		v, err := f.ReadNotification(ctx, name)
		if err == nil && cond(v) {
			return v, nil
		}
		if err == nil {
			last = v
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("waiting %v (%s) for notification %s: %s: %w\nlast read error: %v\n%s",
				timeout, tol.Name, name, what, ctx.Err(), lastErr, last)
		case <-time.After(PollInterval):
		}
	}
}

// NotificationFinal is a condition: the Notification's phase is final.
func NotificationFinal(v *NotificationView) bool { return FinalNotification(v.Status.Phase) }

// CountsMatchRecords is a condition: the status counts the records per phase and targets their
// total (NOTIF-016). The status and the records are read one after the other, so a record that
// changes between the two reads makes one view disagree.
func CountsMatchRecords(v *NotificationView) bool {
	c := v1alpha1.NotificationStatus{Targets: int32(len(v.Records))}
	for _, r := range v.Records {
		switch r.Phase {
		case v1alpha1.NotificationPending:
			c.Pending++
		case v1alpha1.NotificationRunning:
			c.Running++
		case v1alpha1.NotificationSucceeded:
			c.Succeeded++
		case v1alpha1.NotificationFailed:
			c.Failed++
		case v1alpha1.NotificationSkipped:
			c.Skipped++
		}
	}
	st := v.Status
	return st.Targets == c.Targets && st.Pending == c.Pending && st.Running == c.Running &&
		st.Succeeded == c.Succeeded && st.Failed == c.Failed && st.Skipped == c.Skipped
}

// RecordsFinal is a condition: the Notification has n pod records and each is final.
func RecordsFinal(n int) func(*NotificationView) bool {
	return func(v *NotificationView) bool {
		if len(v.Records) != n {
			return false
		}
		for _, r := range v.Records {
			if !FinalNotification(r.Phase) {
				return false
			}
		}
		return true
	}
}

// RecordFinal is a condition: the Notification has a pod record for the pod named pod, and it is
// final. Unlike RecordsFinal it says nothing about the other records, so a scenario that waits
// for one target's outcome does not hang on a runtime that (wrongly) targets another pod: the
// specs judge the record set.
func RecordFinal(pod string) func(*NotificationView) bool {
	return func(v *NotificationView) bool {
		r := v.Record(pod)
		return r != nil && FinalNotification(r.Phase)
	}
}

// WaitContainersStarted polls the pod's status until every named container is Started
// (running, postStart done, startup probe passed), bounded by PodTimeout.
func (p *Pod) WaitContainersStarted(ctx context.Context, names ...string) error {
	timeout := p.f.cfg.Tolerances.PodTimeout.Value
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last *PodStatusView
	for {
		st, err := p.Status(ctx)
		if err == nil {
			last = st
			all := true
			for _, n := range names {
				if c := st.Container(n); c == nil || !c.Started || c.State.Running == nil {
					all = false
				}
			}
			if all {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %s: containers %v not Started within %s %v: %w\n%s", p.Name, names, p.f.cfg.Tolerances.PodTimeout.Name, timeout, ctx.Err(), last)
		case <-time.After(PollInterval):
		}
	}
}

// NotifierCommand declares an exec notifier running command as given (e.g. one that cannot be
// started).
func NotifierCommand(name string, command ...string) ContainerOpt {
	return func(c *v1alpha1.Container) {
		c.Notifiers = append(c.Notifiers, v1alpha1.Notifier{Name: name, Action: v1alpha1.NotifierAction{Exec: &v1alpha1.ExecAction{Command: command}}})
	}
}

// NotifierTimeout sets the timeoutSeconds of the container's notifiers declared so far (by the
// options before it) under name.
func NotifierTimeout(name string, seconds int32) ContainerOpt {
	return func(c *v1alpha1.Container) {
		for i := range c.Notifiers {
			if c.Notifiers[i].Name == name {
				c.Notifiers[i].TimeoutSeconds = &seconds
			}
		}
	}
}
