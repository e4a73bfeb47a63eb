package suites

import (
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL
	"github.com/onsi/ginkgo/v2/types"
)

// DryRun builds the spec tree and reports it without running anything (Ginkgo's dry run): every
// spec with its labels and location, exactly as a certification run would list them — table
// entries, labels inherited from containers and specs generated in loops included. t may be nil
// outside `go test`. Like Run, it can be called once per process.
func DryRun(t GinkgoTestingT) (types.Report, error) {
	dir, err := os.MkdirTemp("", "podspec-dry-run-")
	if err != nil {
		return types.Report{}, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "report.json")
	sc, rc := types.NewDefaultSuiteConfig(), types.NewDefaultReporterConfig()
	sc.DryRun = true
	sc.RandomSeed = 1 // the order of the report does not depend on the time of day
	rc.JSONReport = file
	rc.Succinct = true
	rc.NoColor = true
	if !Run(t, Options{Suite: sc, Reporter: rc}) {
		return types.Report{}, errors.New("the dry run of the suite failed")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return types.Report{}, err
	}
	return DecodeReport(data)
}
