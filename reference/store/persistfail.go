package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// IsNoSpace reports whether err is a write that failed for want of room: the file system is
// full (ENOSPC) or a quota is exhausted (EDQUOT). Such a write may succeed later.
func IsNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// PersistErrorFile, in a pod directory, is where the supervisor says that it cannot write the
// pod's state or events (a full disk). It has a fixed size, reserved when the pod is created,
// and is only ever overwritten in place, so that saying so needs no free space.
const PersistErrorFile = "persist.error"

// persistErrorSize is the reserved size of PersistErrorFile.
const persistErrorSize = 4096

// PersistFailure is what PersistErrorFile holds while writes fail.
type PersistFailure struct {
	// Since is when the first write failed.
	Since time.Time `json:"since"`
	// Error is the last write error.
	Error string `json:"error"`
}

// ReservePersistError creates the pod's PersistErrorFile, blank, if it does not exist.
func (p *Pod) ReservePersistError() error {
	f, err := os.OpenFile(p.Path(PersistErrorFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil
		}
		return fmt.Errorf("reserve %s: %w", PersistErrorFile, err)
	}
	_, err = f.Write(bytes.Repeat([]byte{' '}, persistErrorSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p.Path(PersistErrorFile))
		return fmt.Errorf("reserve %s: %w", PersistErrorFile, err)
	}
	return nil
}

// SetPersistError records in place that the pod's state or events cannot be written; a nil
// failure blanks the record again.
func (p *Pod) SetPersistError(pf *PersistFailure) error {
	b := []byte{}
	if pf != nil {
		var err error
		if b, err = json.Marshal(pf); err != nil {
			return err
		}
		if len(b) > persistErrorSize-1 {
			short := *pf
			short.Error = short.Error[:min(len(short.Error), persistErrorSize/2)]
			b, _ = json.Marshal(&short)
		}
	}
	f, err := os.OpenFile(p.Path(PersistErrorFile), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("record the write failure of %s: %w", p.Name, err)
	}
	defer f.Close()
	buf := bytes.Repeat([]byte{' '}, persistErrorSize)
	copy(buf, b)
	if _, err := f.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("record the write failure of %s: %w", p.Name, err)
	}
	return f.Sync()
}

// PersistError returns the failure the supervisor recorded, or nil while its writes succeed.
func (p *Pod) PersistError() *PersistFailure {
	b, err := os.ReadFile(p.Path(PersistErrorFile))
	if err != nil {
		return nil
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	var pf PersistFailure
	if json.Unmarshal(b, &pf) != nil {
		return nil
	}
	return &pf
}
