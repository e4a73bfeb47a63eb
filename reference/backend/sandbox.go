package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/sandbox"
)

// Sandboxer creates the namespaces a pod's containers share.
type Sandboxer interface {
	// Create makes the sandbox of pod and returns its persisted state and the namespaces to
	// join (oci.Namespace* type → path).
	Create(ctx context.Context, b *Backend, pod *engine.PodInfo) (json.RawMessage, map[string]string, error)
	// Destroy removes the sandbox; it is idempotent.
	Destroy(ctx context.Context, b *Backend, pod *engine.PodInfo, state json.RawMessage) error
}

// pinnedSandboxer adapts package sandbox (network, IPC and UTS namespaces pinned to files in
// the pod directory, no infra process) to the Sandboxer interface.
type pinnedSandboxer struct{}

// sandboxDir is the pod's sandbox directory.
func sandboxDir(pod *engine.PodInfo) string { return filepath.Join(pod.Dir, "sandbox") }

func (pinnedSandboxer) Create(ctx context.Context, b *Backend, pod *engine.PodInfo) (json.RawMessage, map[string]string, error) {
	sb, err := sandbox.Create(ctx, b.Runtime, sandboxDir(pod), pod.Name, pod.UID)
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(map[string]string{"dir": sb.Dir})
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox state: %w", err)
	}
	return raw, sb.NamespacePaths(), nil
}

func (pinnedSandboxer) Destroy(ctx context.Context, b *Backend, pod *engine.PodInfo, state json.RawMessage) error {
	sb, err := sandbox.Load(sandboxDir(pod))
	if errors.Is(err, sandbox.ErrNotFound) {
		return nil
	}
	if sb == nil {
		return err
	}
	// A sandbox whose pins are gone (Load's error) is still cleaned up.
	return sb.Destroy(ctx)
}
