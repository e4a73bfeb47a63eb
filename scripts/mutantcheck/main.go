// Command mutantcheck reads the Ginkgo JSON report of one conformance run and decides whether
// it shows what scripts/mutants.sh expects: against a mutant build of the reference runtime,
// at least one spec labelled with a requirement the mutant breaks failed in its own It (not in
// the BeforeAll that runs the scenario, where a slow machine or a broken harness fails), with a
// failure message matching -match when given (so that a timing spec caught the mutant's
// direction, e.g. "before its back-off", not a late reaction of a loaded machine); against the
// normal build, every selected spec passed.
//
//	mutantcheck -report DIR/report.json -want fail -req RST-008,TIME-001 -match 'before its back-off'
//	mutantcheck -report DIR/report.json -want pass
//
// It prints one line: the verdict and the failed specs with their requirement labels. Exit
// status: 0 the expectation holds, 1 it does not, 2 usage or an unreadable report.
//
// It also reads the mutant registry, reference/mutants/mutants.yaml, and the mutants' patches,
// reference/mutants/NAME.patch (run from the repository root):
//
//	mutantcheck list [-registry FILE] [-sample N -seed S] [NAME ...]   # the mutants, one line each, for scripts/mutants.sh
//	mutantcheck coverage [-registry FILE]                              # how many runtime requirements a mutant breaks
//	mutantcheck overlay -dir DIR NAME                                  # apply NAME.patch into DIR, print DIR/overlay.json
//	mutantcheck touched [-registry FILE] -base REV                     # the mutants whose patched files changed since REV
//	mutantcheck refit [-registry FILE] [NAME ...]                      # move the patches' hunks to where their lines moved
//	mutantcheck model [-registry FILE]                                 # which mutants break a requirement the lifecycle model judges
//
// `overlay` applies the patch with no fuzz into DIR/files and writes DIR/overlay.json, for
// `go build -overlay DIR/overlay.json ./cmd/podspec`: the tree is never touched. The registry's
// gate (every runtime-level MUST and SHOULD has a mutant or a pending entry) is this package's
// test, TestTheRegistryCoversEveryRuntimeRequirement; TestEveryPatchAppliesBuildsAndVets
// applies and vets every patch. `refit` rewrites a patch whose code only moved (its hunks' old
// lines are all still there, elsewhere) so that it applies strictly again; a patch whose code
// changed stays as it is and is named.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	catalog "podspec.dev/podspec/spec"
)

// specReport is the part of a Ginkgo v2 SpecReport that the check reads.
type specReport struct {
	LeafNodeType             string
	LeafNodeText             string
	LeafNodeLabels           []string
	ContainerHierarchyLabels [][]string
	ContainerHierarchyTexts  []string
	State                    string
	Failure                  struct {
		Message         string
		FailureNodeType string
	}
}

// suiteReport is the part of a Ginkgo v2 Report that the check reads.
type suiteReport struct {
	SpecReports []specReport
}

// spec is one spec of a run: its text, requirement IDs, state, and for a failure the node
// that failed (It, BeforeAll, ...) and the message.
type spec struct {
	text     string
	reqs     []string
	state    string
	failNode string
	message  string
}

// failed reports whether a spec state counts as a failure.
func failed(state string) bool {
	switch state {
	case "passed", "skipped", "pending":
		return false
	}
	return true
}

// readSpecs decodes a Ginkgo JSON report (an array of suite reports) into its specs; suite
// nodes (BeforeSuite, AfterSuite, ...) come back with no requirement.
func readSpecs(r io.Reader) ([]spec, error) {
	var reports []suiteReport
	if err := json.NewDecoder(r).Decode(&reports); err != nil {
		return nil, fmt.Errorf("decode report: %w", err)
	}
	if len(reports) == 0 {
		return nil, errors.New("the report holds no suite")
	}
	var out []spec
	for _, rep := range reports {
		for _, sr := range rep.SpecReports {
			s := spec{text: strings.TrimSpace(strings.Join(append(append([]string{}, sr.ContainerHierarchyTexts...), sr.LeafNodeText), " ")),
				state: sr.State, failNode: sr.Failure.FailureNodeType, message: sr.Failure.Message}
			if s.text == "" {
				s.text = "[" + sr.LeafNodeType + "]"
			}
			labels := append([]string{}, sr.LeafNodeLabels...)
			for _, l := range sr.ContainerHierarchyLabels {
				labels = append(labels, l...)
			}
			for _, l := range labels {
				// A clause's label (clause:STAT-002.only-if-killed) names what a mutant's breaks may list too.
				if id, ok := catalog.LabelID(l); ok {
					s.reqs = append(s.reqs, id)
				}
			}
			sort.Strings(s.reqs)
			out = append(out, s)
		}
	}
	return out, nil
}

// verdict applies the expectation to the specs of a run. want is "fail" (some spec that carries
// one of reqs failed in its It, with a message matching match when it is not nil) or "pass" (no
// failure anywhere, at least one spec with a requirement ran). It returns whether the
// expectation holds and a one-line explanation.
func verdict(specs []spec, want string, reqs []string, match *regexp.Regexp) (bool, string) {
	expected := map[string]bool{}
	for _, r := range reqs {
		expected[r] = true
	}
	var ran, catching, other []string
	for _, s := range specs {
		if s.state != "skipped" && s.state != "pending" && len(s.reqs) > 0 {
			ran = append(ran, s.text)
		}
		if !failed(s.state) {
			continue
		}
		hit := false
		for _, r := range s.reqs {
			if expected[r] {
				hit = true
			}
		}
		hit = hit && s.failNode == "It" && (match == nil || match.MatchString(s.message))
		desc := fmt.Sprintf("%s [%s] (%s in %s)", s.text, strings.Join(s.reqs, ","), s.state, s.failNode)
		if hit {
			catching = append(catching, desc)
		} else {
			other = append(other, desc)
		}
	}
	switch want {
	case "pass":
		if len(catching)+len(other) > 0 {
			return false, "failed: " + strings.Join(append(catching, other...), "; ")
		}
		if len(ran) == 0 {
			return false, "no spec with a requirement ran"
		}
		return true, fmt.Sprintf("passed: %d specs", len(ran))
	case "fail":
		if len(catching) == 0 {
			if len(other) > 0 {
				return false, "survived: no spec of req " + strings.Join(reqs, "|") + " failed in its It" + matchNote(match) + "; other failures: " + strings.Join(other, "; ")
			}
			return false, fmt.Sprintf("survived: all %d specs passed", len(ran))
		}
		msg := "caught by: " + strings.Join(catching, "; ")
		if len(other) > 0 {
			msg += "; also failed: " + strings.Join(other, "; ")
		}
		return true, msg
	}
	return false, fmt.Sprintf("unknown expectation %q", want)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "overlay" {
		os.Exit(overlayCommand(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "refit" {
		os.Exit(refitCommand(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "model" {
		os.Exit(modelCommand(os.Args[2:]))
	}
	if len(os.Args) > 1 && (os.Args[1] == "list" || os.Args[1] == "coverage" || os.Args[1] == "touched") {
		os.Exit(registryCommand(os.Args[1], os.Args[2:]))
	}
	report := flag.String("report", "", "Ginkgo JSON report (report.json of `podspec conformance run --out DIR`)")
	want := flag.String("want", "fail", "fail: a spec labelled with one of -req failed; pass: every spec passed")
	reqList := flag.String("req", "", "comma-separated requirement IDs the mutant breaks (with -want fail)")
	matchRE := flag.String("match", "", "regular expression the catching spec's failure message must match (with -want fail)")
	flag.Parse()
	if *report == "" || flag.NArg() > 0 || (*want == "fail" && *reqList == "") {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(*report)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutantcheck:", err)
		os.Exit(2)
	}
	defer f.Close()
	specs, err := readSpecs(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mutantcheck: %s: %v\n", *report, err)
		os.Exit(2)
	}
	var reqs []string
	if *reqList != "" {
		reqs = strings.Split(*reqList, ",")
	}
	var match *regexp.Regexp
	if *matchRE != "" {
		if match, err = regexp.Compile(*matchRE); err != nil {
			fmt.Fprintln(os.Stderr, "mutantcheck: -match:", err)
			os.Exit(2)
		}
	}
	ok, msg := verdict(specs, *want, reqs, match)
	fmt.Println(msg)
	if !ok {
		os.Exit(1)
	}
}

func matchNote(match *regexp.Regexp) string {
	if match == nil {
		return ""
	}
	return fmt.Sprintf(" with a message matching %q", match.String())
}

// registryCommand runs `list` or `coverage` and returns the exit status.
func registryCommand(verb string, args []string) int {
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	path := fs.String("registry", patchDir+"/mutants.yaml", "the mutant registry")
	n := fs.Int("sample", 0, "list only N mutants, rotating with -seed (0: all)")
	seed := fs.String("seed", "", "what the sample rotates with (e.g. the commit)")
	base := fs.String("base", "", "touched: the revision to compare the work tree with")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	reg, err := loadRegistry(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutantcheck:", err)
		return 2
	}
	if verb == "touched" {
		if *base == "" {
			fmt.Fprintln(os.Stderr, "mutantcheck: touched needs -base")
			return 2
		}
		ms, err := touched(".", reg, *base)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutantcheck:", err)
			return 2
		}
		for _, m := range ms {
			fmt.Println(m.Name)
		}
		return 0
	}
	if verb == "coverage" {
		fmt.Printf("runtime-level requirements (MUST and SHOULD): %s (%d mutants)\n", coverage(reg), len(reg.Mutants))
		return 0
	}
	ms := reg.Mutants
	if fs.NArg() > 0 {
		byName := map[string]Mutant{}
		for _, m := range ms {
			byName[m.Name] = m
		}
		ms = nil
		for _, name := range fs.Args() {
			m, ok := byName[name]
			if !ok {
				fmt.Fprintf(os.Stderr, "mutantcheck: unknown mutant %s\n", name)
				return 2
			}
			ms = append(ms, m)
		}
	}
	for _, m := range sample(ms, *n, *seed) {
		fmt.Println(m.line())
	}
	return 0
}

// overlayCommand runs `overlay -dir DIR NAME` and returns the exit status.
func overlayCommand(args []string) int {
	fs := flag.NewFlagSet("overlay", flag.ContinueOnError)
	dir := fs.String("dir", "", "where the patched files and overlay.json go")
	if err := fs.Parse(args); err != nil || *dir == "" || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mutantcheck overlay -dir DIR NAME")
		return 2
	}
	ov, _, err := writeOverlay(".", *dir, fs.Arg(0), false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutantcheck:", err)
		return 1
	}
	fmt.Println(ov)
	return 0
}
