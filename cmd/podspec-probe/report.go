package main

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"podspec.dev/podspec/conformance/probe"
)

// cgroupRoot is where the process's cgroup is mounted inside a container.
const cgroupRoot = "/sys/fs/cgroup"

// gatherReport collects what the process sees; unreadable parts are left empty.
func gatherReport(read []string) *probe.Report {
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
	if f, err := os.Open("/proc/self/mountinfo"); err == nil {
		r.Mounts = parseMountinfo(f)
		f.Close()
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
	return r
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

// parseMountinfo reads /proc/self/mountinfo lines:
// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
func parseMountinfo(f *os.File) []probe.Mount {
	var out []probe.Mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m, err := parseMountinfoLine(sc.Text())
		if err == nil {
			out = append(out, m)
		}
	}
	return out
}

func parseMountinfoLine(line string) (probe.Mount, error) {
	fields := strings.Fields(line)
	sep := -1
	for i, f := range fields {
		if f == "-" && i >= 6 {
			sep = i
			break
		}
	}
	if sep < 0 || sep+2 >= len(fields) {
		return probe.Mount{}, errors.New("malformed mountinfo line")
	}
	m := probe.Mount{
		Path:   unescapeOctal(fields[4]),
		FSType: fields[sep+1],
		Source: unescapeOctal(fields[sep+2]),
	}
	for _, o := range strings.Split(fields[5], ",") {
		if o == "ro" {
			m.ReadOnly = true
		}
	}
	return m, nil
}

// unescapeOctal undoes the \040-style escapes of mountinfo.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
