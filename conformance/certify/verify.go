package certify

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Expected is what the verifying binary's own suite expects of a bundle.
type Expected struct {
	// Specs maps the full text of every spec of the compiled suite to the capability profile
	// it belongs to ("core", "defer", ...).
	Specs map[string]string
	// ContractVersion and SpecVersion of the verifying suite.
	ContractVersion string
	SpecVersion     string
}

// Verify checks a bundle: files present and matching SHA256SUMS, a certify run with no
// selection and no retries and with its compliance level recorded, made by the same suite
// version; every expected spec of a profile the runtime declared present and passed, nothing
// failed; junit.xml and suite.log consistent with report.json. It returns every problem found.
func Verify(dir string, exp Expected) error {
	errs := checkSums(dir)
	env, err := readEnvironment(dir)
	if err != nil {
		errs = append(errs, err)
		return errList(errs)
	}
	if !env.Certify {
		errs = append(errs, fmt.Errorf("the bundle is not from a --certify run"))
	}
	if env.ComplianceLevel == "" {
		errs = append(errs, fmt.Errorf("environment.json records no compliance level"))
	}
	if !env.Selection.Empty() {
		errs = append(errs, fmt.Errorf("the run was narrowed or retried: %+v", env.Selection))
	}
	if env.Suite.ContractVersion != exp.ContractVersion || env.Suite.SpecVersion != exp.SpecVersion {
		errs = append(errs, fmt.Errorf("the bundle was made by a suite for contract %s / spec %s; this verifier is for contract %s / spec %s",
			env.Suite.ContractVersion, env.Suite.SpecVersion, exp.ContractVersion, exp.SpecVersion))
	}
	var version struct {
		Profiles []string `json:"profiles"`
	}
	if err := json.Unmarshal(env.Runtime.Version, &version); err != nil {
		errs = append(errs, fmt.Errorf("environment.json runtime.version: %w", err))
	}
	declared := map[string]bool{}
	for _, p := range version.Profiles {
		declared[p] = true
	}

	data, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		errs = append(errs, err)
		return errList(errs)
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil || len(reports) != 1 {
		errs = append(errs, fmt.Errorf("report.json must hold exactly one Ginkgo suite report (%v)", err))
		return errList(errs)
	}
	rep := reports[0]
	sc := rep.SuiteConfig
	if len(sc.FocusStrings)+len(sc.SkipStrings)+len(sc.FocusFiles)+len(sc.SkipFiles) > 0 || sc.LabelFilter != "" || sc.FlakeAttempts > 1 || sc.MustPassRepeatedly > 1 || sc.DryRun {
		errs = append(errs, fmt.Errorf("report.json shows a narrowed, retried or dry run (focus %v, skip %v, labels %q, flake attempts %d, dry run %v)",
			sc.FocusStrings, sc.SkipStrings, sc.LabelFilter, sc.FlakeAttempts, sc.DryRun))
	}
	if !rep.SuiteSucceeded {
		errs = append(errs, fmt.Errorf("the suite did not succeed: %v", rep.SpecialSuiteFailureReasons))
	}
	got := map[string]types.SpecState{}
	failed, ran := 0, 0
	for _, sr := range rep.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			if sr.State.Is(types.SpecStateFailureStates) {
				errs = append(errs, fmt.Errorf("%s node failed: %s", sr.LeafNodeType, sr.Failure.Message))
			}
			continue
		}
		got[sr.FullText()] = sr.State
		if sr.State.Is(types.SpecStateFailureStates) {
			failed++
			errs = append(errs, fmt.Errorf("spec failed: %s", sr.FullText()))
		}
		if sr.State != types.SpecStateSkipped && sr.State != types.SpecStatePending {
			ran++
		}
	}
	for text, profile := range exp.Specs {
		st, ok := got[text]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("expected spec missing from the report: %s", text))
		case declared[profile] && st != types.SpecStatePassed:
			errs = append(errs, fmt.Errorf("spec of declared profile %s did not pass (%s): %s", profile, st, text))
		}
	}
	for text := range got {
		if _, ok := exp.Specs[text]; !ok {
			errs = append(errs, fmt.Errorf("the report holds a spec this suite does not have: %s", text))
		}
	}
	errs = append(errs, checkJUnit(filepath.Join(dir, JUnitFile), len(got), failed)...)
	errs = append(errs, checkLog(filepath.Join(dir, SuiteLogFile), ran, len(got), rep.SuiteSucceeded)...)
	if env.Passed != rep.SuiteSucceeded {
		errs = append(errs, fmt.Errorf("environment.json says passed=%v, report.json says %v", env.Passed, rep.SuiteSucceeded))
	}
	return errList(errs)
}

func readEnvironment(dir string) (*Environment, error) {
	data, err := os.ReadFile(filepath.Join(dir, EnvironmentFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", EnvironmentFile, err)
	}
	var env Environment
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("decode %s: %w", EnvironmentFile, err)
	}
	return &env, nil
}

// checkJUnit compares the JUnit totals with the report's.
func checkJUnit(path string, specs, failed int) []error {
	data, err := os.ReadFile(path)
	if err != nil {
		return []error{err}
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		return []error{fmt.Errorf("decode junit.xml: %w", err)}
	}
	var errs []error
	cases := 0
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Name, "[It]") {
				cases++
			}
		}
	}
	if cases != specs {
		errs = append(errs, fmt.Errorf("junit.xml holds %d spec test cases, report.json %d specs", cases, specs))
	}
	if failed == 0 && suites.Failures+suites.Errors > 0 {
		errs = append(errs, fmt.Errorf("junit.xml reports %d failures and %d errors, report.json none", suites.Failures, suites.Errors))
	}
	return errs
}

var ranLine = regexp.MustCompile(`Ran (\d+) of (\d+) Specs`)

// checkLog finds Ginkgo's summary in the suite log and compares it with the report.
func checkLog(path string, ran, total int, succeeded bool) []error {
	data, err := os.ReadFile(path)
	if err != nil {
		return []error{err}
	}
	m := ranLine.FindAllSubmatch(data, -1)
	if len(m) == 0 {
		return []error{fmt.Errorf("suite.log has no \"Ran N of M Specs\" summary")}
	}
	last := m[len(m)-1]
	r, _ := strconv.Atoi(string(last[1]))
	t, _ := strconv.Atoi(string(last[2]))
	var errs []error
	if r != ran || t != total {
		errs = append(errs, fmt.Errorf("suite.log says it ran %d of %d specs, report.json %d of %d", r, t, ran, total))
	}
	if succeeded && !strings.Contains(string(data), "SUCCESS!") {
		errs = append(errs, fmt.Errorf("suite.log does not record SUCCESS although report.json does"))
	}
	return errs
}
