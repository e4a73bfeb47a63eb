package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// Event types the reference runtime records beyond the contract's (api/runtime/v1; section 5.2
// of docs/runtime-interface.md lets a runtime record further types, which a harness ignores).
const (
	// EventStartupSucceeded: a startup probe succeeded.
	EventStartupSucceeded runtimev1.EventType = "StartupProbeSucceeded"
	// EventContainerNotReady: a ready container's readiness probe reached its failure threshold
	// (after ProbeFailed): the container is no longer ready.
	EventContainerNotReady runtimev1.EventType = "ContainerNotReady"
	// EventSupervisorAdopted: a new supervisor adopted the pod after its supervisor was lost.
	EventSupervisorAdopted runtimev1.EventType = "SupervisorAdopted"
	// EventPersistenceFailed records that the supervisor could not write the pod's state or
	// events (a full disk). It is held in memory with the events that followed, and written
	// with them, in order, once there is room again.
	EventPersistenceFailed runtimev1.EventType = "PersistenceFailed"
)

// EventLog appends events to a pod's events file. One writer (the supervisor) per pod.
//
// An append is whole or absent: when the write or its fsync fails (a full disk), the file is
// truncated back to its last complete event and nothing is numbered. Events the caller could
// not persist can be held (Hold): they are numbered at once, in order, and written before
// anything else by the next Append or Flush, so no event is lost or numbered twice while the
// supervisor lives.
type EventLog struct {
	mu   sync.Mutex
	f    *os.File
	size int64 // bytes of complete, written events
	next int64
	last time.Time
	// held are events numbered but not written yet, encoded, one line each.
	held  []byte
	nHeld int
}

// OpenEventLog opens the events file for appending. A torn last line (a crash in the middle of
// a write) is cut off, and numbering continues after the highest sequence number of a line
// that parses: a line that does not (garbage left by a crash or an old bug) is skipped by
// readers and never restarts the numbering.
func (p *Pod) OpenEventLog() (*EventLog, error) {
	path := p.Path(EventsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open events of %s: %w", p.Name, err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read events of %s: %w", p.Name, err)
	}
	good := len(b)
	if good > 0 && b[good-1] != '\n' {
		good = bytes.LastIndexByte(b, '\n') + 1
		if err := f.Truncate(int64(good)); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair events of %s: %w", p.Name, err)
		}
	}
	last, lastTime := lastEvent(b[:good])
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("open events of %s: %w", p.Name, err)
	}
	return &EventLog{f: f, size: int64(good), next: last + 1, last: lastTime}, nil
}

// lastEvent returns the highest sequence number among the lines of b that parse as events,
// and that event's time.
func lastEvent(b []byte) (int64, time.Time) {
	var seq int64
	var at time.Time
	for line := range bytes.Lines(b) {
		var ev runtimev1.Event
		if json.Unmarshal(line, &ev) == nil && ev.Seq > seq {
			seq, at = ev.Seq, ev.Time
		}
	}
	return seq, at
}

// number assigns the next sequence numbers and non-decreasing times to evs and encodes them.
// It returns the encoding and restores the log's counters when encoding fails.
func (l *EventLog) number(evs []*runtimev1.Event) ([]byte, error) {
	next, last := l.next, l.last
	var buf bytes.Buffer
	for _, ev := range evs {
		ev.Seq = next
		next++
		if ev.Time.IsZero() {
			ev.Time = time.Now().UTC()
		}
		// Times never go backwards in sequence order.
		if ev.Time.Before(last) {
			ev.Time = last
		}
		last = ev.Time
		b, err := json.Marshal(ev)
		if err != nil {
			for _, ev := range evs {
				ev.Seq = 0
			}
			return nil, fmt.Errorf("encode event: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	l.next, l.last = next, last
	return buf.Bytes(), nil
}

// Append numbers the events, writes the held ones and then these, each as one line, and
// fsyncs the file. On failure nothing of it stays in the file, the held events stay held, and
// evs are left unnumbered (the caller may Hold them).
func (l *EventLog) Append(evs ...*runtimev1.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	next, last := l.next, l.last
	b, err := l.number(evs)
	if err != nil {
		return err
	}
	if err := l.write(append(l.held[:len(l.held):len(l.held)], b...)); err != nil {
		l.next, l.last = next, last
		for _, ev := range evs {
			ev.Seq = 0
		}
		return err
	}
	l.held, l.nHeld = nil, 0
	return nil
}

// Pending returns what Append(evs...) would write now: the held events, then evs, numbered as
// Append will number them (it sets a zero Time of evs to now, as Append would). The log is left
// as it was. A state written before its events carries them (State.UnwrittenEvents).
func (l *EventLog) Pending(evs ...*runtimev1.Event) ([]runtimev1.Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out, err := decodeEvents(l.held)
	if err != nil {
		return nil, err
	}
	next, last := l.next, l.last
	_, err = l.number(evs)
	l.next, l.last = next, last
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		out = append(out, *ev)
	}
	return out, nil
}

// Recover appends the events of unwritten (a state's UnwrittenEvents) that the file lacks:
// those numbered after its last event, which a supervisor lost between its state write and its
// events write left in the state alone. They keep their order, times and (the file holding
// every event before them) numbers. It returns how many it wrote; when the write fails they are
// held, numbered, for the next Append. Call it before anything else is appended.
func (l *EventLog) Recover(unwritten []runtimev1.Event) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var missing []*runtimev1.Event
	for i := range unwritten {
		if unwritten[i].Seq >= l.next {
			ev := unwritten[i]
			missing = append(missing, &ev)
		}
	}
	if len(missing) == 0 {
		return 0, nil
	}
	b, err := l.number(missing)
	if err != nil {
		return 0, err
	}
	if err := l.write(append(l.held[:len(l.held):len(l.held)], b...)); err != nil {
		l.held = append(l.held, b...)
		l.nHeld += len(missing)
		return 0, fmt.Errorf("recover %d events: %w", len(missing), err)
	}
	l.held, l.nHeld = nil, 0
	return len(missing), nil
}

// decodeEvents decodes encoded event lines (held events).
func decodeEvents(b []byte) ([]runtimev1.Event, error) {
	var out []runtimev1.Event
	for line := range bytes.Lines(b) {
		var ev runtimev1.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			return nil, fmt.Errorf("decode held event: %w", err)
		}
		out = append(out, ev)
	}
	return out, nil
}

// Hold numbers the events and keeps them, in order, for the next Append or Flush.
func (l *EventLog) Hold(evs ...*runtimev1.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := l.number(evs)
	if err != nil {
		return err
	}
	l.held = append(l.held, b...)
	l.nHeld += len(evs)
	return nil
}

// Held is the number of events numbered but not written yet.
func (l *EventLog) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nHeld
}

// Flush writes the held events; nil when there are none.
func (l *EventLog) Flush() error { return l.Append() }

// write appends b at the end of the complete events and fsyncs, or truncates the file back
// to them.
func (l *EventLog) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := l.f.WriteAt(b, l.size)
	if err != nil {
		err = fmt.Errorf("append events: %w", err)
	} else if err = l.f.Sync(); err != nil {
		err = fmt.Errorf("sync events: %w", err)
	}
	if err != nil {
		// Undo whatever part reached the file, so that a reader never sees a torn or merged
		// line and the next append starts at a line boundary.
		if terr := l.f.Truncate(l.size); terr != nil {
			return fmt.Errorf("%w (and truncating back: %v)", err, terr)
		}
		return err
	}
	l.size += int64(len(b))
	return nil
}

// LacksEvents reports whether the events file may lack some of unwritten (a state's
// UnwrittenEvents): whether its last complete event that parses is numbered below the last of
// unwritten. It reads only the file's tail, so a verb can ask it of every terminal pod; a tail
// without an event that parses answers true, and Recover, which reads the whole file, decides.
func (p *Pod) LacksEvents(unwritten []runtimev1.Event) bool {
	if len(unwritten) == 0 {
		return false
	}
	want := unwritten[len(unwritten)-1].Seq
	f, err := os.Open(p.Path(EventsFile))
	if err != nil {
		return true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	const tailBytes = 64 << 10
	off := max(fi.Size()-tailBytes, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return true
	}
	b = b[:bytes.LastIndexByte(b, '\n')+1] // a torn last line is not an event
	if off > 0 {
		// The chunk's first line may be the end of a longer one.
		b = b[bytes.IndexByte(b, '\n')+1:]
	}
	for len(b) > 0 {
		i := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
		var ev runtimev1.Event
		if json.Unmarshal(b[i:], &ev) == nil && ev.Seq > 0 {
			return ev.Seq < want
		}
		b = b[:i]
	}
	return true
}

// Close closes the log.
func (l *EventLog) Close() error { return l.f.Close() }

// ReadEvents returns every complete event of the pod with a sequence number above after.
func (p *Pod) ReadEvents(after int64) ([]runtimev1.Event, error) {
	f, err := os.Open(p.Path(EventsFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read events of %s: %w", p.Name, err)
	}
	defer f.Close()
	var out []runtimev1.Event
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// A line without its newline is still being written (or torn): not an event yet.
			break
		}
		var ev runtimev1.Event
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		if ev.Seq > after {
			out = append(out, ev)
		}
	}
	return out, nil
}

// FollowEvents calls fn for every event in order, starting after seq after, and keeps polling
// for new ones until fn returns false, ctx ends, or done reports that no more events will come
// (checked only after the log has been read to its end).
func (p *Pod) FollowEvents(ctx context.Context, after int64, done func() bool, fn func(runtimev1.Event) bool) error {
	for {
		evs, err := p.ReadEvents(after)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			after = ev.Seq
			if !fn(ev) {
				return nil
			}
		}
		if len(evs) == 0 && done != nil && done() {
			// One more read: events written between the read and the check.
			evs, err := p.ReadEvents(after)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				if !fn(ev) {
					return nil
				}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
