package suites

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/onsi/ginkgo/v2/types"
)

// decodeReports reads a Ginkgo JSON report (an array with one report per suite).
func decodeReports(data []byte) ([]types.Report, error) {
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("decode Ginkgo JSON report: %w", err)
	}
	if len(reports) == 0 {
		return nil, errors.New("the Ginkgo JSON report holds no suite")
	}
	return reports, nil
}

// DecodeReport reads the single suite report of a Ginkgo JSON report file's content.
func DecodeReport(data []byte) (types.Report, error) {
	reports, err := decodeReports(data)
	if err != nil {
		return types.Report{}, err
	}
	if len(reports) != 1 {
		return types.Report{}, fmt.Errorf("the Ginkgo JSON report holds %d suites, want 1", len(reports))
	}
	return reports[0], nil
}
