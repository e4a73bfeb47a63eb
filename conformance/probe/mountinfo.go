package probe

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// ParseMountinfo reads /proc/PID/mountinfo lines and skips malformed ones:
// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS.
// The workload reports its own mounts with it and the harness reads the host's, so that both
// sides name devices and roots the same way.
func ParseMountinfo(r io.Reader) []Mount {
	var out []Mount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if m, err := ParseMountinfoLine(sc.Text()); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// ParseMountinfoLine parses one mountinfo line.
func ParseMountinfoLine(line string) (Mount, error) {
	fields := strings.Fields(line)
	sep := -1
	for i, f := range fields {
		if f == "-" && i >= 6 {
			sep = i
			break
		}
	}
	if sep < 0 || sep+2 >= len(fields) {
		return Mount{}, errors.New("malformed mountinfo line")
	}
	m := Mount{
		Path:   unescapeOctal(fields[4]),
		FSType: fields[sep+1],
		Source: unescapeOctal(fields[sep+2]),
		Root:   unescapeOctal(fields[3]),
		Device: fields[2],
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
