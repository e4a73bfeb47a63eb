package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/internal/atomicfile"
)

// Shared named volumes (docs/spec/gc-volumes.md, VOL-010 … VOL-013) live below the runtime
// root in volumes/NAME, one directory per shared.name, whichever pods declare it. Which pods
// hold a volume is recorded, by pod UID, in volumes/.refs/NAME.json; every change to those
// records happens under the exclusive lock volumes/.lock and is written atomically, so two
// commands creating and removing pods at once never lose a reference or delete a volume a pod
// still declares.

// SharedVolumesDir is the directory of shared volumes below the root.
const SharedVolumesDir = "volumes"

const (
	sharedRefsDir  = ".refs"
	sharedLockFile = ".lock"
)

// VolumeRef is one pod's claim on a shared volume.
type VolumeRef struct {
	// Pod is the pod's name (informational; the key is its UID).
	Pod string `json:"pod"`
	// ReclaimPolicy is what the pod says should happen to the volume when it is the last to go.
	ReclaimPolicy v1alpha1.ReclaimPolicy `json:"reclaimPolicy"`
}

// volumeRefs is the content of a refs file.
type volumeRefs struct {
	Volume string `json:"volume"`
	// Pods maps pod UIDs to their claims.
	Pods map[string]VolumeRef `json:"pods"`
}

// SharedVolumePath is the host directory of shared volume name.
func (s *Store) SharedVolumePath(name string) string {
	return filepath.Join(s.Root, SharedVolumesDir, name)
}

func (s *Store) refsPath(name string) string {
	return filepath.Join(s.Root, SharedVolumesDir, sharedRefsDir, name+".json")
}

// lockVolumes takes the exclusive lock of the shared volumes' records.
func (s *Store) lockVolumes() (*Lock, error) {
	if err := os.MkdirAll(filepath.Join(s.Root, SharedVolumesDir, sharedRefsDir), 0o700); err != nil {
		return nil, fmt.Errorf("shared volumes: %w", err)
	}
	return lockFile(filepath.Join(s.Root, SharedVolumesDir, sharedLockFile), unix.LOCK_EX)
}

func (s *Store) readRefs(name string) (*volumeRefs, error) {
	refs := &volumeRefs{Volume: name, Pods: map[string]VolumeRef{}}
	b, err := os.ReadFile(s.refsPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shared volume %s: %w", name, err)
	}
	if err := json.Unmarshal(b, refs); err != nil {
		return nil, fmt.Errorf("shared volume %s: decode %s: %w", name, s.refsPath(name), err)
	}
	if refs.Pods == nil {
		refs.Pods = map[string]VolumeRef{}
	}
	return refs, nil
}

func (s *Store) writeRefs(refs *volumeRefs) error {
	b, err := json.MarshalIndent(refs, "", "  ")
	if err != nil {
		return fmt.Errorf("shared volume %s: %w", refs.Volume, err)
	}
	return atomicfile.WriteFile(s.refsPath(refs.Volume), append(b, '\n'), 0o600)
}

// sharedVolumes returns the shared volumes a pod declares, by shared.name (a pod that
// declares one name twice holds one reference, with the last declaration's policy).
func sharedVolumes(vols []v1alpha1.Volume) (map[string]v1alpha1.ReclaimPolicy, error) {
	out := map[string]v1alpha1.ReclaimPolicy{}
	for _, v := range vols {
		if v.Shared == nil {
			continue
		}
		if err := ValidName(v.Shared.Name); err != nil {
			return nil, fmt.Errorf("volume %s: shared: %w", v.Name, err)
		}
		p := v.Shared.ReclaimPolicy
		if p == "" {
			p = v1alpha1.ReclaimPolicyRetain
		}
		out[v.Shared.Name] = p
	}
	return out, nil
}

// AcquireSharedVolumes records that pod (name, uid) declares its shared volumes, creating each
// volume's directory, empty, if it does not exist (VOL-010). It is idempotent per UID.
func (s *Store) AcquireSharedVolumes(pod, uid string, vols []v1alpha1.Volume) error {
	want, err := sharedVolumes(vols)
	if err != nil || len(want) == 0 {
		return err
	}
	l, err := s.lockVolumes()
	if err != nil {
		return err
	}
	defer l.Unlock()
	for _, name := range sortedKeys(want) {
		refs, err := s.readRefs(name)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(s.SharedVolumePath(name), 0o755); err != nil {
			return fmt.Errorf("shared volume %s: %w", name, err)
		}
		refs.Pods[uid] = VolumeRef{Pod: pod, ReclaimPolicy: want[name]}
		if err := s.writeRefs(refs); err != nil {
			return err
		}
	}
	return nil
}

// ReleaseSharedVolumes drops the references of pod uid. A volume left without pods is deleted
// if this pod's reclaimPolicy is Delete (VOL-012) and kept with its content otherwise (VOL-013).
// It returns the names of the volumes it deleted. It is idempotent.
func (s *Store) ReleaseSharedVolumes(uid string, vols []v1alpha1.Volume) ([]string, error) {
	want, err := sharedVolumes(vols)
	if err != nil || len(want) == 0 {
		return nil, err
	}
	l, err := s.lockVolumes()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	var deleted []string
	var errs []error
	for _, name := range sortedKeys(want) {
		refs, err := s.readRefs(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ref, held := refs.Pods[uid]
		if !held {
			continue
		}
		delete(refs.Pods, uid)
		if len(refs.Pods) > 0 {
			if err := s.writeRefs(refs); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		// The last pod is gone: reclaim, then forget the record.
		if ref.ReclaimPolicy == v1alpha1.ReclaimPolicyDelete {
			if err := os.RemoveAll(s.SharedVolumePath(name)); err != nil {
				errs = append(errs, fmt.Errorf("delete shared volume %s: %w", name, err))
				continue
			}
			deleted = append(deleted, name)
		}
		if err := os.Remove(s.refsPath(name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("shared volume %s: %w", name, err))
		}
	}
	if err := atomicfile.SyncDir(filepath.Join(s.Root, SharedVolumesDir)); err != nil {
		errs = append(errs, err)
	}
	return deleted, errors.Join(errs...)
}

// ReleaseSharedVolumesOf is ReleaseSharedVolumes for a pod whose manifest is lost (its state
// is unreadable): every shared volume that records uid.
func (s *Store) ReleaseSharedVolumesOf(uid string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.Root, SharedVolumesDir, sharedRefsDir))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("shared volumes: %w", err)
	}
	var vols []v1alpha1.Volume
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || ValidName(name) != nil {
			continue
		}
		refs, err := s.readRefs(name)
		if err != nil {
			return nil, err
		}
		if ref, held := refs.Pods[uid]; held {
			vols = append(vols, v1alpha1.Volume{Name: name, Shared: &v1alpha1.SharedVolumeSource{Name: name, ReclaimPolicy: ref.ReclaimPolicy}})
		}
	}
	return s.ReleaseSharedVolumes(uid, vols)
}

// SharedVolumeUsers returns the UIDs of the pods that hold shared volume name, sorted.
func (s *Store) SharedVolumeUsers(name string) ([]string, error) {
	refs, err := s.readRefs(name)
	if err != nil {
		return nil, err
	}
	return sortedKeys(refs.Pods), nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
