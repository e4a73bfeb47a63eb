package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// LookupGate is a FUSE file system served by the harness whose one directory, Dir, can be made
// to hold every lookup of it: a runtime that bind-mounts Dir into a container (a hostPath
// volume) then waits in that container's creation until the harness lets it go. It makes "a
// stop arrives while an instance is being created" a certainty instead of a matter of timing,
// for any runtime that resolves the volume's source path while it creates the container. The
// kernel caches no entry or attribute of it, so every resolution of Dir reaches the harness.
// It needs root (a direct FUSE mount) and /dev/fuse.
type LookupGate struct {
	// Dir is the gated directory: a hostPath volume's path.
	Dir    string
	mnt    string
	server *fuse.Server

	mu      sync.Mutex
	armed   bool
	open    chan struct{} // closed when the armed gate opens
	blocked chan struct{} // closed at the first lookup held
}

// gateRoot is the file system's root: a directory with one entry, "dir", an empty directory.
type gateRoot struct {
	fs.Inode
	g *LookupGate
}

var _ fs.NodeLookuper = (*gateRoot)(nil)

// gateDir is "dir".
type gateDir struct{ fs.Inode }

func (r *gateRoot) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if name != "dir" {
		return nil, syscall.ENOENT
	}
	r.g.hold(ctx)
	out.Mode = syscall.S_IFDIR | 0o755
	out.SetEntryTimeout(0)
	out.SetAttrTimeout(0)
	return r.NewInode(ctx, &gateDir{}, fs.StableAttr{Mode: syscall.S_IFDIR, Ino: 2}), 0
}

// hold waits while the gate is armed (or until the lookup is interrupted).
func (g *LookupGate) hold(ctx context.Context) {
	g.mu.Lock()
	if !g.armed {
		g.mu.Unlock()
		return
	}
	open, blocked := g.open, g.blocked
	select {
	case <-blocked:
	default:
		close(blocked)
	}
	g.mu.Unlock()
	select {
	case <-open:
	case <-ctx.Done():
	}
}

// MountLookupGate mounts a LookupGate on a fresh directory under parent. Close unmounts it.
func MountLookupGate(parent string) (*LookupGate, error) {
	mnt, err := os.MkdirTemp(parent, "lookup-gate-")
	if err != nil {
		return nil, err
	}
	g := &LookupGate{Dir: filepath.Join(mnt, "dir"), mnt: mnt}
	zero := time.Duration(0)
	g.server, err = fs.Mount(mnt, &gateRoot{g: g}, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{FsName: "podspec-lookup-gate", Name: "podspec", DirectMount: true, AllowOther: true},
	})
	if err != nil {
		os.Remove(mnt)
		return nil, fmt.Errorf("mount the lookup gate (FUSE) on %s: %w", mnt, err)
	}
	return g, nil
}

// Arm makes every later lookup of Dir wait for Open; Blocked is closed at the first one held.
func (g *LookupGate) Arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.open, g.blocked = true, make(chan struct{}), make(chan struct{})
}

// Blocked is closed once a lookup of Dir waits at the armed gate.
func (g *LookupGate) Blocked() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.blocked
}

// Open lets every held lookup go on, and every later one through.
func (g *LookupGate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.armed {
		g.armed = false
		close(g.open)
	}
}

// Close opens the gate and unmounts the file system (lazily, if something still uses it).
func (g *LookupGate) Close() error {
	g.Open()
	err := g.server.Unmount()
	if err != nil {
		err = syscall.Unmount(g.mnt, syscall.MNT_DETACH)
	}
	if err == nil {
		err = os.Remove(g.mnt)
	}
	return err
}
