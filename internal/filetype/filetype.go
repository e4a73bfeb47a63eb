// Package filetype names the type of a file in words, for the errors and notes of the readers
// that refuse anything but regular files (validate's directory walk, the OCI layout reader).
package filetype

import "io/fs"

// Name is the type of a file of mode m with its article: "a regular file", "a directory", "a
// named pipe (FIFO)", "a symbolic link", "a socket", "a character device", "a block device",
// or "a special file".
func Name(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}
