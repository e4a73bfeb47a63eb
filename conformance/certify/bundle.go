// Package certify writes and checks certification bundles: the evidence of one
// `podspec conformance run --certify` — junit.xml, report.json (Ginkgo JSON), suite.log,
// coverage.json and coverage.md, runtime-commands.log, environment.json and, when specs failed,
// their pods' evidence in failures/ — sealed by SHA256SUMS.
// Verify re-checks a bundle mechanically: every file present and unmodified, no selection or
// retry, every expected spec present, none failed, JUnit and log consistent with the report.
package certify

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Files of a bundle.
const (
	JUnitFile       = "junit.xml"
	ReportFile      = "report.json"
	SuiteLogFile    = "suite.log"
	EnvironmentFile = "environment.json"
	CoverageJSON    = "coverage.json"
	CoverageMD      = "coverage.md"
	CommandsLog     = "runtime-commands.log"
	SumsFile        = "SHA256SUMS"
	// FailuresDir holds the failure evidence of each failed spec's pods, one directory per pod
	// (framework.KeepEvidence); absent when nothing failed. Seal covers its files.
	FailuresDir = "failures"
)

// RequiredFiles must all be in a bundle.
var requiredFiles = []string{JUnitFile, ReportFile, SuiteLogFile, EnvironmentFile, CoverageJSON, CoverageMD, CommandsLog}

// RequiredFiles lists the files every bundle holds besides SHA256SUMS.
func RequiredFiles() []string { return append([]string(nil), requiredFiles...) }

// Environment records what produced a bundle.
type Environment struct {
	// Certify is true for a certification run (no filters, no retries).
	Certify bool `json:"certify"`
	// Suite identifies the conformance suite.
	Suite SuiteInfo `json:"suite"`
	// Runtime is the runtime's `version` output and its command.
	Runtime RuntimeInfo `json:"runtime"`
	// Host describes the machine.
	Host HostInfo `json:"host"`
	// RunID, Seed and the timing tolerances of the run.
	RunID      string  `json:"runID"`
	Seed       int64   `json:"seed"`
	SlowFactor float64 `json:"slowFactor"`
	Tolerances string  `json:"tolerances"`
	// Selection records Ginkgo's filters; empty in certify mode.
	Selection Selection `json:"selection"`
	// ComplianceLevel is the run's --compliance-level: "must" (a failed spec of SHOULD
	// requirements only is a warning, "not met" in the coverage matrix) or "should".
	ComplianceLevel string    `json:"complianceLevel"`
	StartedAt       time.Time `json:"startedAt"`
	// FinishedAt and WallSeconds are the run's end and duration.
	FinishedAt  time.Time `json:"finishedAt"`
	WallSeconds float64   `json:"wallSeconds"`
	Passed      bool      `json:"passed"`
	// RuntimeLogs is the run's --runtime-logs command (argv), if any: what printed the
	// runtime's own logs into the failure evidence.
	RuntimeLogs []string `json:"runtimeLogs,omitempty"`
}

// SuiteInfo identifies the suite that ran.
type SuiteInfo struct {
	ContractVersion string `json:"contractVersion"`
	// SpecVersion is the newest "since" of the requirements registry the suite was built with.
	SpecVersion string `json:"specVersion"`
	GoVersion   string `json:"goVersion"`
	// BinarySHA256 is the digest of the podspec binary that ran the suite; ProbeSHA256 that of
	// the probe put into the test image.
	BinarySHA256 string `json:"binarySHA256"`
	ProbeSHA256  string `json:"probeSHA256"`
	// SpecCount is the number of specs in the compiled suite (dry run).
	SpecCount int `json:"specCount"`
}

// RuntimeInfo is what the runtime said about itself.
type RuntimeInfo struct {
	Command []string        `json:"command"`
	Version json.RawMessage `json:"version"`
}

// HostInfo describes the machine.
type HostInfo struct {
	Kernel string `json:"kernel"`
	OS     string `json:"os"`
	Arch   string `json:"arch"`
	CPUs   int    `json:"cpus"`
}

// Selection is the spec selection of a run.
type Selection struct {
	Focus         []string `json:"focus,omitempty"`
	Skip          []string `json:"skip,omitempty"`
	LabelFilter   string   `json:"labelFilter,omitempty"`
	FlakeAttempts int      `json:"flakeAttempts,omitempty"`
}

// Empty reports whether nothing narrowed or retried the run.
func (s Selection) Empty() bool {
	return len(s.Focus) == 0 && len(s.Skip) == 0 && s.LabelFilter == "" && s.FlakeAttempts <= 1
}

// DescribeHost fills HostInfo from /proc and /etc/os-release.
func DescribeHost() HostInfo {
	h := HostInfo{Arch: runtime.GOARCH, CPUs: runtime.NumCPU()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if f, err := os.Open("/etc/os-release"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
				h.OS = strings.Trim(v, `"`)
			}
		}
		f.Close()
	}
	return h
}

// FileSHA256 returns the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// WriteEnvironment writes environment.json into dir.
func WriteEnvironment(dir string, env Environment) error {
	data, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return fmt.Errorf("encode environment: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, EnvironmentFile), append(data, '\n'), 0o644)
}

// Seal writes SHA256SUMS over every regular file of dir (except itself) and of its FailuresDir
// tree, by slash-separated relative name, sorted.
func Seal(dir string) error {
	names, errs := bundleFiles(dir)
	if len(errs) > 0 {
		return fmt.Errorf("list bundle: %w", errors.Join(errs...))
	}
	var b strings.Builder
	for _, n := range names {
		sum, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(dir, SumsFile), []byte(b.String()), 0o644)
}

// bundleFiles lists the files a seal covers: the regular files of dir but SHA256SUMS, and every
// regular file below dir/FailuresDir, as slash-separated names relative to dir, sorted. Anything
// else (another directory, a link, a device) is an error, as is a FailuresDir that is not a
// directory.
func bundleFiles(dir string) ([]string, []error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("list bundle: %w", err)}
	}
	var names []string
	var errs []error
	for _, e := range entries {
		switch {
		case e.Name() == SumsFile:
		case e.Type().IsRegular():
			names = append(names, e.Name())
		case e.Name() == FailuresDir && e.IsDir():
			werr := filepath.WalkDir(filepath.Join(dir, FailuresDir), func(path string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				rel, rerr := filepath.Rel(dir, path)
				if rerr != nil {
					return rerr
				}
				switch {
				case d.IsDir():
				case d.Type().IsRegular():
					names = append(names, filepath.ToSlash(rel))
				default:
					errs = append(errs, fmt.Errorf("%s is not a regular file", filepath.ToSlash(rel)))
				}
				return nil
			})
			if werr != nil {
				errs = append(errs, fmt.Errorf("list %s: %w", FailuresDir, werr))
			}
		default:
			errs = append(errs, fmt.Errorf("%s is not a regular file", e.Name()))
		}
	}
	sort.Strings(names)
	return names, errs
}

// validSumsName accepts a top-level file name, or a relative slash-separated name below
// FailuresDir without empty, "." or ".." elements.
func validSumsName(name string) bool {
	if name == "" || strings.Contains(name, "\\") {
		return false
	}
	parts := strings.Split(name, "/")
	if len(parts) > 1 && parts[0] != FailuresDir {
		return false
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return false
		}
	}
	return true
}

// readSums parses SHA256SUMS.
func readSums(dir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, SumsFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", SumsFile, err)
	}
	sums := map[string]string{}
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || !validSumsName(name) {
			return nil, fmt.Errorf("%s line %d is malformed: %q", SumsFile, i+1, line)
		}
		if _, dup := sums[name]; dup {
			return nil, fmt.Errorf("%s lists %s twice", SumsFile, name)
		}
		sums[name] = sum
	}
	return sums, nil
}

// checkSums verifies that SHA256SUMS covers exactly the bundle's files and that they match.
func checkSums(dir string) []error {
	sums, err := readSums(dir)
	if err != nil {
		return []error{err}
	}
	names, errs := bundleFiles(dir)
	present := map[string]bool{}
	for _, n := range names {
		present[n] = true
		if _, ok := sums[n]; !ok {
			errs = append(errs, fmt.Errorf("%s is not listed in %s", n, SumsFile))
		}
	}
	for name, want := range sums {
		if !present[name] {
			errs = append(errs, fmt.Errorf("%s lists %s, which is missing", SumsFile, name))
			continue
		}
		got, err := FileSHA256(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if got != want {
			errs = append(errs, fmt.Errorf("%s was modified: SHA-256 %s, %s says %s", name, got, SumsFile, want))
		}
	}
	for _, f := range requiredFiles {
		if !present[f] {
			errs = append(errs, fmt.Errorf("required file %s is missing", f))
		}
	}
	return errs
}

// CheckSeal checks that SHA256SUMS covers exactly the bundle's files, that every one matches,
// and that every required file is there; it returns every problem found.
func CheckSeal(dir string) error { return errList(checkSums(dir)) }

// errList joins errors for display, one per line.
func errList(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}
