package filetype

import (
	"io/fs"
	"testing"
)

func TestNameSaysWhatKindOfFileItIs(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0o644:                             "a regular file",
		fs.ModeDir | 0o755:                "a directory",
		fs.ModeSymlink:                    "a symbolic link",
		fs.ModeNamedPipe:                  "a named pipe (FIFO)",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a block device",
		fs.ModeIrregular:                  "a special file",
	} {
		if got := Name(m); got != want {
			t.Errorf("Name(%v) = %q, want %q", m, got, want)
		}
	}
}
