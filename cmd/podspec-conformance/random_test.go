package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"podspec.dev/podspec/conformance/suites"
)

// TestRandomFlagsRefuseWhatMakesNoSense: usage errors (exit 2) before any runtime is touched.
func TestRandomFlagsRefuseWhatMakesNoSense(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(file, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"a certification with generated scenarios": {"--certify", "--random", "3"},
		"a certification replaying a scenario":     {"--certify", "--random-scenario", file},
		"a negative count":                         {"--random", "-1"},
		"a seed without --random":                  {"--seed", "5"},
		"both --random and a scenario file":        {"--random", "2", "--random-scenario", file},
		"a negative shrink budget":                 {"--random", "2", "--shrink-runs", "-3"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"run", "--runtime", "/bin/false", "--out", t.TempDir()}, args...)
			if code := run(args); code != 2 {
				t.Errorf("run %v: exit %d, want 2 (usage)", args, code)
			}
		})
	}
}

func TestARandomRunSelectsItsOwnSpecs(t *testing.T) {
	if got := randomFilter(""); got != "random" {
		t.Errorf("no filter: %q, want the label random alone", got)
	}
	if got := randomFilter("req:STOP-008 || req:HB-001"); got != "random && (req:STOP-008 || req:HB-001)" {
		t.Errorf("a filter narrows the generated scenarios: got %q", got)
	}
}

func TestTheSeedIsPrintedFirstWithHowToReplay(t *testing.T) {
	line := describeRandom(suites.Random{N: 4, Seed: 77})
	for _, want := range []string{"4 scenarios from seed 77", "--random 4 --seed 77", "seed 77+i"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}
