//go:build !unix

package validator

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// readFile reads a file unless it is larger than max bytes (then tooBig is its size).
func readFile(name string, max int64) (data []byte, tooBig int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
		if max > 0 && size > max {
			return nil, size, nil
		}
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", name, err)
	}
	if max > 0 && int64(buf.Len()) > max {
		return nil, int64(buf.Len()), nil
	}
	return buf.Bytes(), 0, nil
}
