package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/moby/sys/mountinfo"

	"podspec.dev/podspec/bench/internal/host"
	"podspec.dev/podspec/ocilayout"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/oci"
	"podspec.dev/podspec/reference/reaper"
)

// handSystem is the floor: the same containers with plain runc, by hand, with no supervisor.
// Each container gets an overlay root filesystem of its own over the unpacked image, as
// podspec's do; this process is their subreaper, and its reaper reaps them.
type handSystem struct {
	work, root string
	parallel   int
	imgs       *image.Store
	img        *ocilayout.Image
	ids        []string
	pids       []int
	exits      []<-chan reaper.ExitStatus // each container's end, from the reaper
	reaper     *reaper.Reaper
	cleanups   []func() error
	rounds     int
}

func newHand(ctx context.Context, work, layout string, parallel int, rp *reaper.Reaper) (*handSystem, error) {
	if _, err := exec.LookPath("runc"); err != nil {
		return nil, err
	}
	h := &handSystem{work: filepath.Join(work, "hand"), root: filepath.Join(work, "hand-runc"), parallel: parallel, reaper: rp}
	h.imgs = &image.Store{Root: filepath.Join(work, "hand-images")}
	ref, err := ocilayout.ParseReference("oci:"+layout, "")
	if err != nil {
		return nil, err
	}
	if h.img, err = h.imgs.Resolve(ctx, ref); err != nil {
		return nil, err
	}
	if _, err := h.imgs.Unpack(ctx, h.img); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *handSystem) name() string { return "hand" }

func (h *handSystem) start(ctx context.Context, n int) error {
	h.rounds++
	h.ids = make([]string, n)
	h.pids = make([]int, n)
	h.exits = make([]<-chan reaper.ExitStatus, n)
	h.cleanups = make([]func() error, n)
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer devnull.Close()
	return fanOut(n, h.parallel, func(i int) error {
		id := fmt.Sprintf("hand%d-%04d", h.rounds, i)
		bundle := filepath.Join(h.work, id)
		if err := os.MkdirAll(bundle, 0o700); err != nil {
			return err
		}
		cleanup, err := h.imgs.NewRootfs(ctx, h.img, filepath.Join(bundle, "rootfs"))
		if err != nil {
			return err
		}
		h.cleanups[i] = cleanup
		if err := oci.WriteBundle(bundle, oci.ContainerConfig{Rootfs: filepath.Join(bundle, "rootfs"), Args: []string{"sleep", "3600"}}); err != nil {
			return err
		}
		pidFile := filepath.Join(bundle, "pid")
		cmd := exec.CommandContext(ctx, "runc", "--root", h.root, "run", "--detach", "--pid-file", pidFile, "--bundle", bundle, id)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
		if err := reaper.RunCmd(cmd); err != nil {
			return fmt.Errorf("runc run %s: %w", id, err)
		}
		h.ids[i] = id
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return err
		}
		if h.pids[i], err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			return err
		}
		h.exits[i] = h.reaper.Watch(h.pids[i])
		host.WaitExecuted(h.pids[i], 10*time.Second)
		return nil
	})
}

func (h *handSystem) signal(ctx context.Context) error {
	return fanOut(len(h.ids), h.parallel, func(i int) error {
		_, err := command(ctx, "runc", "--root", h.root, "kill", h.ids[i], "HUP")
		return err
	})
}

func (h *handSystem) exec(ctx context.Context) error {
	return fanOut(len(h.ids), h.parallel, func(i int) error {
		_, err := command(ctx, "runc", "--root", h.root, "exec", h.ids[i], "true")
		return err
	})
}

func (h *handSystem) perPod() ([]int, error) { return nil, nil }

func (h *handSystem) remove(ctx context.Context) error {
	return fanOut(len(h.ids), h.parallel, func(i int) error {
		var errs []error
		if h.ids[i] != "" {
			command(ctx, "runc", "--root", h.root, "kill", h.ids[i], "KILL")
			if h.exits[i] != nil {
				<-h.exits[i]
			}
			if _, err := command(ctx, "runc", "--root", h.root, "delete", "--force", h.ids[i]); err != nil {
				errs = append(errs, err)
			}
		}
		if h.cleanups[i] != nil {
			if err := h.cleanups[i](); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return errs[0]
		}
		return nil
	})
}

func (h *handSystem) leftovers() []string {
	var left []string
	if out, _ := reaper.Output(exec.Command("runc", "--root", h.root, "list", "-q")); len(strings.TrimSpace(string(out))) > 0 {
		left = append(left, fmt.Sprintf("%d runc containers", len(strings.Fields(string(out)))))
	}
	if mounts, _ := mountinfo.GetMounts(mountinfo.PrefixFilter(h.work)); len(mounts) > 0 {
		left = append(left, fmt.Sprintf("%d mounts", len(mounts)))
	}
	return left
}

func (h *handSystem) close() {}
