package store

import (
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
		if parts := strings.SplitN(rest, "-", 3); len(parts) == 3 && parts[2] == name {
			return true
		}
	}
	return false
}
