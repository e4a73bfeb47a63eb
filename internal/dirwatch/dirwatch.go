// Package dirwatch tells a caller that waits for something to be written in a directory when to
// look again: an inotify watch of the directory, through github.com/fsnotify/fsnotify (the
// maintained Go wrapper of inotify, rather than the system calls by hand). The kernel may refuse
// the watch: each user may hold fs.inotify.max_user_instances inotify instances (128 by
// default) and max_user_watches watches, shared by every process of the user on the host. A
// caller then polls instead, which is what Changes' nil channel tells it.
package dirwatch

import (
	"fmt"

	"github.com/fsnotify/fsnotify"
)

// Changes watches dir and returns a channel that receives after a change there that match
// accepts (a file created, renamed into place or written: fsnotify's Event), and stop, which
// ends the watch. The watch is in place when Changes returns, so a caller that reads what it
// waits for after setting it, and again after each receive, never misses a change. Receives
// coalesce: one pending receive stands for every change since the last; a lost event (the
// kernel's queue overflowed) is a receive too.
//
// When the kernel gives no watch (the inotify limits reached), the channel is nil, stop does
// nothing and err says why: a nil channel never receives in a select, so the caller's poll
// alone decides when it looks again.
func Changes(dir string, match func(fsnotify.Event) bool) (changed <-chan struct{}, stop func(), err error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, func() {}, fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, func() {}, fmt.Errorf("watch %s: %w", dir, err)
	}
	ch := make(chan struct{}, 1)
	signal := func() {
		select {
		case ch <- struct{}{}:
		default: // a receive is pending already
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if match(ev) {
					signal()
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				signal() // events may have been lost (a full queue): look again
			}
		}
	}()
	return ch, func() {
		w.Close()
		<-done
	}, nil
}
