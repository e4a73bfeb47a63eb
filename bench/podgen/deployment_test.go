package podgen

import (
	"testing"

	"podspec.dev/podspec/validator"
)

// Every generated Deployment validates clean, so a benchmark times validation, not reporting.
func TestDeploymentsAreValid(t *testing.T) {
	v, err := validator.New(validator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		for _, r := range v.Bytes("d.yaml", []byte(Deployment(i))) {
			for _, f := range r.Findings {
				t.Errorf("deployment %d: %s:%d:%d %s %s", i, f.Pos.File, f.Pos.Line, f.Pos.Column, f.Rule, f.Message)
			}
		}
	}
}
