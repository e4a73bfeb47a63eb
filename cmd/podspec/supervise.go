package main

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/reference/backend"
	"podspec.dev/podspec/reference/supervisor"
)

func init() { register(newSuperviseCmd) }

// newSuperviseCmd is the hidden verb that is a pod's supervisor process. `run` starts it
// detached; any verb restarts it (adoption) when it died.
func newSuperviseCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "supervise POD",
		Short:  "Run the supervisor of one pod (started by run; not for direct use)",
		Hidden: true,
		Args:   usageArgs(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		s, err := f.store()
		if err != nil {
			return err
		}
		p, err := s.Pod(args[0])
		if err != nil {
			return err
		}
		lg := log.New(os.Stderr, fmt.Sprintf("supervisor[%d] %s: ", os.Getpid(), args[0]), log.LstdFlags|log.Lmicroseconds|log.LUTC)
		be := backend.New(s.Root, f.ociRuntime)
		lg.Printf("starting")
		err = supervisor.Run(cmd.Context(), supervisor.Options{Pod: p, Backend: be, Logf: lg.Printf})
		if errors.Is(err, supervisor.ErrAlreadySupervised) {
			lg.Printf("another supervisor holds the pod; exiting")
			return nil
		}
		if err != nil {
			lg.Printf("failed: %v", err)
			return err
		}
		lg.Printf("pod finished; exiting")
		return nil
	})
	return cmd
}
