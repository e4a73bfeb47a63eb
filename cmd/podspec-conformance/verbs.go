package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/cmd/internal/cli"
	"podspec.dev/podspec/conformance/certify"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/preflight"
	"podspec.dev/podspec/conformance/suites"
	"podspec.dev/podspec/spec"
)

func newRootCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "podspec-conformance",
		Short: "Certify a runtime against the podspec runtime interface and lifecycle specification",
		Long: `podspec-conformance (also reached as "podspec conformance") runs the compiled-in
conformance suite against any runtime that implements docs/runtime-interface.md, checks a
runtime's command-line contract (check-runtime), verifies certification bundles (verify) and
renders them as HTML pages (report). See docs/conformance.md.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	})
	cmd.AddCommand(newConformanceRunCmd(), newConformanceVerifyCmd(), newConformanceCheckCmd(), newConformanceReportCmd())
	return cmd
}

// harnessFlags are the flags that describe how to reach and exercise a runtime.
type harnessFlags struct {
	runtime    string
	probe      string
	busybox    string
	workDir    string
	slowFactor float64
	ociRoots   []string
	ociRuntime string
}

func (h *harnessFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&h.runtime, "runtime", "", `runtime command prefix, split on white space (e.g. "/usr/bin/podspec --root /tmp/r")`)
	cmd.Flags().StringVar(&h.probe, "probe", "", "static podspec-probe binary for the test image (default: next to this binary, then $PATH)")
	cmd.Flags().StringVar(&h.busybox, "busybox", "/bin/busybox", `static busybox for the test image ("" for none)`)
	cmd.Flags().StringVar(&h.workDir, "work-dir", "", "directory for the test image, probe sockets and manifests (default: a new temporary directory)")
	cmd.Flags().Float64Var(&h.slowFactor, "slow-factor", 1, "declared slow-machine factor (>= 1) widening the reaction tolerance and waits; recorded in the report")
	cmd.Flags().StringArrayVar(&h.ociRoots, "oci-root", nil, "OCI runtime state directory the leak check lists (repeatable), e.g. ROOT/runc for the reference runtime")
	cmd.Flags().StringVar(&h.ociRuntime, "oci-runtime-binary", "runc", "OCI runtime used by the leak check to list containers")
}

// config turns the flags into a framework configuration.
func (h *harnessFlags) config(log io.Writer) (fw.Config, error) {
	if strings.TrimSpace(h.runtime) == "" {
		return fw.Config{}, &cli.ExitError{Code: cli.ExitUsage, Err: errors.New("--runtime is required")}
	}
	if h.slowFactor < 1 {
		return fw.Config{}, &cli.ExitError{Code: cli.ExitUsage, Err: errors.New("--slow-factor must be at least 1")}
	}
	probe, err := findProbe(h.probe)
	if err != nil {
		return fw.Config{}, &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	busybox := h.busybox
	if busybox != "" {
		if _, err := os.Stat(busybox); err != nil {
			return fw.Config{}, &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("--busybox: %w", err)}
		}
	}
	return fw.Config{
		RuntimeCommand: h.runtime,
		ProbeBinary:    probe,
		Busybox:        busybox,
		WorkDir:        h.workDir,
		Tolerances:     fw.DefaultTolerances().Scaled(h.slowFactor),
		Log:            log,
		OCIRoots:       h.ociRoots,
		OCIRuntime:     h.ociRuntime,
	}, nil
}

// findProbe locates the probe binary: the flag, then next to this executable, then $PATH.
func findProbe(flagValue string) (string, error) {
	if flagValue != "" {
		if _, err := os.Stat(flagValue); err != nil {
			return "", fmt.Errorf("--probe: %w", err)
		}
		return filepath.Abs(flagValue)
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "podspec-probe")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("podspec-probe"); err == nil {
		return filepath.Abs(p)
	}
	return "", errors.New("podspec-probe not found next to podspec or in $PATH; pass --probe")
}

func newConformanceRunCmd() *cobra.Command {
	var h harnessFlags
	var certifyMode, verbose bool
	var out, labelFilter, complianceLevel, runtimeLogs string
	var focus, skip []string
	var flakeAttempts, parallel int
	var timeout time.Duration
	var random randomFlags
	cmd := &cobra.Command{
		Use:   "run --runtime CMD [--certify] [--out DIR]",
		Short: "Run the conformance suite against a runtime and write the report bundle",
		Long: `run runs the compiled-in Ginkgo suite against the runtime. Without --certify, Ginkgo's
--label-filter, --focus and --skip select specs (e.g. --label-filter 'req:` + spec.STOP008 + `'). With
--certify, every spec runs, selection and retries are refused, and the bundle in --out is sealed
with SHA256SUMS for 'podspec conformance verify'.

--compliance-level sets the lowest requirement level whose failed spec fails the run. Under
"must" (the default), a failed spec whose requirements are all SHOULD-level (per
docs/requirements.yaml) is a warning: Ginkgo, junit.xml and the certification count it as
passed, the coverage matrix shows "not met (SHOULD)" with the failure, and the run lists it
after the coverage summary. Under "should" it fails like a MUST. The level is recorded in
environment.json.

--random N runs N generated scenarios instead of the suite (with --label-filter, those of them it
selects): random valid pods and schedules of stops, forced stops, notifications, updates and
supervisor crashes, each judged by the lifecycle model; scenario i is drawn from seed S+i (--seed S,
drawn and printed when not given), so --random 1 --seed S+i replays it alone. A violated scenario is
shrunk (--shrink-runs) to a smaller one that breaks the same requirement, printed as a scenario
file that --random-scenario FILE replays, and as its manifest. See docs/conformance.md.

Exit status: 0 every spec passed (warnings included); 1 a spec failed; 2 usage.`,
		Args: cli.Args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if certifyMode && (labelFilter != "" || len(focus) > 0 || len(skip) > 0 || flakeAttempts > 1) {
				return &cli.ExitError{Code: cli.ExitUsage, Err: errors.New("--certify runs every spec once: --label-filter, --focus, --skip and --flake-attempts are refused")}
			}
			if certifyMode && random.asked() {
				return &cli.ExitError{Code: cli.ExitUsage, Err: errors.New("--certify runs the suite as it is: --random and --random-scenario are refused")}
			}
			if err := random.check(cmd); err != nil {
				return err
			}
			if !suites.ValidComplianceLevel(complianceLevel) {
				return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("--compliance-level %q: want %s or %s", complianceLevel, suites.ComplianceMust, suites.ComplianceShould)}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("create %s: %w", out, err)}
			}
			cmdLog, err := os.Create(filepath.Join(out, certify.CommandsLog))
			if err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: err}
			}
			defer cmdLog.Close()
			cfg, err := h.config(cmdLog)
			if err != nil {
				return err
			}
			cfg.EvidenceDir = filepath.Join(out, certify.FailuresDir)
			if err := os.RemoveAll(cfg.EvidenceDir); err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: fmt.Errorf("clear %s: %w", cfg.EvidenceDir, err)}
			}
			cfg.RuntimeLogs = strings.Fields(runtimeLogs)
			run := conformanceRun{
				out: out, certify: certifyMode, verbose: verbose, labelFilter: labelFilter, focus: focus, skip: skip,
				flakeAttempts: flakeAttempts, parallel: parallel, timeout: timeout, slowFactor: h.slowFactor,
				complianceLevel: complianceLevel,
			}
			if random.asked() {
				if run.random, err = random.options(cmd.Context(), cfg.RuntimeCommand); err != nil {
					return err
				}
				run.labelFilter = randomFilter(labelFilter)
			}
			return runConformance(cmd.Context(), cfg, run)
		},
	}
	h.add(cmd)
	cmd.Flags().BoolVar(&certifyMode, "certify", false, "certification run: no selection, no retries; seal the bundle")
	cmd.Flags().StringVar(&out, "out", "conformance-results", "directory for the bundle (junit.xml, report.json, suite.log, coverage, environment.json, failures/, SHA256SUMS)")
	cmd.Flags().StringVar(&runtimeLogs, "runtime-logs", "", `optional command, split on white space, that prints the runtime's own logs about a pod; run with the pod's name and UID appended for each pod of a failed spec, its output kept as `+certify.FailuresDir+`/POD/runtime.log`)
	cmd.Flags().StringVar(&complianceLevel, "compliance-level", suites.ComplianceMust, "lowest requirement level whose failed spec fails the run: must (a failed SHOULD-only spec is a warning, \"not met\") or should")
	cmd.Flags().StringVar(&labelFilter, "label-filter", "", "Ginkgo label filter (not with --certify), e.g. 'req:"+spec.HB001+" || profile:core'")
	cmd.Flags().StringArrayVar(&focus, "focus", nil, "Ginkgo focus regular expression (not with --certify)")
	cmd.Flags().StringArrayVar(&skip, "skip", nil, "Ginkgo skip regular expression (not with --certify)")
	cmd.Flags().IntVar(&flakeAttempts, "flake-attempts", 0, "retry failing specs (not with --certify)")
	cmd.Flags().IntVar(&parallel, "parallel", 2, "how many scenario pods run at once (2 suits a 2-core machine)")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "suite timeout")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "verbose Ginkgo output (runtime commands of every spec)")
	random.add(cmd)
	return cmd
}

// conformanceRun are the run options besides the harness configuration.
type conformanceRun struct {
	out              string
	certify, verbose bool
	labelFilter      string
	focus, skip      []string
	flakeAttempts    int
	parallel         int
	timeout          time.Duration
	slowFactor       float64
	complianceLevel  string
	random           suites.Random
}

func runConformance(ctx context.Context, cfg fw.Config, o conformanceRun) error {
	abs := func(name string) string { return filepath.Join(o.out, name) }
	sc, rc := types.NewDefaultSuiteConfig(), types.NewDefaultReporterConfig()
	sc.RandomSeed = time.Now().UnixNano() % 1_000_000
	sc.LabelFilter, sc.FocusStrings, sc.SkipStrings = o.labelFilter, o.focus, o.skip
	sc.FlakeAttempts = o.flakeAttempts
	sc.Timeout = o.timeout
	rc.JSONReport, rc.JUnitReport = abs(certify.ReportFile), abs(certify.JUnitFile)
	rc.Verbose = o.verbose
	rc.NoColor = true
	if cfg.RunID == "" {
		cfg.RunID = fw.NewRunID()
	}
	selection := certify.Selection{Focus: o.focus, Skip: o.skip, LabelFilter: o.labelFilter, FlakeAttempts: o.flakeAttempts}

	started := time.Now()
	restore, err := teeStdout(abs(certify.SuiteLogFile))
	if err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: err}
	}
	if o.random.N > 0 || len(o.random.Scenarios) > 0 {
		fmt.Print(describeRandom(o.random))
	}
	passed := suites.Run(nil, suites.Options{
		Framework:    cfg,
		Parallel:     o.parallel,
		Prefetch:     selection.Empty(),
		Suite:        sc,
		Reporter:     rc,
		CoverageFile: abs(certify.CoverageMD),
		CoverageJSON: abs(certify.CoverageJSON),
		Log:          os.Stdout,
		// A failed spec of SHOULD requirements only is a warning at level must.
		ComplianceLevel: o.complianceLevel,
		Random:          o.random,
	})
	fmt.Printf("wall time: %v\n", time.Since(started).Round(time.Millisecond))
	if err := restore(); err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: err}
	}
	finished := time.Now()

	suite := suiteInfo(cfg.ProbeBinary)
	if data, err := os.ReadFile(abs(certify.ReportFile)); err == nil {
		if rep, err := suites.DecodeReport(data); err == nil {
			for _, sr := range rep.SpecReports {
				if sr.LeafNodeType == types.NodeTypeIt {
					suite.SpecCount++
				}
			}
		}
	}
	env := certify.Environment{
		Certify:         o.certify,
		Suite:           suite,
		Runtime:         certify.RuntimeInfo{Command: strings.Fields(cfg.RuntimeCommand), Version: runtimeVersionJSON(ctx, cfg.RuntimeCommand)},
		Host:            certify.DescribeHost(),
		RunID:           cfg.RunID,
		Seed:            sc.RandomSeed,
		SlowFactor:      o.slowFactor,
		Tolerances:      cfg.Tolerances.String(),
		Selection:       selection,
		ComplianceLevel: o.complianceLevel,
		StartedAt:       started.UTC(),
		FinishedAt:      finished.UTC(),
		WallSeconds:     finished.Sub(started).Seconds(),
		Passed:          passed,
		RuntimeLogs:     cfg.RuntimeLogs,
	}
	if err := certify.WriteEnvironment(o.out, env); err != nil {
		return &cli.ExitError{Code: cli.ExitIO, Err: err}
	}
	if o.certify {
		if err := certify.Seal(o.out); err != nil {
			return &cli.ExitError{Code: cli.ExitIO, Err: err}
		}
		fmt.Fprintf(os.Stderr, "podspec-conformance: certification bundle sealed in %s (check it with: podspec conformance verify %s)\n", o.out, o.out)
	}
	if !passed {
		return &cli.ExitError{Code: cli.ExitFindings}
	}
	return nil
}

// teeStdout sends everything written to file descriptor 1 (Ginkgo writes there directly) both to
// the original stdout and to path, until the returned function is called.
func teeStdout(path string) (func() error, error) {
	logFile, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	saved, err := unix.Dup(1)
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("dup stdout: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("pipe: %w", err)
	}
	if err := unix.Dup3(int(w.Fd()), 1, 0); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("redirect stdout: %w", err)
	}
	orig := os.NewFile(uintptr(saved), "stdout")
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.MultiWriter(orig, logFile), r)
		done <- err
	}()
	return func() error {
		// Put the original stdout back, close every write end, drain the pipe.
		if err := unix.Dup3(saved, 1, 0); err != nil {
			return fmt.Errorf("restore stdout: %w", err)
		}
		w.Close()
		copyErr := <-done
		r.Close()
		return errors.Join(copyErr, logFile.Close())
	}, nil
}

// runtimeVersionJSON returns the runtime's `version` output (null when it fails).
func runtimeVersionJSON(ctx context.Context, command string) json.RawMessage {
	rt, err := fw.NewRuntime(command, nil)
	if err != nil {
		return json.RawMessage("null")
	}
	res, err := rt.Exec(ctx, "version")
	if err != nil || res.ExitCode != 0 || !json.Valid(res.Stdout) {
		return json.RawMessage("null")
	}
	return json.RawMessage(strings.TrimSpace(string(res.Stdout)))
}

// suiteInfo describes this suite build.
func suiteInfo(probe string) certify.SuiteInfo {
	info := certify.SuiteInfo{ContractVersion: runtimev1.ContractVersion, SpecVersion: specVersion(), GoVersion: runtime.Version()}
	if self, err := os.Executable(); err == nil {
		info.BinarySHA256, _ = certify.FileSHA256(self)
	}
	if probe != "" {
		info.ProbeSHA256, _ = certify.FileSHA256(probe)
	}
	return info
}

// specVersion is the newest "since" in the requirements registry.
func specVersion() string {
	reqs := spec.All()
	v := ""
	for _, r := range reqs {
		if r.Since > v {
			v = r.Since
		}
	}
	return v
}

func newConformanceVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify BUNDLE",
		Short: "Check a certification bundle: complete, unmodified, unfiltered, every expected spec passed",
		Long: `verify re-checks a bundle written by 'podspec conformance run --certify': every file is
present and matches SHA256SUMS, the run had no selection and no retries and was made by this
suite version, every spec of this suite is in the report and every spec of a declared profile
passed (a graded SHOULD-level spec "not met" at the bundle's compliance level passed: it is
a warning), and junit.xml and suite.log agree with report.json. The compliance level must be
recorded.

Exit status: 0 the bundle is valid; 1 it is not (every problem is listed); 2 usage.`,
		Args: cli.Args(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			exp, err := expectedSpecs()
			if err != nil {
				return &cli.ExitError{Code: cli.ExitIO, Err: err}
			}
			if err := certify.Verify(args[0], exp); err != nil {
				fmt.Fprintf(os.Stderr, "bundle %s is NOT valid:\n%v\n", args[0], err)
				return &cli.ExitError{Code: cli.ExitFindings}
			}
			fmt.Printf("bundle %s is valid: %d specs, every expected spec present, no failure, files unmodified\n", args[0], len(exp.Specs))
			return nil
		},
	}
}

// expectedSpecs lists the compiled suite's specs with a silent Ginkgo dry run (this process
// runs no other suite).
func expectedSpecs() (certify.Expected, error) {
	dir, err := os.MkdirTemp("", "podspec-verify-")
	if err != nil {
		return certify.Expected{}, err
	}
	defer os.RemoveAll(dir)
	sc, rc := types.NewDefaultSuiteConfig(), types.NewDefaultReporterConfig()
	sc.DryRun = true
	rc.JSONReport = filepath.Join(dir, "report.json")
	rc.Succinct, rc.NoColor = true, true
	restore, err := silenceStdout()
	if err != nil {
		return certify.Expected{}, err
	}
	suites.Run(nil, suites.Options{Suite: sc, Reporter: rc})
	if err := restore(); err != nil {
		return certify.Expected{}, err
	}
	data, err := os.ReadFile(rc.JSONReport)
	if err != nil {
		return certify.Expected{}, err
	}
	rep, err := suites.DecodeReport(data)
	if err != nil {
		return certify.Expected{}, err
	}
	exp := certify.Expected{Specs: map[string]string{}, ContractVersion: runtimev1.ContractVersion, SpecVersion: specVersion()}
	for _, sr := range rep.SpecReports {
		if sr.LeafNodeType != types.NodeTypeIt {
			continue
		}
		profile := spec.ProfileCore
		for _, l := range sr.Labels() {
			if p, ok := strings.CutPrefix(l, "profile:"); ok {
				profile = p
			}
		}
		exp.Specs[sr.FullText()] = profile
	}
	return exp, nil
}

// silenceStdout discards file descriptor 1 until the returned function is called.
func silenceStdout() (func() error, error) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	saved, err := unix.Dup(1)
	if err != nil {
		devnull.Close()
		return nil, err
	}
	if err := unix.Dup3(int(devnull.Fd()), 1, 0); err != nil {
		devnull.Close()
		return nil, err
	}
	return func() error {
		err := unix.Dup3(saved, 1, 0)
		return errors.Join(err, unix.Close(saved), devnull.Close())
	}, nil
}

func newConformanceCheckCmd() *cobra.Command {
	var h harnessFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check-runtime --runtime CMD",
		Short: "Check a runtime's command-line contract (arguments, exit codes, error reports, JSON shapes)",
		Long: `check-runtime checks the runtime's behaviour against docs/runtime-interface.md before any
lifecycle test, so that an adapter bug is reported as such: version JSON, usage errors (2),
unknown pods (4), invalid manifests (1 with findings), unreadable files (3), wait timeouts (7),
conflicts (5), and status/events shapes checked against the JSON Schemas.

Exit status: 0 every check passed; 1 a check failed; 2 usage.`,
		Args: cli.Args(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := h.config(io.Discard)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			f, err := fw.New(ctx, cfg)
			if err != nil {
				return &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("prepare the check: %w", err)}
			}
			defer f.Close()
			results, err := preflight.Run(ctx, preflight.Options{Framework: f})
			if err != nil {
				return &cli.ExitError{Code: cli.ExitFindings, Err: err}
			}
			failed := 0
			for _, r := range results {
				if !r.OK {
					failed++
				}
			}
			if asJSON {
				if err := cli.PrintJSON(results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					mark := "ok  "
					if !r.OK {
						mark = "FAIL"
					}
					fmt.Printf("%s  [§%s] %s\n", mark, r.Section, r.Name)
					if !r.OK {
						fmt.Printf("      %s\n", strings.ReplaceAll(strings.TrimSpace(r.Detail), "\n", "\n      "))
					}
				}
				fmt.Printf("%d checks, %d failed\n", len(results), failed)
			}
			if failed > 0 {
				return &cli.ExitError{Code: cli.ExitFindings}
			}
			return nil
		},
	}
	h.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as a JSON array")
	return cmd
}
