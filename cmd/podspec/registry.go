//go:build linux

package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/registry"
)

// addRegistryFlags declares the registry flags on a verb that pulls.
func addRegistryFlags(cmd *cobra.Command, f *rtFlags) {
	cmd.Flags().StringArrayVar(&f.registries.insecure, "insecure-registry", nil,
		"HOST[:PORT] of a registry that may be reached over plain HTTP (loopback registries always may); repeatable")
	cmd.Flags().StringArrayVar(&f.registries.certsDirs, "registry-certs-dir", nil,
		"directory in containers' certs.d layout (DIR/HOST[:PORT]/*.crt); default /etc/containers/certs.d and /etc/docker/certs.d; repeatable")
}

// puller is the registry image store of a runtime root: ROOT/images/registry. Progress goes to
// stderr when it is a terminal.
func (f *rtFlags) puller(root string) *registry.Store {
	s := &registry.Store{Root: filepath.Join(root, backend.ImagesDir, backend.RegistryDir), Insecure: f.registries.insecure, CertsDirs: f.registries.certsDirs}
	if term.IsTerminal(int(os.Stderr.Fd())) {
		s.Progress = os.Stderr
	}
	return s
}
