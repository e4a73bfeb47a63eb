package backend

import (
	"context"
	"fmt"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/engine"
	"podspec.dev/podspec/reference/oci"
)

var _ engine.Resizer = (*Backend)(nil)

// defaultCPUShares is the cgroup's cpu.shares when a container requests no CPU.
const defaultCPUShares = 1024

// ResizeSupported reports whether the OCI runtime has an update verb (runsc has none).
func (b *Backend) ResizeSupported(ctx context.Context) error {
	return b.Runtime.CanUpdate(ctx)
}

// UpdateResources applies a container's resources to a live instance with the OCI runtime's
// update command (in-place resize, UPD-010): the process keeps running in the same cgroup. A
// resource the new requirements no longer limit is set back to unlimited (CPU shares to the
// cgroup default).
func (b *Backend) UpdateResources(ctx context.Context, id string, r *v1alpha1.ResourceRequirements) error {
	var res oci.Resources
	if err := resources(r, &res); err != nil {
		return fmt.Errorf("update %s: %w", id, err)
	}
	shares := uint64(defaultCPUShares)
	if res.CPURequestMilli > 0 {
		shares = oci.CPUShares(res.CPURequestMilli)
	}
	period := uint64(oci.CPUPeriod)
	quota := int64(-1)
	if res.CPULimitMilli > 0 {
		quota = oci.CPUQuota(res.CPULimitMilli)
	}
	mem := int64(-1)
	if res.MemoryLimitBytes > 0 {
		mem = res.MemoryLimitBytes
	}
	pids := int64(-1)
	if res.PidsLimit > 0 {
		pids = res.PidsLimit
	}
	lr := &specs.LinuxResources{
		CPU:    &specs.LinuxCPU{Shares: &shares, Quota: &quota, Period: &period},
		Memory: &specs.LinuxMemory{Limit: &mem},
		Pids:   &specs.LinuxPids{Limit: &pids},
	}
	return b.Runtime.Update(ctx, id, lr)
}
