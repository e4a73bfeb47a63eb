// Package flock takes exclusive advisory locks (flock(2)) on lock files, waiting in a way a
// context can cancel. It serialises processes that build or unpack the same content, and
// bounds how many processes do something at once (Slot, a counting semaphore of lock files).
package flock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// pollInterval is how often a waiting Exclusive retries.
const pollInterval = 20 * time.Millisecond

// Exclusive takes an exclusive flock on path (created 0600 if missing) and returns the function
// that releases it. It waits while another open file holds the lock, until ctx is done.
func Exclusive(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// sweepFirst and sweepMax bound the interval at which a waiting Slot tries every slot again;
// it doubles from the first to the last.
const (
	sweepFirst = 20 * time.Millisecond
	sweepMax   = time.Second
)

// Slot takes one of n slots of dir, a counting semaphore shared by every process that uses the
// same dir and n: slot i is an exclusive flock on dir/slot-i (dir and the files are created
// when missing), so at most n holders at once, and the kernel frees the slot of a process that
// dies holding it. It returns the function that gives the slot back, or ctx's error.
//
// A waiter blocks in flock(2) on one slot picked at random, woken as soon as that one is free,
// and tries every slot without blocking at an interval that grows from 20 ms to 1 s, so that a
// slot freed elsewhere is not left idle for long while it waits. No order among waiters.
func Slot(ctx context.Context, dir string, n int) (release func(), err error) {
	if n < 1 {
		return nil, fmt.Errorf("slots %s: %d slots, want at least 1", dir, n)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("slots %s: %w", dir, err)
	}
	files := make([]*os.File, n)
	closeAll := func(keep int) {
		for i, f := range files {
			if f != nil && i != keep {
				f.Close()
			}
		}
	}
	for i := range files {
		if files[i], err = os.OpenFile(filepath.Join(dir, fmt.Sprintf("slot-%d", i)), os.O_CREATE|os.O_RDWR, 0o600); err != nil {
			closeAll(-1)
			return nil, fmt.Errorf("slots %s: %w", dir, err)
		}
	}
	holding := func(i int) func() {
		closeAll(i)
		f := files[i]
		return sync.OnceFunc(func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() })
	}
	// try takes a free slot other than skip without waiting: its index, -1 if none is free.
	first := rand.IntN(n)
	try := func(skip int) (int, error) {
		for k := range n {
			i := (first + k) % n
			if i == skip {
				continue
			}
			err := unix.Flock(int(files[i].Fd()), unix.LOCK_EX|unix.LOCK_NB)
			if err == nil {
				return i, nil
			}
			if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
				return -1, fmt.Errorf("slots %s: %w", dir, err)
			}
		}
		return -1, nil
	}
	if i, err := try(-1); err != nil || i >= 0 {
		if err != nil {
			closeAll(-1)
			return nil, err
		}
		return holding(i), nil
	}
	// Block on one slot in a goroutine of its own (flock(2) cannot be cancelled); when the
	// wait is given up, that goroutine frees the slot it gets and closes its file.
	w := first
	wf := files[w]
	files[w] = nil // owned by the waiting goroutine from here on
	got := make(chan error, 1)
	go func() {
		for {
			err := unix.Flock(int(wf.Fd()), unix.LOCK_EX)
			if !errors.Is(err, unix.EINTR) {
				got <- err
				return
			}
		}
	}()
	abandon := func() {
		go func() {
			if <-got == nil {
				_ = unix.Flock(int(wf.Fd()), unix.LOCK_UN)
			}
			wf.Close()
		}()
	}
	sweep := sweepFirst
	timer := time.NewTimer(sweep)
	defer timer.Stop()
	for {
		select {
		case err := <-got:
			if err != nil {
				wf.Close()
				closeAll(-1)
				return nil, fmt.Errorf("slots %s: %w", dir, err)
			}
			files[w] = wf
			return holding(w), nil
		case <-ctx.Done():
			abandon()
			closeAll(-1)
			return nil, ctx.Err()
		case <-timer.C:
			i, err := try(w)
			if err != nil || i >= 0 {
				abandon()
				if err != nil {
					closeAll(-1)
					return nil, err
				}
				return holding(i), nil
			}
			sweep = min(2*sweep, sweepMax)
			timer.Reset(sweep)
		}
	}
}
