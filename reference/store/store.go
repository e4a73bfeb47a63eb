// Package store keeps the reference runtime's state on disk: one directory per pod under the
// runtime root, state files written atomically (temp file, fsync, rename, fsync directory), an
// append-only events log with sequence numbers, and per-pod locks.
//
// The store never interprets the lifecycle; the engine decides what to write and when. Pod names
// are validated as DNS labels before they are used in any path.
package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sys/unix"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/atomicfile"
	"podspec.dev/podspec/internal/procstat"
	"podspec.dev/podspec/internal/stateroot"
	"podspec.dev/podspec/reference/logs"
	"podspec.dev/podspec/reference/publish"
)

// ErrNotFound is returned for a pod that does not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned when creating a pod whose name is taken.
var ErrExists = errors.New("already exists")

// ErrUnreadable is returned for a pod whose state file exists but cannot be read or decoded
// (a damaged disk, an edit by hand). Such a pod is still listed, stopped and removed
// (docs/runtime.md, "Faults").
var ErrUnreadable = errors.New("state unreadable")

// ErrBusy is returned when a lock is held by someone else.
var ErrBusy = errors.New("busy")

// dnsLabel is a DNS-1123 label but for its length (ValidName checks it apart: the bounded
// repetition {0,61} would compile into one instruction per repetition at every process start).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// ValidName reports whether name is a DNS-1123 label, the only form allowed in host paths.
func ValidName(name string) error {
	if len(name) > 63 || !dnsLabel.MatchString(name) {
		return fmt.Errorf("invalid name %q: must be a DNS label (at most 63 of [a-z0-9-], starting and ending alphanumeric)", name)
	}
	return nil
}

// File names inside a pod directory.
const (
	StateFile      = "state.json"
	EventsFile     = "events.jsonl"
	SupervisorLock = "supervisor.lock"
	SupervisorLog  = "supervisor.log"
	SocketFile     = "supervisor.sock"
	ReaderLock     = "pod.lock"
	LogsDir        = "logs"
	VolumesDir     = "volumes"
	InstancesDir   = "instances"
)

// ErrUntrusted is returned (wrapped) for a state root, or a directory of the state below it, that
// another user could change (SUP-011; stateroot.ErrUntrusted): the runtime refuses to use it.
var ErrUntrusted = stateroot.ErrUntrusted

// Store is a runtime root directory.
type Store struct {
	// Root is the runtime's state directory (--root).
	Root string
}

// Open creates the root (mode 0700) if needed and returns the store. It refuses (ErrUntrusted)
// a root that another user owns or could replace, and a pods directory that is not the
// runtime's own (internal/stateroot).
func Open(root string) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("state root %s: %w", root, err)
	}
	if strings.ContainsRune(abs, ',') {
		// OCI runtimes pass namespace paths below the root as a comma-separated list.
		return nil, fmt.Errorf("state root %s: the path must not contain ','", abs)
	}
	// The root, its pods directory and, where they exist, the other directories the runtime
	// keeps right below it (the OCI runtime's state, the image cache, shared volumes,
	// Notifications, the host's creation slots).
	if err := stateroot.Open(abs, stateDirMode(), []string{"pods"}, []string{"runc", "images", SharedVolumesDir, "notifications", CreateSlotsDir}); err != nil {
		return nil, err
	}
	return &Store{Root: abs}, nil
}

// CreateSlotsDir is the directory below the root whose lock files bound the OCI runtime
// invocations that create instances at once on the host (reference/backend, Backend.CreateSlots).
const CreateSlotsDir = "create-slots"

// stateDirMode is the mode of the root, ROOT/pods and the pod directories: 0700, so no other
// user reaches anything of the state (SEC-007).
func stateDirMode() os.FileMode {
	return 0o700
}

// Pod is one pod's directory.
type Pod struct {
	Name string
	Dir  string
}

func (s *Store) podDir(name string) (string, error) {
	if err := ValidName(name); err != nil {
		return "", err
	}
	dir := filepath.Join(s.Root, "pods", name)
	if _, err := stateroot.CheckOwnDir(s.Root, dir); err != nil { // SUP-011: no link, nobody else's
		return "", err
	}
	return dir, nil
}

// Create makes the directory of a new pod; ErrExists if the name is taken.
func (s *Store) Create(name string) (*Pod, error) {
	dir, err := s.podDir(name)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, stateDirMode()); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("pod %s: %w", name, ErrExists)
		}
		return nil, fmt.Errorf("create pod directory: %w", err)
	}
	for _, d := range []string{LogsDir, VolumesDir, InstancesDir} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("create pod directory: %w", err)
		}
	}
	return &Pod{Name: name, Dir: dir}, atomicfile.SyncDir(filepath.Dir(dir))
}

// Pod returns an existing pod; ErrNotFound if there is none with a state file.
func (s *Store) Pod(name string) (*Pod, error) {
	dir, err := s.podDir(name)
	if errors.Is(err, ErrUntrusted) {
		return nil, fmt.Errorf("pod %s: %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("pod %q: %w: %v", name, ErrNotFound, err)
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err != nil {
		return nil, fmt.Errorf("pod %s: %w", name, ErrNotFound)
	}
	return &Pod{Name: name, Dir: dir}, nil
}

// List returns the names of all pods with a state file, sorted.
func (s *Store) List() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.Root, "pods"))
	if err != nil {
		return nil, fmt.Errorf("list pods: %w", err)
	}
	var names []string
	for _, e := range ents {
		if !e.IsDir() || ValidName(e.Name()) != nil {
			continue
		}
		if _, err := stateroot.CheckOwnDir(s.Root, filepath.Join(s.Root, "pods", e.Name())); err != nil {
			continue // not the runtime's own (SUP-011): Pod refuses it, naming why
		}
		if _, err := os.Stat(filepath.Join(s.Root, "pods", e.Name(), StateFile)); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Path joins elements below the pod directory.
func (p *Pod) Path(elem ...string) string {
	return filepath.Join(append([]string{p.Dir}, elem...)...)
}

// LogPath is the log file of one instance (restartCount n) of a container.
func (p *Pod) LogPath(container string, n int32) string {
	return p.Path(LogsDir, container, fmt.Sprintf("%d.log", n))
}

// removingPrefix starts the name a pod directory is renamed to when it is removed (Remove,
// workName); no verb lists it, and a leftover of a removal cut short is deleted by the next
// CreatePod.
const removingPrefix = ".removing-"

// RemoveHook, when set (by tests), is called by Remove with the directory's new name once the
// pod directory is renamed away and before it is deleted: a test injects there a reader that
// arrives in the middle of a removal.
var RemoveHook func(removing string)

// Remove deletes the pod directory. Callers hold the exclusive reader lock.
//
// It first renames the directory away, in one step, and only then deletes it: a reader that
// arrives during the removal finds no pod (its ReadLock is ErrNotFound), where deleting in
// place let it create pod.lock again in the half-deleted directory, take a lock no remover
// held, read what was left and make the final rmdir fail (GC-005).
func (p *Pod) Remove() error {
	parent := filepath.Dir(p.Dir)
	removing := filepath.Join(parent, workName(removingPrefix, fmt.Sprintf("%d-%s", time.Now().UnixNano(), p.Name)))
	if err := os.Rename(p.Dir, removing); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // removed already
		}
		return fmt.Errorf("remove pod %s: %w", p.Name, err)
	}
	if RemoveHook != nil {
		RemoveHook(removing)
	}
	if err := atomicfile.SyncDir(parent); err != nil {
		return fmt.Errorf("remove pod %s: %w", p.Name, err)
	}
	if err := os.RemoveAll(removing); err != nil {
		// The pod is gone for every verb; what is left is deleted by the next CreatePod.
		return fmt.Errorf("remove pod %s: %w", p.Name, err)
	}
	return nil
}

// Identity is what can be told of a pod without its state: its UID and creation time, from
// the PodCreated event (zero when the events log has none either).
func (p *Pod) Identity() (uid string, createdAt time.Time) {
	f, err := os.Open(p.Path(EventsFile))
	if err != nil {
		return "", time.Time{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var ev runtimev1.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != runtimev1.EventPodCreated {
			continue
		}
		if _, err := uuid.Parse(ev.PodUID); err != nil {
			return "", time.Time{}
		}
		return ev.PodUID, ev.Time
	}
	return "", time.Time{}
}

// SupervisorInfo identifies the supervisor process that owns a pod.
type SupervisorInfo struct {
	PID int `json:"pid"`
	// StartTime is the process start time in clock ticks since boot (/proc/PID/stat field 22).
	StartTime uint64 `json:"startTime"`
	// Generation counts supervisors: 1 for the first, +1 for each adoption.
	Generation int `json:"generation"`
}

// Instance is the runtime's record of one container: its current instance and the flags the
// engine needs to resume after a supervisor loss.
type Instance struct {
	ContainerID string    `json:"containerID,omitempty"`
	PID         int       `json:"pid,omitempty"`
	StartTime   uint64    `json:"pidStartTime,omitempty"`
	Created     time.Time `json:"created,omitempty"`
	// Running is true between the start of the instance and the observation of its exit.
	Running bool `json:"running,omitempty"`
	// StopReason is set once the runtime sent the instance its stop signal (Stopped, StoppedByPolicy, ...).
	StopReason string `json:"stopReason,omitempty"`
	// Terminal is set once the container will never run again in this pod.
	Terminal bool `json:"terminal,omitempty"`
	// Completed is set when the terminal exit was a success.
	Completed bool `json:"completed,omitempty"`
	// EverStarted and EverReady record that some instance reached Started / Ready.
	EverStarted bool `json:"everStarted,omitempty"`
	EverReady   bool `json:"everReady,omitempty"`
	// EverRan records that some instance's process started running.
	EverRan bool `json:"everRan,omitempty"`
	// Discarded counts the instances a lost supervisor had created and recorded but not
	// started, that adopters discarded since this container's last start. The fresh instance
	// keeps the discarded one's number (RST-006) but its containerID carries the count, so
	// that no containerID ever names two instances (RST-004, SUP-009).
	Discarded int `json:"discarded,omitempty"`
	// Consecutive counts restarts since the back-off was last reset.
	Consecutive int `json:"consecutive,omitempty"`
	// NextStart is when a container waiting in back-off starts its next instance.
	NextStart *time.Time `json:"nextStart,omitempty"`
	// UpdatePending is the generation of an in-place update that restarts this container and
	// has not taken effect yet (an adopting supervisor finishes the restart).
	UpdatePending int64 `json:"updatePending,omitempty"`
	// PendingExit is the exit of a main or regular init container whose restart is pending: it
	// becomes the container's terminal exit, in its place in the pod's Exits, if the stop
	// sequence cancels the restart (STOP-005); the next instance's start drops it.
	PendingExit *ExitRecord `json:"pendingExit,omitempty"`
	// LastStateBeforeRestart is the container's lastState from before a pending restart moved
	// the newest termination there: if the stop sequence cancels the restart, no new instance
	// started (STAT-008), so the newest termination goes back to state and this to lastState.
	// The next instance's start drops it.
	LastStateBeforeRestart *v1alpha1.ContainerState `json:"lastStateBeforeRestart,omitempty"`
	// RunStart is when a defer container's run began (its first attempt's process started);
	// its timeoutSeconds count from then.
	RunStart *time.Time `json:"runStart,omitempty"`
}

// StopState records a stop in progress so that an adopting supervisor resumes it.
type StopState struct {
	RequestedAt time.Time `json:"requestedAt"`
	// Reason is the termination reason: Completed, Failed, Stopped, DeadlineExceeded or Forced.
	Reason string `json:"reason"`
	// Deadline is when the grace budget ends.
	Deadline time.Time `json:"deadline"`
	Force    bool      `json:"force,omitempty"`
	// Step is the index of the first stop step not finished yet.
	Step int `json:"step"`
	// RequestIDs are the IDs of the last stop requests recorded (engine.StopOnce), so that a
	// request sent again is recorded once.
	RequestIDs []string `json:"requestIDs,omitempty"`
}

// State is everything the runtime persists about a pod, written as one file.
type State struct {
	// Pod is the defaulted manifest with its status.
	Pod        v1alpha1.Pod         `json:"pod"`
	CreatedAt  time.Time            `json:"createdAt"`
	Supervisor SupervisorInfo       `json:"supervisor"`
	Containers map[string]*Instance `json:"containers,omitempty"`
	Stop       *StopState           `json:"stop,omitempty"`
	// Exits lists the terminal exits of main and regular init containers in event order, for
	// the pod result.
	Exits []ExitRecord `json:"exits,omitempty"`
	// PolicyDecider is the main container whose terminal exit fired the exit policy.
	PolicyDecider string `json:"policyDecider,omitempty"`
	// CreationLabels are the pod's labels as it was created (never changed by an update): an
	// AllPods Notification decides a pod created after it from them (NOTIF-002). Nil in a state
	// written before the field existed; LabelsAtCreation then falls back to the current labels.
	CreationLabels map[string]string `json:"creationLabels"`
	// Images maps container names to the image references resolved at creation.
	Images map[string]string `json:"images,omitempty"`
	// Sandbox holds whatever the sandbox layer needs to find or tear down the sandbox.
	Sandbox json.RawMessage `json:"sandbox,omitempty"`
	// Creator is the command that created the pod and starts its first supervisor: while the
	// pod has never been supervised (Supervisor.PID 0) and this process is gone, the next verb
	// starts the supervisor in its place.
	Creator SupervisorInfo `json:"creator,omitempty"`
	// CreateParallelism bounds how many container instances the pod creates and starts at
	// once (`run --create-parallelism`); 0: the engine's default (engine.DefaultCreateParallelism).
	CreateParallelism int `json:"createParallelism,omitempty"`
	// HostCreateParallelism bounds how many OCI runtime invocations create container
	// instances at once on the host, across the pods of the runtime root, while this pod's
	// supervisor creates one (`run --host-create-parallelism`); 0: engine.DefaultCreateParallelism.
	HostCreateParallelism int `json:"hostCreateParallelism,omitempty"`
	// LogLimits bound each container instance's log (`run --log-max-size`, `--log-max-files`);
	// unset fields: logs.DefaultLimits.
	LogLimits logs.Limits `json:"logLimits,omitzero"`
	// Ports are the pod's published ports (`run --publish`): the supervisor forwards them while
	// it runs the pod.
	Ports []publish.Port `json:"ports,omitempty"`
	// UnwrittenEvents are the events that describe this state, numbered, which the supervisor
	// appends to the events file right after writing it (EventLog.Pending): a supervisor lost
	// between the two writes leaves them here, and the next one appends those the file lacks
	// (EventLog.Recover). Those the file already holds are left over from the last write.
	UnwrittenEvents []runtimev1.Event `json:"unwrittenEvents,omitempty"`
}

// LabelsAtCreation returns the pod's labels as it was created: CreationLabels, or the current
// labels for a state written before that field existed.
func (st *State) LabelsAtCreation() map[string]string {
	if st.CreationLabels != nil {
		return st.CreationLabels
	}
	return st.Pod.Metadata.Labels
}

// CreateOptions are the settings of a pod that are not in its manifest.
type CreateOptions struct {
	// CreateParallelism is State.CreateParallelism.
	CreateParallelism int
	// HostCreateParallelism is State.HostCreateParallelism.
	HostCreateParallelism int
	// LogLimits is State.LogLimits.
	LogLimits logs.Limits
	// Ports is State.Ports.
	Ports []publish.Port
}

// ExitRecord is one terminal exit of a main or regular init container.
type ExitRecord struct {
	Container string    `json:"container"`
	Kind      string    `json:"kind"`
	Time      time.Time `json:"time"`
	ExitCode  *int32    `json:"exitCode,omitempty"`
	Signal    *int32    `json:"signal,omitempty"`
	Reason    string    `json:"reason"`
	// Failure says whether the exit counts as a failure for the exit policy and the pod
	// result (an instance the runtime stopped fails only with a non-zero exit code).
	Failure bool `json:"failure"`
}

// ReadState reads the pod's state file.
func (p *Pod) ReadState() (*State, error) {
	var st State
	if err := p.decodeState(&st); err != nil {
		return nil, err
	}
	if st.Pod.Status == nil {
		return nil, fmt.Errorf("decode state of %s: %w: no pod status", p.Name, ErrUnreadable)
	}
	return &st, nil
}

// Summary is what `podspec list` shows of a pod: its UID, phase and creation time.
type Summary struct {
	UID       string
	Phase     v1alpha1.PodPhase
	CreatedAt time.Time
}

// ReadSummary reads the pod's Summary from its state file, with ReadState's errors
// (ErrNotFound, ErrUnreadable for a file that cannot be read, is not JSON or has no pod
// status). It decodes only those fields: a listing of N pods decodes N summaries, not N
// whole pods (manifests, instances, events held).
func (p *Pod) ReadSummary() (*Summary, error) {
	var st struct {
		Pod struct {
			Status *struct {
				UID   string            `json:"uid"`
				Phase v1alpha1.PodPhase `json:"phase"`
			} `json:"status"`
		} `json:"pod"`
		CreatedAt time.Time `json:"createdAt"`
	}
	if err := p.decodeState(&st); err != nil {
		return nil, err
	}
	if st.Pod.Status == nil {
		return nil, fmt.Errorf("decode state of %s: %w: no pod status", p.Name, ErrUnreadable)
	}
	return &Summary{UID: st.Pod.Status.UID, Phase: st.Pod.Status.Phase, CreatedAt: st.CreatedAt}, nil
}

// Gone reports whether the pod's state file no longer exists (ReadState would say
// ErrNotFound), without reading it: a verb that took the reader lock checks with it that the
// pod was not removed meanwhile.
func (p *Pod) Gone() bool {
	_, err := os.Stat(p.Path(StateFile))
	return errors.Is(err, os.ErrNotExist)
}

// decodeState reads the pod's state file into v: ErrNotFound when there is none,
// ErrUnreadable when it cannot be read or decoded.
func (p *Pod) decodeState(v any) error {
	b, err := os.ReadFile(p.Path(StateFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("pod %s: %w", p.Name, ErrNotFound)
		}
		return fmt.Errorf("read state of %s: %w: %v", p.Name, ErrUnreadable, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode state of %s: %w: %v", p.Name, ErrUnreadable, err)
	}
	return nil
}

// WriteState replaces the pod's state file atomically.
func (p *Pod) WriteState(st *State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state of %s: %w", p.Name, err)
	}
	return atomicfile.WriteFile(p.Path(StateFile), append(b, '\n'), 0o600)
}

// Lock is a held lock (flock, or an open-file-description record lock); Unlock releases it.
type Lock struct {
	f   *os.File
	ofd bool
}

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l != nil && l.f != nil {
		if !l.ofd {
			unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
		}
		// Closing the file releases an OFD lock (and a flock).
		l.f.Close()
		l.f = nil
	}
}

// lockFile takes a flock on path, creating the file if its directory exists. A lock is only
// returned on the file that is at path once it is held: a remover renames the pod directory
// away while it holds the lock, so a waiter that opened the file before gets, once the remover
// is done, a lock on a file no longer at path, which guards nothing. Such a lock is dropped and
// path opened again: ErrNotFound when the directory is gone, a lock on the new file when a pod
// of the same name was created meanwhile.
func lockFile(path string, how int) (*Lock, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("lock %s: %w", path, ErrNotFound)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		for {
			err = unix.Flock(int(f.Fd()), how)
			if err != unix.EINTR {
				break
			}
		}
		if err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("lock %s: %w", path, ErrBusy)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		now, err := os.Stat(path)
		if err == nil && os.SameFile(held, now) {
			return &Lock{f: f}, nil
		}
		f.Close()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
}

// ReadLock takes the shared reader lock: while any reader holds it, gc and rm leave the pod alone.
func (p *Pod) ReadLock() (*Lock, error) { return lockFile(p.Path(ReaderLock), unix.LOCK_SH) }

// TryRemoveLock takes the exclusive reader lock without waiting; ErrBusy if a reader holds it.
func (p *Pod) TryRemoveLock() (*Lock, error) {
	return lockFile(p.Path(ReaderLock), unix.LOCK_EX|unix.LOCK_NB)
}

// TrySupervisorLock takes the supervisor lock without waiting. The live supervisor holds it
// for its whole life, so ErrBusy means a supervisor is alive. It is an open-file-description
// record lock (TryLiveLock), which SupervisorAlive can test without taking it.
func (p *Pod) TrySupervisorLock() (*Lock, error) { return TryLiveLock(p.Path(SupervisorLock)) }

// SupervisorAlive reports whether a supervisor holds the pod's supervisor lock. It only
// queries the lock (LiveLockHeld), so it never makes a starting supervisor believe that
// another one holds the pod.
func (p *Pod) SupervisorAlive() bool { return LiveLockHeld(p.Path(SupervisorLock)) }

// TryLiveLock takes, without waiting, the lock a long-lived process (a supervisor, a
// Notification's runner) holds on path for its whole life to say that it is alive; ErrBusy
// when another holds it. It is an open-file-description record lock (F_OFD_SETLK on the whole
// file), released when the process exits, so that LiveLockHeld can test it without taking it:
// a liveness check that took the lock, even for an instant, would make a process starting at
// that instant believe that another one is alive, and give up.
func TryLiveLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		f.Close()
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("lock %s: %w", path, ErrBusy)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f, ofd: true}, nil
}

// LiveLockHeld reports whether a process holds the TryLiveLock of path. It only queries the
// lock (F_OFD_GETLK) and never takes it.
func LiveLockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if LiveLockHook != nil {
		LiveLockHook(path)
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}

// LiveLockHook, when set (by tests), runs in the middle of every LiveLockHeld, after it opened
// the lock file and before it queries the lock: a test injects there a process taking the lock
// at that instant.
var LiveLockHook func(path string)

// creatingPrefix starts the name of a pod directory being built (CreatePod); the creating
// process's pid and start time follow, so that a leftover of a killed command is known as such.
const creatingPrefix = ".creating-"

// CreateHook, when set, is called at each step of CreatePod with the step's name (StepStaged,
// StepVolumes): the command line's fault injection stops there so that a test can kill it.
var CreateHook func(step string)

// Steps of CreatePod, for CreateHook.
const (
	// StepStaged: the directory is complete under its temporary name.
	StepStaged = "staged"
	// StepVolumes: the shared volumes are acquired; the rename into place is next.
	StepVolumes = "volumes"
)

// CreatePod assigns the pod a new UID (a random RFC 9562 UUID), sets generation 1 and phase
// Pending, and persists it with the PodCreated event. images are the references resolved when
// the pod was created. It records this process as the pod's creator (State.Creator) and
// acquires the pod's shared volumes (AcquireSharedVolumes).
//
// Creation is atomic from the outside: the directory is built under a temporary name and
// renamed into place (never over another pod) once complete, so a command killed on the way
// leaves either a whole pod or nothing that any verb sees; the next CreatePod removes what a
// dead creator left. Its shared volumes are acquired before the rename, so a pod that exists
// always holds them (a kill in between leaks a reference: the volume is kept, VOL-011). On
// failure nothing of the pod remains.
func (s *Store) CreatePod(pod *v1alpha1.Pod, images map[string]string, opts *CreateOptions) (*Pod, error) {
	dir, err := s.podDir(pod.Metadata.Name)
	if err != nil {
		return nil, err
	}
	s.sweepCreating()
	if _, err := os.Lstat(dir); err == nil && !s.removeHalfMade(dir) {
		return nil, fmt.Errorf("pod %s: %w", pod.Metadata.Name, ErrExists)
	}
	me := os.Getpid()
	tmp := filepath.Join(s.Root, "pods", workName(creatingPrefix, pod.Metadata.Name))
	if err := os.Mkdir(tmp, stateDirMode()); err != nil {
		return nil, fmt.Errorf("create pod directory: %w", err)
	}
	p := &Pod{Name: pod.Metadata.Name, Dir: tmp}
	uid := uuid.NewString()
	now := time.Now().UTC()
	pod.Metadata.Generation = 1
	pod.Status = &v1alpha1.PodStatus{UID: uid, Phase: v1alpha1.PodPending, ObservedGeneration: 1}
	st := &State{Pod: *pod, CreatedAt: now, Images: images, Creator: SupervisorInfo{PID: me, StartTime: procstat.StartTime(me)},
		CreationLabels: maps.Clone(pod.Metadata.Labels)}
	if st.CreationLabels == nil {
		st.CreationLabels = map[string]string{}
	}
	if opts != nil {
		st.CreateParallelism = opts.CreateParallelism
		st.HostCreateParallelism = opts.HostCreateParallelism
		st.LogLimits = opts.LogLimits
		st.Ports = opts.Ports
	}
	volumes := false
	fail := func(err error) (*Pod, error) {
		p.Remove()
		if volumes {
			s.ReleaseSharedVolumes(uid, pod.Spec.Volumes)
		}
		return nil, err
	}
	for _, d := range []string{LogsDir, VolumesDir, InstancesDir} {
		if err := os.Mkdir(p.Path(d), 0o700); err != nil {
			return fail(fmt.Errorf("create pod directory: %w", err))
		}
	}
	if err := p.ReservePersistError(); err != nil {
		return fail(err)
	}
	if err := p.WriteState(st); err != nil {
		return fail(err)
	}
	log, err := p.OpenEventLog()
	if err != nil {
		return fail(err)
	}
	err = log.Append(&runtimev1.Event{Type: runtimev1.EventPodCreated, Pod: p.Name, PodUID: uid, Time: now})
	log.Close()
	if err != nil {
		return fail(err)
	}
	createStep(StepStaged)
	// VOL-010, VOL-011: the pod holds its shared volumes from its creation until its removal.
	if err := s.AcquireSharedVolumes(p.Name, uid, pod.Spec.Volumes); err != nil {
		volumes = true // what was acquired before the error
		return fail(fmt.Errorf("shared volumes: %w", err))
	}
	volumes = true
	createStep(StepVolumes)
	if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_NOREPLACE); err != nil {
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			err = fmt.Errorf("pod %s: %w", p.Name, ErrExists)
		} else {
			err = fmt.Errorf("create pod directory: %w", err)
		}
		return fail(err)
	}
	p.Dir = dir
	if err := atomicfile.SyncDir(filepath.Dir(dir)); err != nil {
		return fail(err)
	}
	return p, nil
}

func createStep(step string) {
	if CreateHook != nil {
		CreateHook(step)
	}
}

// removeHalfMade removes dir, a pod directory without a state file, unless someone holds its
// reader lock (a removal in progress): what an older build left when it was killed while
// creating the pod in place. It reports whether dir is gone.
func (s *Store) removeHalfMade(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, StateFile)); err == nil {
		return false
	}
	p := &Pod{Name: filepath.Base(dir), Dir: dir}
	l, err := p.TryRemoveLock()
	if err != nil {
		return false
	}
	defer l.Unlock()
	if _, err := os.Lstat(filepath.Join(dir, StateFile)); err == nil {
		return false
	}
	return p.Remove() == nil
}

// workName is the name of a pod directory under creation or removal by this process
// (prefix creatingPrefix or removingPrefix): the process's pid and start time come first, so
// that sweepCreating tells a leftover of a process that has ended from work still in progress.
func workName(prefix, rest string) string {
	me := os.Getpid()
	return fmt.Sprintf("%s%d-%d-%s", prefix, me, procstat.StartTime(me), rest)
}

// parseWorkName splits the part of a work name after its prefix (PID-START-REST) into the
// working process's pid and start time and the rest (the pod's name); ok is false if it is not
// of that form.
func parseWorkName(s string) (pid int, start uint64, rest string, ok bool) {
	parts := strings.SplitN(s, "-", 3)
	if len(parts) != 3 {
		return 0, 0, "", false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, "", false
	}
	if start, err = strconv.ParseUint(parts[1], 10, 64); err != nil {
		return 0, 0, "", false
	}
	return pid, start, parts[2], true
}

// sweepCreating removes the directories that processes which have ended left under a work
// name (workName): pods being created (a command killed while it created a pod) and removals
// cut short.
func (s *Store) sweepCreating() {
	ents, err := os.ReadDir(filepath.Join(s.Root, "pods"))
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), creatingPrefix)
		if !ok {
			if rest, ok = strings.CutPrefix(e.Name(), removingPrefix); !ok {
				continue
			}
		}
		if pid, start, _, ok := parseWorkName(rest); ok && start != 0 && procstat.StartTime(pid) == start {
			continue // the process is still at work on it
		}
		os.RemoveAll(filepath.Join(s.Root, "pods", e.Name()))
	}
}
