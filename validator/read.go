package validator

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// TooLargeError is an input over the size limit (manifest.Limits.MaxBytes).
type TooLargeError struct {
	// Name is the input's name as given.
	Name string
	// Size is the input's size in bytes, or -1 when it is unknown: the input is not a regular
	// file (a pipe, a device, standard input) or grew while it was read, and reading stopped
	// after Limit bytes.
	Size int64
	// Limit is the limit in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string { return e.Name + ": " + e.Detail() }

// Detail says what is too large, without the input's name.
func (e *TooLargeError) Detail() string {
	if e.Size < 0 {
		return fmt.Sprintf("more than %d bytes, the limit: the input is not a regular file of known size and was read no further", e.Limit)
	}
	return fmt.Sprintf("file is %d bytes, over the limit of %d bytes", e.Size, e.Limit)
}

// ReadStream reads r (named name in errors) to its end, but at most max bytes (no limit when
// max <= 0): a longer stream is a *TooLargeError, and an endless one is never read further.
func ReadStream(r io.Reader, name string, max int64) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no input")
	}
	if max > 0 {
		r = io.LimitReader(r, max+1)
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if max > 0 && int64(buf.Len()) > max {
		return nil, &TooLargeError{Name: name, Size: -1, Limit: max}
	}
	return buf.Bytes(), nil
}

// readHead reads r (named name in errors) whole when it ends within streamOver bytes (when
// streamOver > 0) and max bytes (when max > 0). A longer input over max is a *TooLargeError, as
// in ReadStream; one longer than streamOver but not known to be over max comes back as rest, a
// reader of all of it (the bytes read so far, then the rest of r), to be read one document at a
// time, so that a stream of any length on standard input or a pipe is never held whole.
func readHead(r io.Reader, name string, max, streamOver int64) (data []byte, rest io.Reader, err error) {
	if r == nil || streamOver <= 0 || max > 0 && max <= streamOver {
		data, err = ReadStream(r, name, max) // max is the tighter bound, or the only one
		return data, nil, err
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, streamOver+1)); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(buf.Len()) <= streamOver {
		return buf.Bytes(), nil, nil
	}
	return nil, io.MultiReader(&buf, r), nil
}
