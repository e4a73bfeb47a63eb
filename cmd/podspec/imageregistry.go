//go:build linux

package main

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/registry"
)

// pruneGrace is prune's default --older-than: it spares images pulled or unpacked this
// recently, since a pod being created may hold one its state does not name yet.
const pruneGrace = time.Minute

func newImagePullCmd() *cobra.Command {
	var policy string
	cmd := &cobra.Command{
		Use:   "pull IMAGE...",
		Short: "Pull registry images into the runtime's image store",
		Long: "Pull resolves each registry reference ([HOST[:PORT]/]PATH[:TAG][@DIGEST]) and fetches what the\n" +
			"store lacks, every blob verified; it prints {\"image\",\"imageID\"} per image as JSON lines.",
		Args: cobra.MinimumNArgs(1),
	}
	f := addRuntimeFlags(cmd)
	addRegistryFlags(cmd, f)
	cmd.Flags().StringVar(&policy, "policy", string(v1alpha1.PullAlways), "Always, IfNotPresent or Never")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		switch p := v1alpha1.PullPolicy(policy); p {
		case v1alpha1.PullAlways, v1alpha1.PullIfNotPresent, v1alpha1.PullNever:
		default:
			return errf(runtimev1.CodeUsage, "--policy %q: want Always, IfNotPresent or Never", policy)
		}
		s, err := f.store()
		if err != nil {
			return err
		}
		r := f.puller(s.Root)
		for _, a := range args {
			p, err := r.Pull(cmd.Context(), a, v1alpha1.PullPolicy(policy))
			if err != nil {
				return errf(failedOrIO(err), "%v", err)
			}
			if err := cli.PrintJSON(map[string]string{"image": p.Ref.String(), "imageID": p.ImageID()}); err != nil {
				return err
			}
		}
		return nil
	})
	return cmd
}

func newImageLsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "ls", Short: "List the registry images the runtime's image store holds, and the pods using them", Args: cli.Args(0)}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, _ []string) error {
		_, r, used, err := f.imageStores()
		if err != nil {
			return err
		}
		held, err := r.List()
		if err != nil {
			return errf(runtimev1.CodeIO, "%v", err)
		}
		type row struct {
			registry.Held
			Pods []string `json:"pods"`
		}
		rows := []row{}
		for _, h := range held {
			rows = append(rows, row{Held: h, Pods: append([]string{}, used[h.Digest]...)})
		}
		return cli.PrintJSON(rows)
	})
	return cmd
}

func newImageRmCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "rm IMAGE...", Short: "Remove registry images no pod uses from the runtime's image store", Args: cobra.MinimumNArgs(1)}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		s, r, used, err := f.imageStores()
		if err != nil {
			return err
		}
		inUse := digests(used)
		removed := []string{}
		for _, a := range args {
			d, err := r.Forget(a, inUse)
			if err != nil {
				if errors.Is(err, registry.ErrInUse) {
					return errf(runtimev1.CodeConflict, "%v", err)
				}
				return errf(runtimev1.CodeNotFound, "%v", err)
			}
			if d != "" {
				removed = append(removed, d)
				if err := s.Remove(d); err != nil {
					return errf(runtimev1.CodeIO, "%v", err)
				}
			}
		}
		return cli.PrintJSON(map[string][]string{"removed": removed})
	})
	return cmd
}

func newImagePruneCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Remove every image no pod uses: pulled registry images and unpacked root filesystems",
		Long:  "Prune spares images pulled or unpacked less than --older-than ago (a pod being created may hold one).",
		Args:  cli.Args(0),
	}
	f := addRuntimeFlags(cmd)
	var olderThan time.Duration
	cmd.Flags().DurationVar(&olderThan, "older-than", pruneGrace, "spare images pulled or unpacked more recently (Go duration)")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, _ []string) error {
		s, r, used, err := f.imageStores()
		if err != nil {
			return err
		}
		inUse := digests(used)
		pulled, err := r.Prune(inUse, olderThan)
		if err != nil {
			return errf(runtimev1.CodeIO, "%v", err)
		}
		unpacked, err := s.Prune(inUse, olderThan)
		if err != nil {
			return errf(runtimev1.CodeIO, "%v", err)
		}
		return cli.PrintJSON(map[string][]string{"pulled": nonNil(pulled), "unpacked": nonNil(unpacked)})
	})
	return cmd
}

// imageStores opens the runtime root's image stores, with the pods using each manifest digest
// (the images their states pinned).
func (f *rtFlags) imageStores() (*image.Store, *registry.Store, map[string][]string, error) {
	s, err := f.store()
	if err != nil {
		return nil, nil, nil, err
	}
	names, err := s.List()
	if err != nil {
		return nil, nil, nil, errf(runtimev1.CodeIO, "%v", err)
	}
	used := map[string][]string{}
	for _, n := range names {
		p, err := s.Pod(n)
		if err != nil {
			continue
		}
		st, err := p.ReadState()
		if err != nil {
			// A pod whose state cannot be read keeps everything: nothing is pruned.
			return nil, nil, nil, errf(runtimev1.CodeIO, "pod %s: %v; nothing removed", n, err)
		}
		for _, ref := range st.Images {
			if i := strings.LastIndexByte(ref, '@'); i >= 0 && !slices.Contains(used[ref[i+1:]], n) {
				used[ref[i+1:]] = append(used[ref[i+1:]], n)
			}
		}
	}
	return &image.Store{Root: filepath.Join(s.Root, backend.ImagesDir)}, f.puller(s.Root), used, nil
}

func digests(used map[string][]string) map[string]bool {
	out := make(map[string]bool, len(used))
	for d := range used {
		out[d] = true
	}
	return out
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
