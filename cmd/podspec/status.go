//go:build linux

package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/cmd/internal/cli"
)

func init() { register(newStatusCmd) }

func newStatusCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "status POD",
		Short: "Print a pod's status (PodStatus) as json, yaml or text",
		Args:  cli.Args(1),
	}
	f := addRuntimeFlags(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "json", "json, yaml or text")
	cmd.RunE = f.wrap(func(cmd *cobra.Command, args []string) error {
		if output != "json" && output != "yaml" && output != "text" {
			return errf(runtimev1.CodeUsage, "-o must be json, yaml or text")
		}
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
		warnUnpersisted(p)
		switch output {
		case "yaml":
			b, err := yaml.Marshal(st.Pod.Status)
			if err != nil {
				return err
			}
			_, err = os.Stdout.Write(b)
			return err
		case "text":
			return printStatusText(args[0], st.Pod.Status)
		}
		return cli.PrintJSON(st.Pod.Status)
	})
	return cmd
}

func printStatusText(name string, s *v1alpha1.PodStatus) error {
	fmt.Printf("Pod:    %s (uid %s)\n", name, s.UID)
	fmt.Printf("Phase:  %s", s.Phase)
	if s.Reason != "" {
		fmt.Printf(" (%s)", s.Reason)
	}
	if s.ExitCode != nil {
		fmt.Printf(", exit code %d", *s.ExitCode)
	}
	if s.DecidedBy != "" {
		fmt.Printf(", decided by %s", s.DecidedBy)
	}
	fmt.Println()
	var conds []string
	for _, c := range s.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s", c.Type, c.Status))
	}
	fmt.Printf("Conditions: %s\n\n", strings.Join(conds, " "))
	w := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CONTAINER\tKIND\tSTATE\tRESTARTS\tSTARTED\tREADY\tID")
	rows := func(kind string, cs []v1alpha1.ContainerStatus) {
		for _, c := range cs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%v\t%v\t%s\n", c.Name, kind, stateText(c.State), c.RestartCount, c.Started, c.Ready, c.ContainerID)
		}
	}
	rows("init", s.InitContainerStatuses)
	rows("main", s.ContainerStatuses)
	rows("defer", s.DeferContainerStatuses)
	return w.Flush()
}

func stateText(st v1alpha1.ContainerState) string {
	switch {
	case st.Running != nil:
		return "Running since " + st.Running.StartedAt.Format(time.RFC3339)
	case st.Terminated != nil:
		t := st.Terminated
		s := "Terminated: " + t.Reason
		if t.ExitCode != nil {
			s += fmt.Sprintf(", exit %d", *t.ExitCode)
		}
		if t.Signal != nil {
			s += ", " + t.Signal.Name
		}
		return s
	case st.Skipped != nil:
		return "Skipped: " + st.Skipped.Reason
	case st.Waiting != nil:
		return "Waiting: " + st.Waiting.Reason
	}
	return "-"
}
