package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/spf13/cobra"

	"podspec.dev/podspec/cmd/internal/cli"
	fw "podspec.dev/podspec/conformance/framework"
	"podspec.dev/podspec/conformance/scenariogen"
	"podspec.dev/podspec/conformance/suites"
)

// randomFlags are run's flags for generated scenarios.
type randomFlags struct {
	n          int
	seed       uint64
	scenario   string
	shrinkRuns int
}

func (r *randomFlags) add(cmd *cobra.Command) {
	cmd.Flags().IntVar(&r.n, "random", 0, "run this many generated scenarios (label "+suites.RandomLabel+") instead of the suite, each judged by the lifecycle model")
	cmd.Flags().Uint64Var(&r.seed, "seed", 0, "seed of the first generated scenario (scenario i: seed+i); default: drawn, and printed")
	cmd.Flags().StringVar(&r.scenario, "random-scenario", "", "run the generated scenario in this file (as a violation prints it) instead of the suite")
	cmd.Flags().IntVar(&r.shrinkRuns, "shrink-runs", 20, "runs a violated generated scenario may take to shrink (0: no shrinking)")
}

// asked reports whether the run is one of generated scenarios.
func (r *randomFlags) asked() bool { return r.n > 0 || r.scenario != "" }

// check refuses combinations that make no sense.
func (r *randomFlags) check(cmd *cobra.Command) error {
	usage := func(msg string) error { return &cli.ExitError{Code: cli.ExitUsage, Err: errors.New(msg)} }
	switch {
	case r.n < 0:
		return usage("--random must not be negative")
	case r.shrinkRuns < 0:
		return usage("--shrink-runs must not be negative")
	case r.n > 0 && r.scenario != "":
		return usage("--random and --random-scenario are exclusive")
	case cmd.Flags().Changed("seed") && r.n == 0:
		return usage("--seed needs --random")
	}
	return nil
}

// options are the suite's Random options: the runtime's declared profiles (which the draws may
// use), the seed (drawn when not given) or the scenario of the file.
func (r *randomFlags) options(ctx context.Context, runtimeCommand string) (suites.Random, error) {
	rt, err := fw.NewRuntime(runtimeCommand, io.Discard)
	if err != nil {
		return suites.Random{}, &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	v, _, err := rt.Version(ctx)
	if err != nil {
		return suites.Random{}, &cli.ExitError{Code: cli.ExitFindings, Err: fmt.Errorf("read the runtime's declared profiles: %w", err)}
	}
	out := suites.Random{N: r.n, Seed: r.seed, Profiles: v.Profiles, ShrinkRuns: r.shrinkRuns}
	if r.scenario != "" {
		data, err := os.ReadFile(r.scenario)
		if err != nil {
			return suites.Random{}, &cli.ExitError{Code: cli.ExitIO, Err: err}
		}
		s, err := scenariogen.Decode(data)
		if err != nil {
			return suites.Random{}, &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("--random-scenario %s: %w", r.scenario, err)}
		}
		out.Scenarios = []*scenariogen.Scenario{s}
	} else if r.seed == 0 {
		out.Seed = rand.Uint64N(1 << 53) // exact in JSON and in any shell's arithmetic
	}
	return out, nil
}

// randomFilter is the label filter of a run of generated scenarios: theirs, narrowed by the
// user's.
func randomFilter(user string) string {
	if user == "" {
		return suites.RandomLabel
	}
	return suites.RandomLabel + " && (" + user + ")"
}

// describeRandom is the first line of a run of generated scenarios: how to replay it.
func describeRandom(r suites.Random) string {
	if len(r.Scenarios) > 0 {
		return fmt.Sprintf("random: 1 scenario from a file (seed %d), profiles %v\n", r.Scenarios[0].Seed, r.Profiles)
	}
	return fmt.Sprintf("random: %d scenarios from seed %d (scenario i: seed %d+i), profiles %v; replay with --random %d --seed %d\n",
		r.N, r.Seed, r.Seed, r.Profiles, r.N, r.Seed)
}
