package framework

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
)

// notifierRuntime answers the notifier verbs the way a runtime following the contract does and
// logs every invocation's arguments to a file.
func notifierRuntime(t *testing.T) (*Runtime, string) {
	t.Helper()
	calls := filepath.Join(t.TempDir(), "calls")
	rt := fakeRuntime(t, `echo "$@" >> `+calls+`
case "$5 $6" in
"notify web") echo '{"apiVersion":"podspec.dev/v1alpha1","kind":"Notification","metadata":{"name":"web-reload-1a2b3c"},"spec":{"notifier":"reload","pods":["web"]},"status":{"phase":"Pending","targets":1,"pending":1,"running":0,"succeeded":0,"failed":0,"skipped":0}}' ;;
"notify "*) echo '{"apiVersion":"podspec.dev/v1alpha1","kind":"Notification","metadata":{"name":"from-file"},"spec":{"notifier":"quiesce","selector":{"matchLabels":{"app":"db"}}}}' ;;
"notification status") echo '{"phase":"Failed","targets":2,"pending":0,"running":0,"succeeded":1,"failed":1,"skipped":0,"failures":[{"pod":"b","podUID":"u2","container":"app","reason":"HandlerFailed"}]}' ;;
"notification results") echo '[{"notification":"n","pod":"a","podUID":"u1","phase":"Succeeded","containers":[{"name":"app","containerID":"u1-app-1","phase":"Succeeded","exitCode":0}]},{"notification":"n","pod":"b","podUID":"u2","phase":"Failed","containers":[{"name":"app","phase":"Failed","reason":"HandlerFailed","exitCode":7}]}]' ;;
"notification rm")
  if [ "$7" = gone ]; then echo '{"error":{"code":"NotFound","message":"no"}}' >&2; exit 4; fi ;;
*) echo '{"error":{"code":"Usage","message":"unexpected"}}' >&2; exit 2 ;;
esac
`)
	return rt, calls
}

func TestNotifyDecodesTheCreatedNotification(t *testing.T) {
	rt, calls := notifierRuntime(t)
	ctx := context.Background()
	n, _, err := rt.NotifyPod(ctx, "web", "reload")
	if err != nil {
		t.Fatal(err)
	}
	if n.Metadata.Name != "web-reload-1a2b3c" || n.Spec.Notifier != "reload" || n.Status == nil || n.Status.Targets != 1 {
		t.Fatalf("notify POD NOTIFIER decoded %+v", n)
	}
	n, _, err = rt.Notify(ctx, "/m/n.json")
	if err != nil {
		t.Fatal(err)
	}
	if n.Spec.Selector == nil || n.Spec.Selector.MatchLabels["app"] != "db" {
		t.Fatalf("notify MANIFEST decoded %+v", n.Spec)
	}
	b, _ := os.ReadFile(calls)
	for _, want := range []string{"--error-format json notify web reload", "--error-format json notify /m/n.json"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("calls %q lack %q", b, want)
		}
	}
}

func TestNotificationStatusAndResultsDecodeIntoTheAPITypes(t *testing.T) {
	rt, _ := notifierRuntime(t)
	ctx := context.Background()
	st, err := rt.NotificationStatus(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != v1alpha1.NotificationFailed || st.Targets != 2 || len(st.Failures) != 1 || st.Failures[0].Reason != v1alpha1.ReasonHandlerFailed {
		t.Fatalf("status %+v", st)
	}
	recs, err := rt.NotificationResults(ctx, "n")
	if err != nil {
		t.Fatal(err)
	}
	v := &NotificationView{Name: "n", Status: st, Records: recs}
	if d := v.Delivery("b", "app"); d == nil || d.ExitCode == nil || *d.ExitCode != 7 || d.Reason != v1alpha1.ReasonHandlerFailed {
		t.Fatalf("delivery to b/app = %+v", d)
	}
	if v.Record("c") != nil || v.Delivery("a", "other") != nil {
		t.Fatal("lookups of absent pods and containers must return nil")
	}
	if !RecordsFinal(2)(v) || RecordsFinal(3)(v) || !NotificationFinal(v) {
		t.Fatal("final conditions")
	}
	if !RecordFinal("b")(v) || RecordFinal("c")(v) {
		t.Fatal("RecordFinal holds for a final record of the pod, and not for a pod without a record")
	}
	if !CountsMatchRecords(v) {
		t.Fatalf("the counts of %s match its records", v)
	}
	lagging := *st
	lagging.Running, lagging.Failed = 1, 0
	if CountsMatchRecords(&NotificationView{Status: &lagging, Records: recs}) {
		t.Fatal("a status still counting a final record as running must not match")
	}
}

func TestRemoveNotificationsForgetsWhatIsGoneAndKeepsFailures(t *testing.T) {
	rt, calls := notifierRuntime(t)
	f := &Framework{RT: rt, notifications: map[string]bool{"kept": true, "gone": true}}
	if err := f.RemoveNotifications(context.Background()); err != nil {
		t.Fatalf("NotFound must count as removed: %v", err)
	}
	if len(f.notifications) != 0 {
		t.Fatalf("still remembered: %v", f.notifications)
	}
	b, _ := os.ReadFile(calls)
	if !strings.Contains(string(b), "notification rm kept") || !strings.Contains(string(b), "notification rm gone") {
		t.Fatalf("calls %q", b)
	}
	bad := fakeRuntime(t, `echo '{"error":{"code":"IO","message":"disk"}}' >&2; exit 3`)
	f = &Framework{RT: bad, notifications: map[string]bool{"x": true}}
	if err := f.RemoveNotifications(context.Background()); err == nil || !f.notifications["x"] {
		t.Fatalf("a failed rm must be reported and the Notification kept: %v %v", err, f.notifications)
	}
}

func TestTestLabelsCarryTheRunIDAndTheSelectorMatchesThem(t *testing.T) {
	p := NewPod().Main("app", Loop()).TestLabels("sel", map[string]string{"role": "t"}).
		Build(BuildEnv{Name: "c1-x", Image: "img", ProbeDir: "/d", RunID: "c1"})
	f := &Framework{cfg: Config{RunID: "c1"}}
	sel := f.TestSelector("sel", map[string]string{"role": "t"})
	for k, v := range sel.MatchLabels {
		if p.Metadata.Labels[k] != v {
			t.Fatalf("label %s = %q, selector wants %q (labels %v)", k, p.Metadata.Labels[k], v, p.Metadata.Labels)
		}
	}
	if len(sel.MatchLabels) != 3 {
		t.Fatalf("selector %v", sel.MatchLabels)
	}
}

func TestNotifiedKeepsEveryReadAndTheRemovalOfTheNotificationsAboutAPod(t *testing.T) {
	rt, _ := notifierRuntime(t)
	ctx := context.Background()
	f := &Framework{RT: rt}
	p := &Pod{f: f, Name: "web"}
	n, err := f.NotifyPod(ctx, p, "reload")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.ReadNotification(ctx, n.Metadata.Name); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.RemoveNotification(ctx, n.Metadata.Name); err != nil {
		t.Fatal(err)
	}
	got := f.Notified("web")
	if len(got) != 1 || got[0].Name != "web-reload-1a2b3c" || got[0].Spec.Notifier != "reload" || got[0].Issued.IsZero() {
		t.Fatalf("Notified(web) = %+v", got)
	}
	l := got[0]
	if len(l.Views) != 2 || l.Views[0].Read.IsZero() || l.Views[1].Read.Before(l.Views[0].Read) || l.Views[0].Status.Targets != 2 {
		t.Fatalf("the reads of %s: %+v", l.Name, l.Views)
	}
	if l.Removing.IsZero() || l.Removed.Before(l.Removing) || l.Removing.Before(l.Views[1].Read) {
		t.Fatalf("the removal of %s: issued %v, returned %v", l.Name, l.Removing, l.Removed)
	}
	// The pods of its records (a, b) are about it too; another pod is not.
	if len(f.Notified("b")) != 1 || len(f.Notified("other")) != 0 {
		t.Fatalf("Notified(b) = %v, Notified(other) = %v", f.Notified("b"), f.Notified("other"))
	}
}
