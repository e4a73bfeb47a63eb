//go:build !unix

package validator

import (
	"os"
)

// ReadFile reads a named input of at most max bytes (no limit when max <= 0): a regular file
// larger than max is refused from its size without being read, and anything else is read up to
// max bytes and no further. An input over the limit is a *TooLargeError.
func ReadFile(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && max > 0 && st.Size() > max {
		return nil, &TooLargeError{Name: name, Size: st.Size(), Limit: max}
	}
	return ReadStream(f, name, max)
}
