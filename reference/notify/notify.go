// Package notify keeps the reference runtime's Notification objects and their per-pod records
// on disk, decides which pods a Notification targets, and runs the per-Notification fan-out
// (Runner) that hands each target pod's turn to that pod's supervisor.
//
// On-disk layout, below the runtime's state root:
//
//	notifications/.lock                        creation lock (flock): sequence numbers, target sets
//	notifications/.seq                         last sequence number handed out
//	notifications/<name>/notification.json     Object: the Notification (spec + bounded status),
//	                                           its UID, creation sequence and time
//	notifications/<name>/records/<pod>_<uid>.json   one PodNotificationRecord per target pod
//	notifications/<name>/runner.lock           held (flock) by the live runner process
//	notifications/<name>/runner.log            the runner's diagnostics
//
// Every file is replaced atomically (internal/atomicfile), like a pod's state. The status in
// notification.json stays bounded — a phase, six counters, two timestamps and at most
// v1alpha1.MaxNotificationFailures failures — however many pods are targeted; the per-pod
// detail is in the records (NOTIF-016 … NOTIF-018).
//
// Who writes what: the creating command writes the object and the Pending record of every
// pod targeted at creation (under the creation lock, so sequence numbers follow creation
// order and an earlier Notification's targets are on disk before a later one exists). The
// runner writes the status, the records of pods it creates later (AllPods) and the records of
// pods whose turn ends without a delivery it could hand over (pod terminal or removed). Once a
// pod's supervisor has accepted a turn, only that supervisor writes the pod's record: it owns
// the containers, so it alone decides eligibility, the instance check and the outcome.
package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/flock"
	"podspec.dev/podspec/reference/store"
)

// File and directory names below the notifications directory.
const (
	Dir        = "notifications"
	ObjectFile = "notification.json"
	RecordsDir = "records"
	RunnerLock = "runner.lock"
	RunnerLog  = "runner.log"
	lockFile   = ".lock"
	seqFile    = ".seq"
)

// ErrNotFound is returned for a Notification that does not exist.
var ErrNotFound = store.ErrNotFound

// ErrExists is returned when creating a Notification whose name is taken.
var ErrExists = store.ErrExists

// Object is what notification.json holds.
type Object struct {
	// Notification is the defaulted manifest with its bounded status.
	Notification v1alpha1.Notification `json:"notification"`
	// UID identifies this Notification among every one ever created with its name.
	UID string `json:"uid"`
	// Seq orders Notifications by creation (HB-017): a later Notification has a larger Seq.
	Seq int64 `json:"seq"`
	// CreatedAt is when the Notification was created; pods created later are decided at
	// their own creation (AllPods).
	CreatedAt time.Time `json:"createdAt"`
}

// Store is the notifications directory of a runtime root.
type Store struct {
	// Dir is <root>/notifications.
	Dir string
}

// Open returns the notifications store of a runtime root, creating its directory.
func Open(root string) (*Store, error) {
	d := filepath.Join(root, Dir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return nil, fmt.Errorf("create notifications directory: %w", err)
	}
	return &Store{Dir: d}, nil
}

// Path is the directory of the Notification name.
func (s *Store) Path(name string) string { return filepath.Join(s.Dir, name) }

// RecordPath is the file of the pod record of pod (uid) in the Notification directory dir;
// uid is empty for a named pod that did not exist (PodNotFound).
func RecordPath(dir, pod, uid string) string {
	return filepath.Join(dir, RecordsDir, pod+"_"+uid+".json")
}

// lock takes the creation lock (exclusive, waiting).
func (s *Store) lock() (func(), error) {
	unlock, err := flock.Exclusive(context.Background(), filepath.Join(s.Dir, lockFile))
	if err != nil {
		return nil, fmt.Errorf("lock notifications: %w", err)
	}
	return unlock, nil
}

// PodInfo is what target selection needs to know about a pod.
type PodInfo struct {
	Name   string
	UID    string
	Labels map[string]string
	// CreationLabels are its labels as it was created, which an AllPods Notification decides a
	// pod created after it from (NOTIF-002), whatever an update changed since.
	CreationLabels map[string]string
	CreatedAt      time.Time
	// Terminal is set once the pod has finished.
	Terminal bool
}

// ListPods reads every pod of the runtime root.
func ListPods(pods *store.Store) ([]PodInfo, error) {
	names, err := pods.List()
	if err != nil {
		return nil, err
	}
	var out []PodInfo
	for _, n := range names {
		pi, err := ReadPod(pods, n)
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, *pi)
	}
	return out, nil
}

// ReadPod reads one pod's identity; ErrNotFound if it does not exist.
func ReadPod(pods *store.Store, name string) (*PodInfo, error) {
	p, err := pods.Pod(name)
	if err != nil {
		return nil, err
	}
	st, err := p.ReadState()
	if err != nil {
		return nil, err
	}
	pi := &PodInfo{Name: name, Labels: st.Pod.Metadata.Labels, CreationLabels: st.LabelsAtCreation(), CreatedAt: st.CreatedAt}
	if st.Pod.Status != nil {
		pi.UID = st.Pod.Status.UID
		pi.Terminal = st.Pod.Status.FinishedAt != nil
	}
	return pi, nil
}

// Create persists a new, defaulted and validated Notification: it assigns its UID, sequence
// number and creation time, fixes the target set of the pods that exist now (NOTIF-002,
// NOTIF-003: by UID, decided once) with a Pending record each, and a Skipped PodNotFound record
// for every name in spec.pods that names no pod (NOTIF-005). ErrExists if the name is taken.
func (s *Store) Create(n *v1alpha1.Notification, pods *store.Store) (*Object, error) {
	name := n.Metadata.Name
	if err := store.ValidName(name); err != nil {
		return nil, err
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	dir := s.Path(name)
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("notification %s: %w", name, ErrExists)
	}
	seq, err := s.nextSeq()
	if err != nil {
		return nil, err
	}
	existing, err := ListPods(pods)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	obj := &Object{Notification: *n, UID: uuid.NewString(), Seq: seq, CreatedAt: now}
	obj.Notification.Status = &v1alpha1.NotificationStatus{Phase: v1alpha1.NotificationPending, StartedAt: &now}

	tmp, err := os.MkdirTemp(s.Dir, "."+name+".new-")
	if err != nil {
		return nil, fmt.Errorf("create notification %s: %w", name, err)
	}
	fail := func(err error) (*Object, error) {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(tmp, RecordsDir), 0o700); err != nil {
		return fail(fmt.Errorf("create notification %s: %w", name, err))
	}
	var recs []*v1alpha1.PodNotificationRecord
	for i := range existing {
		if Matches(&n.Spec, existing[i].Name, existing[i].Labels) {
			recs = append(recs, &v1alpha1.PodNotificationRecord{Notification: name, Pod: existing[i].Name,
				PodUID: existing[i].UID, Phase: v1alpha1.NotificationPending, Containers: []v1alpha1.ContainerDelivery{}})
		}
	}
	seen := map[string]bool{}
	for _, p := range existing {
		seen[p.Name] = true
	}
	for _, p := range n.Spec.Pods {
		if !seen[p] {
			seen[p] = true
			recs = append(recs, &v1alpha1.PodNotificationRecord{Notification: name, Pod: p, Phase: v1alpha1.NotificationSkipped,
				Reason: v1alpha1.ReasonPodNotFound, Containers: []v1alpha1.ContainerDelivery{},
				StartedAt: &now, FinishedAt: &now})
		}
	}
	for _, r := range recs {
		if err := WriteRecord(RecordPath(tmp, r.Pod, r.PodUID), r); err != nil {
			return fail(err)
		}
	}
	obj.Notification.Status.Targets = int32(len(recs))
	for _, r := range recs {
		countPhase(obj.Notification.Status, r.Phase, 1)
		if r.Phase == v1alpha1.NotificationSkipped {
			addFailures(obj.Notification.Status, r)
		}
	}
	if err := writeObject(filepath.Join(tmp, ObjectFile), obj); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fail(fmt.Errorf("create notification %s: %w", name, err))
	}
	return obj, atomicfile.SyncDir(s.Dir)
}

func (s *Store) nextSeq() (int64, error) {
	p := filepath.Join(s.Dir, seqFile)
	var seq int64
	if b, err := os.ReadFile(p); err == nil {
		seq, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("read notification sequence: %w", err)
	}
	seq++
	if err := atomicfile.WriteFile(p, []byte(strconv.FormatInt(seq, 10)+"\n"), 0o600); err != nil {
		return 0, err
	}
	return seq, nil
}

// Get reads a Notification; ErrNotFound if there is none with that name.
func (s *Store) Get(name string) (*Object, error) {
	if store.ValidName(name) != nil {
		return nil, fmt.Errorf("notification %q: %w", name, ErrNotFound)
	}
	return ReadObject(s.Path(name))
}

// ReadObject reads the object of a Notification directory.
func ReadObject(dir string) (*Object, error) {
	b, err := os.ReadFile(filepath.Join(dir, ObjectFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("notification %s: %w", filepath.Base(dir), ErrNotFound)
		}
		return nil, fmt.Errorf("read notification %s: %w", filepath.Base(dir), err)
	}
	var o Object
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("decode notification %s: %w", filepath.Base(dir), err)
	}
	return &o, nil
}

// List returns every Notification, in creation order.
func (s *Store) List() ([]*Object, error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	var out []*Object
	for _, e := range ents {
		if !e.IsDir() || store.ValidName(e.Name()) != nil {
			continue
		}
		o, err := ReadObject(s.Path(e.Name()))
		if err != nil {
			continue
		}
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, nil
}

// WriteStatus replaces the status of the Notification in dir, unless the Notification was
// deleted or replaced (another UID) meanwhile.
func WriteStatus(dir, uid string, st *v1alpha1.NotificationStatus) error {
	o, err := ReadObject(dir)
	if err != nil {
		return err
	}
	if o.UID != uid {
		return fmt.Errorf("notification %s: %w", filepath.Base(dir), ErrNotFound)
	}
	o.Notification.Status = st
	return writeObject(filepath.Join(dir, ObjectFile), o)
}

func writeObject(path string, o *Object) error {
	b, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return fmt.Errorf("encode notification: %w", err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// Remove deletes a Notification (NOTIF-019, NOTIF-020): its directory is first renamed away
// in one step, so no runner or supervisor starts another delivery of it, then removed. A
// delivery already running finishes; its record has nowhere to go. ErrNotFound if absent.
func (s *Store) Remove(name string) error {
	if store.ValidName(name) != nil {
		return fmt.Errorf("notification %q: %w", name, ErrNotFound)
	}
	dir := s.Path(name)
	if _, err := os.Stat(filepath.Join(dir, ObjectFile)); err != nil {
		return fmt.Errorf("notification %s: %w", name, ErrNotFound)
	}
	tomb := filepath.Join(s.Dir, "."+name+".deleted-"+uuid.NewString()[:8])
	if err := os.Rename(dir, tomb); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("notification %s: %w", name, ErrNotFound)
		}
		return fmt.Errorf("remove notification %s: %w", name, err)
	}
	if err := os.RemoveAll(tomb); err != nil {
		return fmt.Errorf("remove notification %s: %w", name, err)
	}
	return atomicfile.SyncDir(s.Dir)
}

// ReadRecord reads one pod record.
func ReadRecord(path string) (*v1alpha1.PodNotificationRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read pod record: %w", err)
	}
	var r v1alpha1.PodNotificationRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("decode pod record %s: %w", filepath.Base(path), err)
	}
	if r.Containers == nil {
		r.Containers = []v1alpha1.ContainerDelivery{}
	}
	return &r, nil
}

// WriteRecord replaces one pod record atomically.
func WriteRecord(path string, r *v1alpha1.PodNotificationRecord) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode pod record: %w", err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// Records reads every pod record of the Notification in dir, sorted by pod name (then UID).
func Records(dir string) ([]*v1alpha1.PodNotificationRecord, error) {
	ents, err := os.ReadDir(filepath.Join(dir, RecordsDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("notification %s: %w", filepath.Base(dir), ErrNotFound)
		}
		return nil, fmt.Errorf("list pod records: %w", err)
	}
	out := []*v1alpha1.PodNotificationRecord{}
	for _, e := range ents {
		if e.IsDir() || !isRecordFile(e.Name()) {
			continue
		}
		r, err := ReadRecord(filepath.Join(dir, RecordsDir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pod != out[j].Pod {
			return out[i].Pod < out[j].Pod
		}
		return out[i].PodUID < out[j].PodUID
	})
	return out, nil
}

// isRecordFile reports whether name, in a Notification's records directory, is a pod record
// (and not a record being written, whose temporary name starts with a dot).
func isRecordFile(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".")
}

// Final reports whether a phase is final.
func Final(p v1alpha1.NotificationPhase) bool {
	return p == v1alpha1.NotificationSucceeded || p == v1alpha1.NotificationFailed || p == v1alpha1.NotificationSkipped
}

// RecordPhase is the final phase of a pod record from its deliveries (NOTIF-013): Failed if
// one failed, else Succeeded if one succeeded, else Skipped.
func RecordPhase(ds []v1alpha1.ContainerDelivery) v1alpha1.NotificationPhase {
	ph := v1alpha1.NotificationSkipped
	for _, d := range ds {
		switch d.Phase {
		case v1alpha1.NotificationFailed:
			return v1alpha1.NotificationFailed
		case v1alpha1.NotificationSucceeded:
			ph = v1alpha1.NotificationSucceeded
		}
	}
	return ph
}

// Matches reports whether a pod with this name and these labels is selected by the spec
// (spec.pods by name, or spec.selector by labels).
func Matches(spec *v1alpha1.NotificationSpec, pod string, labels map[string]string) bool {
	if len(spec.Pods) > 0 {
		for _, p := range spec.Pods {
			if p == pod {
				return true
			}
		}
		return false
	}
	return SelectorMatches(spec.Selector, labels)
}

// SelectorMatches evaluates a label selector; a nil selector matches nothing, an empty one
// matches everything.
func SelectorMatches(sel *v1alpha1.LabelSelector, labels map[string]string) bool {
	if sel == nil {
		return false
	}
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, ok := labels[r.Key]
		in := false
		for _, x := range r.Values {
			if ok && x == v {
				in = true
			}
		}
		switch r.Operator {
		case v1alpha1.SelectorIn:
			if !in {
				return false
			}
		case v1alpha1.SelectorNotIn:
			if in {
				return false
			}
		case v1alpha1.SelectorExists:
			if !ok {
				return false
			}
		case v1alpha1.SelectorDoesNotExist:
			if ok {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// TargetsLater reports whether an AllPods Notification targets a pod created after it
// (NOTIF-004): the pod is decided at its own creation, from its name and labels then
// (CreationLabels, NOTIF-002), not from labels an update gave it later.
func TargetsLater(o *Object, pod PodInfo) bool {
	return o.Notification.Spec.TargetPolicy == v1alpha1.AllPods && pod.CreatedAt.After(o.CreatedAt) &&
		Matches(&o.Notification.Spec, pod.Name, pod.CreationLabels)
}

// countPhase adds d to the status counter of phase p.
func countPhase(st *v1alpha1.NotificationStatus, p v1alpha1.NotificationPhase, d int32) {
	switch p {
	case v1alpha1.NotificationPending:
		st.Pending += d
	case v1alpha1.NotificationRunning:
		st.Running += d
	case v1alpha1.NotificationSucceeded:
		st.Succeeded += d
	case v1alpha1.NotificationFailed:
		st.Failed += d
	case v1alpha1.NotificationSkipped:
		st.Skipped += d
	}
}

// addFailures appends the failed and skipped outcomes of a final record to the bounded list
// (NOTIF-017): the pod-level outcome if it has a reason, else each failed or skipped delivery.
func addFailures(st *v1alpha1.NotificationStatus, r *v1alpha1.PodNotificationRecord) {
	add := func(f v1alpha1.NotificationFailure) {
		if len(st.Failures) < v1alpha1.MaxNotificationFailures {
			st.Failures = append(st.Failures, f)
		}
	}
	if r.Reason != "" {
		add(v1alpha1.NotificationFailure{Pod: r.Pod, PodUID: r.PodUID, Reason: r.Reason})
		return
	}
	for _, d := range r.Containers {
		if d.Phase == v1alpha1.NotificationFailed || d.Phase == v1alpha1.NotificationSkipped {
			add(v1alpha1.NotificationFailure{Pod: r.Pod, PodUID: r.PodUID, Container: d.Name, Reason: d.Reason, Message: d.Message})
		}
	}
}
