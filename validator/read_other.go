//go:build !unix

package validator

import (
	"io"
	"os"
)

// ReadFile reads a named input of at most max bytes (no limit when max <= 0): a regular file
// larger than max is refused from its size without being read, and anything else is read up to
// max bytes and no further. An input over the limit is a *TooLargeError.
func ReadFile(name string, max int64) ([]byte, error) {
	data, _, err := readOrOpen(name, max, 0)
	return data, err
}

// readOrOpen is ReadFile, except that a regular file larger than streamOver bytes (when
// streamOver > 0) is not read but returned open, to be read one document at a time; the caller
// closes it.
func readOrOpen(name string, max, streamOver int64) (data []byte, large io.ReadCloser, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if max > 0 && st.Size() > max {
			f.Close()
			return nil, nil, &TooLargeError{Name: name, Size: st.Size(), Limit: max}
		}
		if streamOver > 0 && st.Size() > streamOver {
			return nil, f, nil
		}
	}
	defer f.Close()
	data, err = ReadStream(f, name, max)
	return data, nil, err
}
