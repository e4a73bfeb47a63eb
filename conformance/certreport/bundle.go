// Package certreport renders conformance bundles (package certify) as pages people can read and
// link to: Render makes one self-contained HTML file per bundle — the runtime and its versions,
// the verdict, the coverage matrix by spec area, every failure with its requirements' sentences,
// its assertion and its merged timeline drawn as a picture (package timeline) — and
// RenderMatrix one page across several bundles, one column per runtime.
//
// The pages hold no script and load nothing; every text taken from a bundle (runtime output,
// spec names, failure messages, events) is escaped by html/template. The package reads bundles
// and writes HTML; it judges nothing: the verdicts are the bundle's own (certify.Verify is the
// mechanical check).
package certreport

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/conformance/certify"
	"podspec.dev/podspec/conformance/suites"
)

// Bundle is what a report shows of one bundle directory.
type Bundle struct {
	// Dir is where the bundle was read from.
	Dir string
	Env certify.Environment
	// Version is the runtime's `version` output as recorded in environment.json.
	Version runtimev1.Version
	// Report is the Ginkgo report (report.json); Coverage the matrix (coverage.json).
	Report   types.Report
	Coverage []suites.CoverageRow
	// Seal is nil when SHA256SUMS covers and matches every file, else what is wrong (a bundle of
	// a run without --certify has no seal).
	Seal error
}

// Load reads a bundle directory: environment.json, report.json and coverage.json must be there
// and parse; the seal is checked, not required.
func Load(dir string) (*Bundle, error) {
	b := &Bundle{Dir: dir}
	if err := readJSON(dir, certify.EnvironmentFile, &b.Env); err != nil {
		return nil, err
	}
	if len(b.Env.Runtime.Version) > 0 {
		if err := json.Unmarshal(b.Env.Runtime.Version, &b.Version); err != nil {
			return nil, fmt.Errorf("%s: runtime.version: %w", filepath.Join(dir, certify.EnvironmentFile), err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, certify.ReportFile))
	if err != nil {
		return nil, fmt.Errorf("read bundle: %w", err)
	}
	if b.Report, err = suites.DecodeReport(data); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, certify.ReportFile), err)
	}
	if err := readJSON(dir, certify.CoverageJSON, &b.Coverage); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, certify.SumsFile)); err == nil {
		b.Seal = certify.CheckSeal(dir)
	} else {
		b.Seal = errors.New("the bundle is not sealed (no " + certify.SumsFile + ")")
	}
	return b, nil
}

func readJSON(dir, name string, v any) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("read bundle: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// Profiles are the profiles the runtime declares, comma-separated.
func (b *Bundle) Profiles() string {
	var ps []string
	for _, p := range b.Version.Profiles {
		ps = append(ps, string(p))
	}
	return strings.Join(ps, ", ")
}

// RuntimeName is "name version" of the runtime, with the OCI runtime it drives when it names
// one ("podspec-reference 0.1.0 on crun 1.8.1"), or its command when it did not say.
func (b *Bundle) RuntimeName() string {
	name := "unknown runtime"
	switch {
	case b.Version.Runtime.Name != "":
		name = strings.TrimSpace(b.Version.Runtime.Name + " " + b.Version.Runtime.Version)
	case len(b.Env.Runtime.Command) > 0:
		name = filepath.Base(b.Env.Runtime.Command[0])
	}
	if oci := b.Version.OCIRuntime; oci != nil && oci.Name != "" {
		name += " on " + strings.TrimSpace(oci.Name+" "+oci.Version)
	}
	return name
}
