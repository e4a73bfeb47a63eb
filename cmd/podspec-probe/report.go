package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"podspec.dev/podspec/conformance/probe"
)

// cgroupRoot is where the process's cgroup is mounted inside a container.
const cgroupRoot = "/sys/fs/cgroup"

// gatherReport collects what the process sees; unreadable parts are left empty.
func gatherReport(read, list, stat []string) *probe.Report {
	r := &probe.Report{
		PID:  os.Getpid(),
		PPID: os.Getppid(),
		UID:  os.Getuid(),
		GID:  os.Getgid(),
		Args: os.Args,
		Env:  map[string]string{},
	}
	r.Hostname, _ = os.Hostname()
	r.Cwd, _ = os.Getwd()
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		r.Env[k] = v
	}
	r.Cgroup = readCgroup(cgroupRoot)
	r.NoNewPrivs, r.CapBnd = readStatus("/proc/self/status")
	r.Namespaces = map[string]string{}
	for _, ns := range []string{"net", "ipc", "uts", "pid", "mnt", "cgroup"} {
		if link, err := os.Readlink("/proc/self/ns/" + ns); err == nil {
			r.Namespaces[ns] = link
		}
	}
	r.Interfaces = readInterfaces("/proc/net/dev")
	r.Masked = map[string]string{}
	for _, p := range maskedPaths {
		r.Masked[p] = maskState(p)
	}
	for _, p := range readOnlyPaths {
		if _, err := os.Stat(p); err != nil {
			r.Absent = append(r.Absent, p)
		}
	}
	if mounts, err := probe.ReadMounts(); err != nil {
		r.MountsError = err.Error()
	} else {
		r.Mounts = mounts
	}
	for _, p := range read {
		data, err := os.ReadFile(p)
		if err != nil {
			if r.FileErrors == nil {
				r.FileErrors = map[string]string{}
			}
			r.FileErrors[p] = err.Error()
			continue
		}
		if r.Files == nil {
			r.Files = map[string]string{}
		}
		r.Files[p] = string(data)
	}
	for _, p := range stat {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			continue
		}
		if r.Stats == nil {
			r.Stats = map[string]probe.FileStat{}
		}
		r.Stats[p] = probe.FileStat{Mode: st.Mode, UID: st.Uid, GID: st.Gid, Mtime: st.Mtim.Sec}
	}
	for _, d := range list {
		if r.Dirs == nil {
			r.Dirs = map[string][]string{}
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			r.Dirs[d] = nil
			continue
		}
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		r.Dirs[d] = names
	}
	return r
}

// maskedPaths are the paths whose masking the report describes.
var maskedPaths = []string{"/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"}

// readOnlyPaths are the paths a runtime mounts read-only; the report says which are absent.
var readOnlyPaths = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}

// maskState describes how a path appears to the process.
func maskState(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "absent"
	}
	if fi.Mode()&os.ModeCharDevice != 0 {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Rdev == nullDevice {
			return "null-device"
		}
	}
	if fi.IsDir() {
		if entries, err := os.ReadDir(path); err == nil && len(entries) == 0 {
			return "empty"
		}
	}
	return "visible"
}

// nullDevice is the device number of /dev/null (1, 3).
const nullDevice = 1<<8 | 3

// readStatus reads NoNewPrivs and CapBnd from a /proc/PID/status file.
func readStatus(path string) (noNewPrivs bool, capBnd string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "NoNewPrivs":
			noNewPrivs = v == "1"
		case "CapBnd":
			capBnd = v
		}
	}
	return noNewPrivs, capBnd
}

// readInterfaces lists interface names from /proc/net/dev.
func readInterfaces(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		name, _, ok := strings.Cut(line, ":")
		if ok && !strings.Contains(name, "|") {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// readCgroup reads memory, pids and CPU limits under root, for cgroup v2 (a unified mount at
// root) or v1 (one directory per controller).
func readCgroup(root string) probe.CgroupLimits {
	var c probe.CgroupLimits
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
		c.Version = 2
		c.MemoryBytes = readLimit(filepath.Join(root, "memory.max"))
		c.Pids = readLimit(filepath.Join(root, "pids.max"))
		if data, err := os.ReadFile(filepath.Join(root, "cpu.max")); err == nil {
			f := strings.Fields(string(data))
			if len(f) == 2 {
				c.CPUQuotaMicros = parseLimit(f[0])
				c.CPUPeriodMicros = parseLimit(f[1])
			}
		}
		return c
	}
	if _, err := os.Stat(filepath.Join(root, "memory")); err != nil {
		return c
	}
	c.Version = 1
	c.MemoryBytes = readLimit(filepath.Join(root, "memory", "memory.limit_in_bytes"))
	c.Pids = readLimit(filepath.Join(root, "pids", "pids.max"))
	c.CPUQuotaMicros = readLimit(filepath.Join(root, "cpu", "cpu.cfs_quota_us"))
	c.CPUPeriodMicros = readLimit(filepath.Join(root, "cpu", "cpu.cfs_period_us"))
	return c
}

// v1Unlimited is the smallest value cgroup v1 uses to say "no memory limit" (page-aligned
// LONG_MAX).
const v1Unlimited = int64(1) << 62

func readLimit(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return parseLimit(strings.TrimSpace(string(data)))
}

// parseLimit reads a cgroup limit: "max", -1 and huge v1 values are unlimited (-1); garbage is
// unknown (0).
func parseLimit(s string) int64 {
	if s == "max" {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0
	}
	if n < 0 || n >= v1Unlimited {
		return -1
	}
	return n
}
