// Package cue holds the CUE definitions of the podspec.dev/v1alpha1 API (#Pod, #Notification,
// #PodStatus, #NotificationStatus, #PodNotificationRecord), embedded in the binary, for any CUE
// tool and for the JSON Schema generator.
//
// The .cue files in this directory are the single source of truth for the structural rules of
// the API (types, enums, patterns, bounds, closedness, "exactly one of"). The JSON Schema files
// in package schema are generated from them; package schema's generator test fails when the
// two drift apart. Rules a schema cannot say (uniqueness, references, cycles, update legality)
// live in package validation, not here.
//
// The validation engine that checks a decoded document against these definitions (Validate,
// Violations, in engine_test.go) exists for this package's tests only, which hold it and
// package schema's engine to the same rule IDs, paths and messages over the corpus and thousands
// of mutants: it is correct rather than fast (about 10 ms of CPU for a typical pod, against
// about 0.2 ms for package schema's), linking CUE's evaluator doubles a program's start time,
// and podspec validate runs the JSON Schema generated from these definitions instead.
package cue

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/parser"
)

//go:embed *.cue
var sources embed.FS

// FS returns the embedded CUE source files (package podspec), for tools and generators.
func FS() fs.FS { return sources }

// Kinds lists the kinds that have a definition, in a stable order. The definition of kind K is
// #K.
func Kinds() []string {
	return []string{"Pod", "Notification", "PodStatus", "NotificationStatus", "PodNotificationRecord", "Event"}
}

// Build compiles the embedded definitions into ctx and returns the package value. Values built
// in one cue.Context must not be used from several goroutines at once.
func Build(ctx *cue.Context) (cue.Value, error) {
	names, err := sourceNames()
	if err != nil {
		return cue.Value{}, err
	}
	inst := build.NewContext().NewInstance("podspec.dev/podspec/cue", nil)
	for _, name := range names {
		src, err := sources.ReadFile(name)
		if err != nil {
			return cue.Value{}, fmt.Errorf("read embedded %s: %w", name, err)
		}
		f, err := parser.ParseFile(name, src, parser.ParseComments)
		if err != nil {
			return cue.Value{}, fmt.Errorf("parse embedded %s: %w", name, err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, fmt.Errorf("add embedded %s: %w", name, err)
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, fmt.Errorf("build CUE definitions: %w", err)
	}
	return v, nil
}

// sourceNames lists the embedded .cue files in order.
func sourceNames() ([]string, error) {
	names, err := fs.Glob(sources, "*.cue")
	if err != nil {
		return nil, fmt.Errorf("list embedded CUE files: %w", err)
	}
	sort.Strings(names)
	return names, nil
}
