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
	var out, triage, bundleName string
	var matrix, markdown bool
	var names []string
	cmd := &cobra.Command{
		Use:   "report BUNDLE -o FILE | report --matrix BUNDLE... -o FILE | report --markdown --triage FILE BUNDLE -o FILE",
		Short: "Render a bundle as one self-contained HTML page, or several as a matrix page, or a certification page in Markdown",
		Long: `report renders the bundle written by 'podspec conformance run --out DIR' as one HTML file
that needs nothing else: the runtime and its versions, the verdict, the coverage matrix by spec
area (passed, failed, not met SHOULD, not applicable, not tested), and every failure with the
sentences of its requirements, its assertion and its merged timeline drawn as a picture.

--matrix renders several bundles as one page, one column per runtime, a row per requirement
(e.g. docs/certification/matrix.html).

--markdown renders a sealed certification bundle as a certification page
(docs/certification/NAME.md): versions, the command (from the triage file), the verdict of
every runtime-level requirement, the reason of each that did not pass, and the digest of the
bundle's SHA256SUMS. The reasons are judgment and come from --triage
(docs/certification/triage/NAME.yaml: title, command, facts, reasons by requirement ID,
notes); the page is refused when a requirement that failed has no reason there, or a reason
names a requirement that passed (or is not declared, pending, or not in the bundle).
--bundle-name is how the page names the bundle (default: its directory as given).
--matrix --markdown renders the matrix as one Markdown table, with --name giving each
bundle's column heading in order.

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
			switch {
			case matrix && markdown:
				if len(names) != len(bundles) {
					return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("report --matrix --markdown takes one --name per bundle")}
				}
				err = certreport.RenderMatrixMarkdown(&page, bundles, names)
			case markdown:
				if triage == "" {
					return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("report --markdown takes --triage FILE")}
				}
				t, terr := certreport.LoadTriage(triage)
				if terr != nil {
					return &cli.ExitError{Code: cli.ExitFindings, Err: terr}
				}
				name := bundleName
				if name == "" {
					name = args[0]
				}
				err = certreport.RenderMarkdown(&page, bundles[0], t, name)
			case matrix:
				err = certreport.RenderMatrix(&page, bundles)
			default:
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
	cmd.Flags().BoolVar(&markdown, "markdown", false, "render a certification page (or, with --matrix, a table) in Markdown")
	cmd.Flags().StringVar(&triage, "triage", "", "with --markdown: the triage file giving the reason of each requirement not passed")
	cmd.Flags().StringVar(&bundleName, "bundle-name", "", "with --markdown: how the page names the bundle (default: the directory given)")
	cmd.Flags().StringArrayVar(&names, "name", nil, "with --matrix --markdown: a column heading, once per bundle in order")
	return cmd
}
