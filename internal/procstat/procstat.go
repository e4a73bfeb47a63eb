// Package procstat reads the fields podspec needs of /proc/PID/stat: a process's state, its
// parent and its start time. The command name, in parentheses, may hold any byte (spaces and
// parentheses included), so the fields are read after its last closing parenthesis.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat is what podspec reads of a process's /proc/PID/stat.
type Stat struct {
	// State is field 3: R, S, D, Z (zombie), X (dead), T, t, I, ...
	State byte
	// PPID is field 4, the parent's process ID.
	PPID int
	// Flags is field 9, the kernel's flags word of the process (PF_* in linux/sched.h).
	Flags uint64
	// StartTime is field 22, the start time in clock ticks since boot; 0 when the kernel's line
	// is too short to hold it.
	StartTime uint64
}

// Ended reports whether the process has ended: a zombie or dead.
func (s Stat) Ended() bool { return s.State == 'Z' || s.State == 'X' }

// pfExiting is the kernel's PF_EXITING flag: set once the process's exit has begun.
const pfExiting = 0x4

// Exiting reports whether the process has ended or its exit has begun (PF_EXITING): the init
// of a PID namespace stays in its exit, neither zombie nor dead, until the namespace's other
// processes have been reaped.
func (s Stat) Exiting() bool { return s.Ended() || s.Flags&pfExiting != 0 }

// Read reads /proc/PID/stat. The error wraps os.ErrNotExist when there is no such process.
func Read(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return Parse(b)
}

// StartTime returns the start time of process pid in clock ticks since boot (field 22), or 0
// if there is no such process: with the pid, it tells a process from a later one that reused
// its pid.
func StartTime(pid int) uint64 {
	st, err := Read(pid)
	if err != nil {
		return 0
	}
	return st.StartTime
}

// Parse parses the content of a /proc/PID/stat file.
func Parse(b []byte) (Stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("malformed /proc stat line %q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("malformed /proc stat line %q", b)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return Stat{}, fmt.Errorf("malformed /proc stat line %q: parent %q", b, f[1])
	}
	s := Stat{State: f[0][0], PPID: ppid}
	// f[6] is field 9, the flags.
	if len(f) >= 7 {
		s.Flags, _ = strconv.ParseUint(f[6], 10, 64)
	}
	// f[0] is field 3; the start time is field 22.
	if len(f) >= 20 {
		s.StartTime, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return s, nil
}
