package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/conformance/certreport"
	"podspec.dev/podspec/internal/atomicfile"
)

func newConformanceReportCmd() *cobra.Command {
	var out string
	var matrix bool
	cmd := &cobra.Command{
		Use:   "report BUNDLE -o FILE | report --matrix BUNDLE... -o FILE",
		Short: "Render a bundle as one self-contained HTML page, or several as a matrix page",
		Long: `report renders the bundle written by 'podspec conformance run --out DIR' as one HTML file
that needs nothing else: the runtime and its versions, the verdict, the coverage matrix by spec
area (passed, failed, not met SHOULD, not applicable, not tested), and every failure with the
sentences of its requirements, its assertion and its merged timeline drawn as a picture.

--matrix renders several bundles as one page, one column per runtime, a row per requirement
(e.g. docs/certification/matrix.html).

report judges nothing: the verdicts are the bundle's own; 'podspec conformance verify' is the
check. Exit status: 0 written; 1 a bundle cannot be read; 2 usage; 3 the output cannot be
written.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if matrix {
				if len(args) == 0 {
					return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("report --matrix takes one or more bundles")}
				}
				return nil
			}
			return cli.Args(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var bundles []*certreport.Bundle
			for _, dir := range args {
				b, err := certreport.Load(dir)
				if err != nil {
					return &cli.ExitError{Code: cli.ExitFindings, Err: err}
				}
				bundles = append(bundles, b)
			}
			var page bytes.Buffer
			var err error
			if matrix {
				err = certreport.RenderMatrix(&page, bundles)
			} else {
				err = certreport.Render(&page, bundles[0])
			}
			if err != nil {
				return &cli.ExitError{Code: cli.ExitFindings, Err: err}
			}
			if out == "-" {
				_, err = os.Stdout.Write(page.Bytes())
			} else {
				err = atomicfile.WriteFile(out, page.Bytes(), 0o644)
			}
			if err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "-", "the HTML file to write (- for stdout)")
	cmd.Flags().BoolVar(&matrix, "matrix", false, "render several bundles as one matrix page, a column per runtime")
	return cmd
}
