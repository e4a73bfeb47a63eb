package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// mutantCreatorAtWork reports whether a work directory of a creator of the pod name exists
// (workName: .creating-PID-START-NAME), whether or not that creator still runs: the check of
// the mutant KilledRunHoldsName.
func (s *Store) mutantCreatorAtWork(name string) bool {
	ents, err := os.ReadDir(filepath.Join(s.Root, "pods"))
	if err != nil {
		return false
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), creatingPrefix)
		if !ok {
			continue
		}
		if _, _, pod, ok := parseWorkName(rest); ok && pod == name {
			return true
		}
	}
	return false
}

// mutantWriteInPlace is the state write of the mutant build state_written_in_place: the file is
// truncated and written where it is, as os.WriteFile does, so that a write that fails half-way
// (a full disk) leaves the part that was written. Only a mutant branch calls it, so a normal
// build does not link it.
func mutantWriteInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
