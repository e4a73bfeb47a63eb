package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"podspec.dev/podspec/internal/corpustest"
)

// peerOnlyRejections are the reviewed reasons kubectl-validate rejects a real pod-carrying
// document podspec accepts, each a difference of kubectl-validate from the API server, never a
// rejection podspec misses; wantRule, when set, is a finding podspec must report instead.
var peerOnlyRejections = []struct {
	message  *regexp.Regexp
	why      string
	wantRule string
}{
	{regexp.MustCompile(`metadata\.name was not generated`),
		"a Job with generateName: the API server generates the name; kubectl-validate's offline dry run cannot", ""},
	{regexp.MustCompile(`\.ports\[\d+\]: Duplicate value`),
		"a container port listed twice: the API server accepts it with a warning, as podspec does (KUBE-024); kubectl-validate holds the list's map keys unique", "KUBE-024"},
}

// TestKubectlValidateAgreesOnTheRealWorldCorpus runs podspec validate and kubectl-validate (its
// built-in OpenAPI documents of Kubernetes 1.30, offline) over ../shared/realworld, both for
// Kubernetes 1.30, and holds every disagreement on a pod-carrying document to a reason: a
// document only podspec rejects is one the corpus's expected-errors.txt (with the judgements of
// corpustest) lists with that rule (a check kubectl-validate's schemas cannot make: placeholders,
// volume names, selectors); a document
// only kubectl-validate rejects has one of the reviewed reasons above. scripts/test.sh installs
// kubectl-validate and names it in $PODSPEC_KUBECTL_VALIDATE; without it the test is skipped.
func TestKubectlValidateAgreesOnTheRealWorldCorpus(t *testing.T) {
	kv := os.Getenv("PODSPEC_KUBECTL_VALIDATE")
	if kv == "" {
		t.Skip("$PODSPEC_KUBECTL_VALIDATE does not name a kubectl-validate binary (scripts/test.sh installs one)")
	}
	dir := corpustest.RealWorldDir("../..")
	if dir == "" {
		t.Skip("the real-world corpus (../shared/realworld/ beside the repository, or $PODSPEC_REALWORLD) is not on this machine")
	}
	corpus, err := filepath.Abs(filepath.Join(dir, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	expected := corpustest.RealWorldErrors(t, dir)
	podspec := filepath.Join(t.TempDir(), "podspec")
	if out, err := exec.Command("go", "build", "-o", podspec, "../../cmd/podspec").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const version = "1.30"
	docs, err := podspecDocs(podspecCommand(podspec, version, true, corpus))
	if err != nil {
		t.Fatal(err)
	}
	v, err := kubectlValidateVerdicts(kubectlValidateCommand(kv, version, corpus))
	if err != nil {
		t.Fatal(err)
	}
	a := agree(docs, v)
	pods := len(a.both) + len(a.neither) + len(a.onlyPodspec) + len(a.onlyPeer) + a.notJudged + a.inUnmatched
	t.Logf("%d pod-carrying documents: both reject %d, both accept %d, only podspec %d, only kubectl-validate %d, not judged %d, in %d files numbered differently %d",
		pods, len(a.both), len(a.neither), len(a.onlyPodspec), len(a.onlyPeer), a.notJudged, a.unmatchedFiles, a.inUnmatched)
	if pods < 1000 || len(a.both) == 0 || a.notJudged > 0 || a.inUnmatched*100 > pods {
		t.Errorf("too few documents compared: %d pod-carrying, %d rejected by both, %d not judged, %d in files numbered differently", pods, len(a.both), a.notJudged, a.inUnmatched)
	}
	for _, d := range a.onlyPodspec {
		rel, _ := filepath.Rel(corpus, d.file)
		rule, _, _ := strings.Cut(d.first, " ")
		listed := false
		for e := range expected {
			listed = listed || strings.HasPrefix(e, rule+" "+rel+":")
		}
		if !listed {
			t.Errorf("only podspec rejects %s #%d (%s), and expected-errors.txt does not list it: a false positive?", rel, d.index, d.first)
		}
	}
	for _, d := range a.onlyPeer {
		rel, _ := filepath.Rel(corpus, d.file)
		reviewed := false
		for _, r := range peerOnlyRejections {
			if r.message.MatchString(d.first) {
				reviewed = true
				if r.wantRule != "" && !slices.Contains(d.rules, r.wantRule) {
					t.Errorf("%s #%d: kubectl-validate says %q and podspec reports no %s", rel, d.index, d.first, r.wantRule)
				}
			}
		}
		if !reviewed {
			t.Errorf("only kubectl-validate rejects %s #%d %s %s: %q: a rejection podspec misses, or a new reason to review", rel, d.index, d.kind, d.name, d.first)
		}
	}
}
