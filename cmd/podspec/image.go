//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/ocilayout"
)

func init() { register(newImageCmd) }

func newImageCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "image",
		Short: "Build OCI image layouts; pull, list and remove the registry images the runtime holds",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newImageBuildCmd(), newImagePullCmd(), newImageLsCmd(), newImageRmCmd(), newImagePruneCmd())
	return cmd
}

type imageBuildFlags struct {
	fromDir, busyboxBinary, tag, workdir, user, stopSignal string
	busybox                                                bool
	files, entrypoint, cmdArgs, env                        []string
}

func newImageBuildCmd() *cobra.Command {
	var f imageBuildFlags
	cmd := &cobra.Command{
		Use:   "build [--from-dir DIR] [--busybox] [--file SRC:DEST[:MODE]]... [--tag TAG] LAYOUT_DIR",
		Short: "Build a single-layer OCI image into an image layout directory",
		Long: `Build writes a one-layer OCI image into LAYOUT_DIR (created if missing; other tags in it
are kept) and prints {"digest": ..., "reference": "oci:LAYOUT_DIR:TAG"} as JSON.

The layer holds the tree of --from-dir, then busybox with its applet symlinks in /bin
(--busybox), then each --file (a static binary, a script). Builds are reproducible: files are
root-owned with fixed timestamps, so the same inputs give the same digest.

--entrypoint, --cmd and --env are repeatable: each occurrence adds one element, e.g.
  podspec image build --busybox --entrypoint /bin/sh --entrypoint -c --cmd 'echo hi' --tag v1 ./img`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := ocilayout.BuildOptions{
				FromDir: f.fromDir, Busybox: f.busybox, BusyboxBinary: f.busyboxBinary, Tag: f.tag,
				Entrypoint: f.entrypoint, Cmd: f.cmdArgs, Env: f.env, WorkingDir: f.workdir,
				User: f.user, StopSignal: f.stopSignal,
			}
			if opts.Tag == "" {
				opts.Tag = ocilayout.DefaultTag
			}
			for _, spec := range f.files {
				file, err := parseFileFlag(spec)
				if err != nil {
					return usageErr("--file %q: %v", spec, err)
				}
				opts.Files = append(opts.Files, file)
			}
			if opts.FromDir == "" && !opts.Busybox && len(opts.Files) == 0 {
				return usageErr("give at least one of --from-dir, --busybox or --file")
			}
			for _, kv := range opts.Env {
				if !strings.Contains(kv, "=") {
					return usageErr("--env %q: want KEY=VALUE", kv)
				}
			}
			layout, err := filepath.Abs(args[0])
			if err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: err}
			}
			digest, err := ocilayout.Build(cmd.Context(), layout, opts)
			if err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: err}
			}
			out := struct {
				Digest    string `json:"digest"`
				Reference string `json:"reference"`
			}{digest, ocilayout.Reference{Path: layout, Tag: opts.Tag}.String()}
			enc := json.NewEncoder(cmd.OutOrStdout())
			if err := enc.Encode(out); err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write result: %w", err)}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.fromDir, "from-dir", "", "directory whose tree becomes the image's root filesystem")
	fl.BoolVar(&f.busybox, "busybox", false, "add busybox at /bin/busybox with a /bin symlink per applet")
	fl.StringVar(&f.busyboxBinary, "busybox-binary", ocilayout.BusyboxPath, "static busybox to copy with --busybox")
	fl.StringArrayVar(&f.files, "file", nil, "add a host file: SRC:DEST[:MODE] (DEST absolute, MODE octal, e.g. ./probe:/bin/probe:0755); repeatable")
	fl.StringVar(&f.tag, "tag", ocilayout.DefaultTag, "tag (org.opencontainers.image.ref.name) of the image in the layout")
	fl.StringArrayVar(&f.entrypoint, "entrypoint", nil, "one element of the image's Entrypoint; repeatable")
	fl.StringArrayVar(&f.cmdArgs, "cmd", nil, "one element of the image's Cmd; repeatable")
	fl.StringArrayVar(&f.env, "env", nil, "KEY=VALUE of the image's Env (PATH is added when missing); repeatable")
	fl.StringVar(&f.workdir, "workdir", "", "the image's WorkingDir")
	fl.StringVar(&f.user, "user", "", "the image's User (UID[:GID])")
	fl.StringVar(&f.stopSignal, "stop-signal", "", "the image's StopSignal (e.g. SIGINT)")
	return cmd
}

// parseFileFlag parses SRC:DEST[:MODE].
func parseFileFlag(s string) (ocilayout.File, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return ocilayout.File{}, fmt.Errorf("want SRC:DEST[:MODE]")
	}
	f := ocilayout.File{Source: parts[0], Dest: parts[1]}
	if !strings.HasPrefix(f.Dest, "/") {
		return ocilayout.File{}, fmt.Errorf("DEST %q must be absolute", f.Dest)
	}
	if len(parts) == 3 {
		m, err := strconv.ParseUint(parts[2], 8, 32)
		if err != nil || m > 0o777 {
			return ocilayout.File{}, fmt.Errorf("MODE %q must be octal permission bits like 0755", parts[2])
		}
		f.Mode = os.FileMode(m)
	}
	return f, nil
}
