// Package host reads what the benchmarks report about the machine and its processes: the
// CPUs, the kernel, the load, memory from /proc, and whether a container's process runs its
// own program yet.
package host

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ProcKiB reads a "Key: N kB" line of /proc/PID/FILE (status, smaps_rollup), in KiB; 0 when
// the process or the line is gone.
func ProcKiB(pid int, file, key string) int {
	return kiBLine(fmt.Sprintf("/proc/%d/%s", pid, file), key)
}

// MemInfo reads a "Key: N kB" line of /proc/meminfo, in KiB.
func MemInfo(key string) int { return kiBLine("/proc/meminfo", key) }

// MemUsed is the machine's memory in use, MemTotal − MemAvailable, in KiB.
func MemUsed() int { return MemInfo("MemTotal:") - MemInfo("MemAvailable:") }

func kiBLine(path, key string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

// Loadavg is the first three fields of /proc/loadavg: the machine may be shared, and figures
// mean little without it.
func Loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// NumCPU is the number of processors /proc/cpuinfo lists.
func NumCPU() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

// Kernel is "Linux " and the running kernel's release.
func Kernel() string {
	var u unix.Utsname
	unix.Uname(&u)
	return "Linux " + unix.ByteSliceToString(u.Release[:])
}

// WaitExecuted waits, for at most timeout, until process pid runs its own program: its name is
// no longer runc's init ("runc:[2:INIT]"), as the reference waits before it records
// ContainerStarted.
func WaitExecuted(pid int, timeout time.Duration) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil || !strings.HasPrefix(string(b), "runc:") {
			return
		}
	}
}
