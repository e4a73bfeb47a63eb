package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/spec"
)

func init() { register(newRulesCmd) }

func newRulesCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the rule IDs podspec validate reports",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules := spec.Rules()
			switch format {
			case "json":
				// One object per rule: its ID, severity and sentence.
				type rule struct {
					ID       string        `json:"id"`
					Severity spec.Severity `json:"severity"`
					Text     string        `json:"text"`
				}
				out := make([]rule, len(rules))
				for i, r := range rules {
					out[i] = rule{r.ID, r.Severity, r.Text}
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(out); err != nil {
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
