package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/validator"
)

func init() { register(newRulesCmd) }

func newRulesCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rule IDs podspec validate reports",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules := validator.Rules()
			switch format {
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(rules); err != nil {
					return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write rules: %w", err)}
				}
			case "text":
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSEVERITY\tRULE")
				for _, r := range rules {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Text)
				}
				if err := tw.Flush(); err != nil {
					return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write rules: %w", err)}
				}
			default:
				return usageErr("--format must be text or json, not %q", format)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&format, "format", "o", "text", "output format: text or json")
	return cmd
}
