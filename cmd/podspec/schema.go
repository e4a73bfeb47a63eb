package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/schema"
)

func init() { register(newSchemaCmd) }

func newSchemaCmd() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "schema [KIND]",
		Short: "Print the embedded JSON Schema of a kind (default Pod), for editors",
		Long: `Print the JSON Schema (draft 2020-12) podspec validate uses for KIND, exactly as embedded in
the binary. Point an editor's YAML language server at it, e.g.

  podspec schema Pod > .podspec/pod.schema.json

Kinds: ` + strings.Join(schema.Kinds(), ", ") + `.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if list {
				for _, k := range schema.Kinds() {
					fmt.Fprintln(cmd.OutOrStdout(), k)
				}
				return nil
			}
			kind := "Pod"
			if len(args) == 1 {
				kind = args[0]
			}
			b := schema.JSON(kind)
			if b == nil {
				return usageErr("no schema for kind %q (kinds: %s)", kind, strings.Join(schema.Kinds(), ", "))
			}
			if _, err := cmd.OutOrStdout().Write(b); err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("write schema: %w", err)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the kinds that have a schema")
	return cmd
}
