//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/supervisor"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validator"
)

func init() { register(newUpdateCmd) }

func newUpdateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "update POD MANIFEST",
		Short: "Update a running pod in place (print its PodStatus once the update is accepted)",
		Long: "Validates MANIFEST, the full new Pod (same name), on its own and as an update of the pod's\n" +
			"stored manifest exactly as `podspec validate --update-from` does, and hands it to the pod's\n" +
			"supervisor: resources are applied live, a changed image, command, args or env restarts only\n" +
			"that container. A change that is not allowed in place is refused with its UPD findings (exit\n" +
			"1) and the pod is left as it was; a terminating or terminal pod is a Conflict (exit 5).",
		Args: cli.Args(2),
	}
	f := addRuntimeFlags(cmd)
	addRegistryFlags(cmd, f)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		p, release, err := f.pod(args[0])
		if err != nil {
			return err
		}
		defer release()
		if err := f.ensureSupervisor(cmd.Context(), p); err != nil {
			return err
		}
		st, err := p.ReadState()
		if err != nil {
			return err
		}
		newPod, err := validateUpdate(args[1], &st.Pod)
		if err != nil {
			return err
		}
		if st.Pod.Status.FinishedAt != nil {
			return errf(runtimev1.CodeConflict, "pod %s is %s: a terminal pod cannot be updated", p.Name, st.Pod.Status.Phase)
		}
		if cond(st.Pod.Status, v1alpha1.PodTerminating) {
			return errf(runtimev1.CodeConflict, "pod %s is terminating: it cannot be updated (%s)", p.Name, spec.UPD004)
		}
		images, err := f.resolveChangedImages(cmd.Context(), newPod, &st.Pod, filepath.Dir(args[1]))
		if err != nil {
			return err
		}
		payload, err := json.Marshal(engine.UpdateRequest{Pod: newPod, Generation: st.Pod.Metadata.Generation, Images: images})
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
		defer cancel()
		resp, err := supervisor.Call(ctx, p, &supervisor.Request{Op: supervisor.OpUpdate, Payload: payload})
		if err != nil {
			if now, e := p.ReadState(); e == nil && now.Pod.Status.FinishedAt != nil {
				return errf(runtimev1.CodeConflict, "pod %s is %s: a terminal pod cannot be updated", p.Name, now.Pod.Status.Phase)
			}
			if re := (*supervisor.RemoteError)(nil); errors.As(err, &re) && re.Code == supervisor.CodeIO {
				return errf(runtimev1.CodeIO, "update pod %s: %v", p.Name, err)
			}
			return errf(runtimev1.CodeFailed, "update pod %s: %v", p.Name, err)
		}
		var ur engine.UpdateResponse
		if err := json.Unmarshal(resp.Data, &ur); err != nil {
			return errf(runtimev1.CodeFailed, "update pod %s: bad answer from the supervisor: %v", p.Name, err)
		}
		switch ur.Refused {
		case "":
		case "Conflict":
			return errf(runtimev1.CodeConflict, "%s", ur.Message)
		case "Failed":
			return errf(runtimev1.CodeFailed, "%s", ur.Message)
		default:
			return &rtError{code: runtimev1.CodeInvalidManifest, err: errors.New(ur.Message)}
		}
		return cli.PrintJSON(ur.Status)
	})
	return cmd
}

func cond(s *v1alpha1.PodStatus, typ v1alpha1.PodConditionType) bool {
	for _, c := range s.Conditions {
		if c.Type == typ {
			return c.Status == v1alpha1.ConditionTrue
		}
	}
	return false
}

// validateUpdate validates file as the new manifest of the stored pod exactly as `podspec
// validate --update-from` does (the stored, defaulted manifest stands in for the old file) and
// returns the new pod, defaulted. The manifest is read once, by readManifest (its I/O and
// size errors); error findings refuse it (InvalidManifest, exit 1); warnings are printed.
func validateUpdate(file string, stored *v1alpha1.Pod) (*v1alpha1.Pod, error) {
	data, err := readManifest(file)
	if err != nil {
		return nil, err
	}
	old := *stored
	old.Status = nil
	oldData, err := json.Marshal(&old)
	if err != nil {
		return nil, err
	}
	v, err := validator.New(validator.Options{Objects: true})
	if err != nil {
		return nil, err
	}
	results, err := v.UpdateBytes("stored manifest of pod "+stored.Metadata.Name, oldData, file, data)
	if err != nil {
		return nil, &rtError{code: runtimev1.CodeIO, err: err}
	}
	var errs []finding.Finding
	for _, r := range results {
		for _, fd := range r.Findings {
			switch {
			case fd.Suppressed:
			case fd.Severity == finding.Error:
				errs = append(errs, fd)
			default:
				fmt.Fprintf(os.Stderr, "%s:%d:%d: warning %s: %s\n", fd.Pos.File, fd.Pos.Line, fd.Pos.Column, fd.Rule, fd.Message)
			}
		}
	}
	if len(errs) > 0 {
		return nil, &rtError{code: runtimev1.CodeInvalidManifest, err: fmt.Errorf("%s: the update is not valid (%d error(s))", file, len(errs)), findings: errs}
	}
	r, err := onlyDocument(file, results, v1alpha1.KindPod)
	if err != nil {
		return nil, err
	}
	return r.Pod, nil
}

// resolveChangedImages resolves the images the update changes (relative layout paths against
// the new manifest's directory); the others keep the content resolved earlier (IMG-004).
func (f *rtFlags) resolveChangedImages(ctx context.Context, newPod, old *v1alpha1.Pod, base string) (map[string]string, error) {
	var spec v1alpha1.PodSpec
	for _, cc := range validation.MutableChanges(newPod, old).Containers {
		if !slices.Contains(cc.Fields, "image") {
			continue
		}
		if cc.Kind == validation.KindMain {
			spec.Containers = append(spec.Containers, newPod.Spec.Containers[cc.Index])
		} else {
			spec.InitContainers = append(spec.InitContainers, newPod.Spec.InitContainers[cc.Index])
		}
	}
	if len(spec.Containers)+len(spec.InitContainers) == 0 {
		return nil, nil
	}
	s, err := f.store()
	if err != nil {
		return nil, err
	}
	be := backend.New(s.Root, f.ociRuntime)
	be.Puller = f.puller(s.Root)
	images, err := be.ResolveImages(ctx, &spec, base)
	if err != nil {
		return nil, errf(runtimev1.CodeFailed, "resolve images: %v", err)
	}
	return images, nil
}
