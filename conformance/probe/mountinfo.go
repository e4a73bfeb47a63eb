package probe

import (
	"fmt"
	"io"
	"strings"

	"github.com/moby/sys/mountinfo"
)

// ReadMounts reads the mount table of the calling thread's mount namespace
// (/proc/thread-self/mountinfo), parsed and unescaped by github.com/moby/sys/mountinfo. The
// workload reports its own mounts with it and the harness reads the host's, so that both sides
// name devices and roots the same way. A table that cannot be read or parsed is an error, never
// a partial list: a mount missing from the host's table would map a container's mount to the
// wrong host path.
func ReadMounts() ([]Mount, error) {
	infos, err := mountinfo.GetMounts(nil)
	if err != nil {
		return nil, fmt.Errorf("read the mount table: %w", err)
	}
	return fromInfos(infos), nil
}

// ParseMountinfo parses a mount table in the format of /proc/PID/mountinfo
// (ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS).
func ParseMountinfo(r io.Reader) ([]Mount, error) {
	infos, err := mountinfo.GetMountsFromReader(r, nil)
	if err != nil {
		return nil, fmt.Errorf("parse the mount table: %w", err)
	}
	return fromInfos(infos), nil
}

func fromInfos(infos []*mountinfo.Info) []Mount {
	out := make([]Mount, 0, len(infos))
	for _, i := range infos {
		m := Mount{
			Path:   i.Mountpoint,
			FSType: i.FSType,
			Source: i.Source,
			Root:   i.Root,
			Device: fmt.Sprintf("%d:%d", i.Major, i.Minor),
		}
		for _, o := range strings.Split(i.Options, ",") {
			if o == "ro" {
				m.ReadOnly = true
			}
		}
		out = append(out, m)
	}
	return out
}
