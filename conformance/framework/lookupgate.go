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

// LookupGate is a FUSE file system served by the harness whose directory Dir (or, mounted by
// MountSubLookupGate, its one subdirectory Sub) can be made to hold every lookup of it. A runtime
// that bind-mounts Dir into a container (a hostPath volume) then waits in that container's
// creation until the harness lets it go. It makes "a stop arrives while an instance is being
// created" a certainty instead of a matter of timing, for any runtime that resolves the volume's
// source path while it creates the container. Held at Sub, the volume mounts freely, and a process
// that changes into the volume's "sub" (its working directory) waits there instead, before it
// runs its command. The kernel caches no entry or attribute of it, so every resolution reaches
// the harness. It needs root (a direct FUSE mount) and /dev/fuse.
type LookupGate struct {
	// Dir is the gated directory: a hostPath volume's path.
	Dir string
	// Sub is Dir's one entry, "sub", an empty directory.
	Sub     string
	holdSub bool // lookups of Sub are held, not those of Dir
	mnt     string
	server  *fuse.Server

	mu      sync.Mutex
	armed   bool
	open    chan struct{} // closed when the armed gate opens
	blocked chan struct{} // closed at the first lookup held
}

// gateRoot is the file system's root: a directory with one entry, "dir", whose one entry is
// "sub", an empty directory.
type gateRoot struct {
	fs.Inode
	g *LookupGate
}

// gateDir is "dir" (sub false) or "dir/sub" (sub true).
type gateDir struct {
	fs.Inode
	g   *LookupGate
	sub bool
}

var (
	_ fs.NodeLookuper  = (*gateRoot)(nil)
	_ fs.NodeLookuper  = (*gateDir)(nil)
	_ fs.NodeGetattrer = (*gateDir)(nil)
)

func (r *gateRoot) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if name != "dir" {
		return nil, syscall.ENOENT
	}
	if !r.g.holdSub {
		r.g.hold(ctx)
	}
	return r.NewInode(ctx, &gateDir{g: r.g}, dirEntry(out, 2)), 0
}

func (d *gateDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if d.sub || name != "sub" {
		return nil, syscall.ENOENT
	}
	if d.g.holdSub {
		d.g.hold(ctx)
	}
	return d.NewInode(ctx, &gateDir{g: d.g, sub: true}, dirEntry(out, 3)), 0
}

// Getattr gives both directories mode 0755, so any user may enter them.
func (d *gateDir) Getattr(_ context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFDIR | 0o755
	out.SetTimeout(0)
	return 0
}

// dirEntry fills out as a directory's entry the kernel must not cache and returns its stable
// attributes.
func dirEntry(out *fuse.EntryOut, ino uint64) fs.StableAttr {
	out.Mode = syscall.S_IFDIR | 0o755
	out.SetEntryTimeout(0)
	out.SetAttrTimeout(0)
	return fs.StableAttr{Mode: syscall.S_IFDIR, Ino: ino}
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

// MountLookupGate mounts a LookupGate that holds lookups of Dir on a fresh directory under
// parent. Close unmounts it.
func MountLookupGate(parent string) (*LookupGate, error) { return mountLookupGate(parent, false) }

// MountSubLookupGate mounts a LookupGate that holds lookups of Sub (and lets those of Dir
// through) on a fresh directory under parent. Close unmounts it.
func MountSubLookupGate(parent string) (*LookupGate, error) { return mountLookupGate(parent, true) }

func mountLookupGate(parent string, holdSub bool) (*LookupGate, error) {
	mnt, err := os.MkdirTemp(parent, "lookup-gate-")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(mnt, "dir")
	g := &LookupGate{Dir: dir, Sub: filepath.Join(dir, "sub"), holdSub: holdSub, mnt: mnt}
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

// Arm makes every later lookup of the held directory (Dir, or Sub) wait for Open; Blocked is
// closed at the first one held.
func (g *LookupGate) Arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.open, g.blocked = true, make(chan struct{}), make(chan struct{})
}

// Blocked is closed once a lookup of the held directory waits at the armed gate.
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
