// Package docs embeds podspec's normative specification (spec.md and spec/*.md) and its
// requirements registry (requirements.yaml), and gives read access to the registry.
//
// Every normative sentence of the specification carries an ID (AREA-NNN) and is listed once in
// the registry with its RFC 2119 level, its area, the verbatim sentence, the capability profile it
// belongs to and who enforces it (the validator, a runtime conformance test, or both). The
// validator reports rule IDs from this registry (`podspec rules`) and the conformance suite labels
// its tests with them (`req:<ID>`). This package only reads; it never changes the documents.
//
// What checks each requirement — validator corpus cases, Go tests named after it, conformance
// specs labelled with it — is listed in traceability.md, which `go generate ./docs/` writes (the
// generator, internal/tracegen, imports the conformance suite; this package imports neither it
// nor the runtime).
package docs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Levels of a requirement: the RFC 2119 key word of its sentence (MUST NOT counts as MUST, SHOULD
// NOT as SHOULD).
const (
	LevelMust   = "MUST"
	LevelShould = "SHOULD"
	LevelMay    = "MAY"
)

// Enforcers of a requirement.
const (
	// EnforcedByValidator marks a requirement that `podspec validate` reports as a rule.
	EnforcedByValidator = "validator"
	// EnforcedByRuntime marks a requirement a runtime must meet: a conformance spec labelled
	// req:<ID>, a Go test named after it on the reference runtime, or an entry in the suite's
	// pending list must exist for it (see traceability.md).
	EnforcedByRuntime = "runtime"
)

// Capability profiles a requirement can belong to.
const (
	ProfileCore     = "core"
	ProfileDefer    = "defer"
	ProfileNotifier = "notifier"
	ProfileUpdate   = "update"
	ProfileGC       = "gc"
)

// Requirement is one normative sentence of the specification.
type Requirement struct {
	// ID is the stable identifier, AREA-NNN (e.g. STOP-006); it is also the anchor in the spec.
	ID string `json:"id" yaml:"id"`
	// Level is MUST, SHOULD or MAY.
	Level string `json:"level" yaml:"level"`
	// Area is the ID's prefix (e.g. STOP).
	Area string `json:"area" yaml:"area"`
	// Text is the sentence, verbatim from the spec (Markdown inline code kept).
	Text string `json:"text" yaml:"text"`
	// EnforcedBy lists "validator" and/or "runtime".
	EnforcedBy []string `json:"enforcedBy" yaml:"enforcedBy"`
	// Profile is the capability profile: core, defer, notifier, update or gc.
	Profile string `json:"profile" yaml:"profile"`
	// Since is the specification version that introduced the requirement.
	Since string `json:"since" yaml:"since"`
	// Source is the spec file that holds the requirement's anchor, relative to docs/
	// (e.g. "spec/stop.md"). It is derived from the embedded spec, not stored in the registry.
	Source string `json:"source,omitempty" yaml:"-"`
}

// ValidatorRule reports whether the validator reports this requirement as a rule.
func (r Requirement) ValidatorRule() bool {
	return slices.Contains(r.EnforcedBy, EnforcedByValidator)
}

// RuntimeTested reports whether the conformance suite tests this requirement on a runtime.
func (r Requirement) RuntimeTested() bool {
	return slices.Contains(r.EnforcedBy, EnforcedByRuntime)
}

// Link is the requirement's location in the repository, e.g. "docs/spec/stop.md#STOP-006".
func (r Requirement) Link() string {
	if r.Source == "" {
		return ""
	}
	return "docs/" + r.Source + "#" + r.ID
}

//go:embed requirements.yaml spec.md spec/*.md
var files embed.FS

// Spec returns the embedded specification: spec.md and spec/*.md, plus requirements.yaml.
func Spec() fs.FS { return files }

// idPattern is the shape of every requirement ID.
var idPattern = regexp.MustCompile(`^[A-Z]+-[0-9]{3}$`)

// anchorPattern finds requirement anchors in the spec text.
var anchorPattern = regexp.MustCompile(`<a name="([A-Z]+-[0-9]{3})"></a>`)

// registry is the loaded, read-only registry.
type registry struct {
	list []Requirement
	byID map[string]int
}

// loadOnce parses the embedded registry the first time it is needed. The result is never
// modified afterwards; Requirements and Lookup hand out copies.
var loadOnce = sync.OnceValues(func() (*registry, error) { return load(files) })

// Requirements returns every requirement in registry order (the order of the spec's documents).
// The slice is a fresh copy the caller may modify.
func Requirements() ([]Requirement, error) {
	reg, err := loadOnce()
	if err != nil {
		return nil, err
	}
	out := make([]Requirement, len(reg.list))
	for i, r := range reg.list {
		out[i] = r.clone()
	}
	return out, nil
}

// Lookup returns the requirement with the given ID. It reports false for an unknown ID, and also
// when the embedded registry cannot be loaded (which the package's tests rule out).
func Lookup(id string) (Requirement, bool) {
	reg, err := loadOnce()
	if err != nil {
		return Requirement{}, false
	}
	i, ok := reg.byID[id]
	if !ok {
		return Requirement{}, false
	}
	return reg.list[i].clone(), true
}

func (r Requirement) clone() Requirement {
	r.EnforcedBy = slices.Clone(r.EnforcedBy)
	return r
}

// registryFile is the shape of requirements.yaml.
type registryFile struct {
	Requirements []Requirement `yaml:"requirements"`
}

// load parses and checks requirements.yaml from fsys and attaches each requirement's source file.
func load(fsys fs.FS) (*registry, error) {
	data, err := fs.ReadFile(fsys, "requirements.yaml")
	if err != nil {
		return nil, fmt.Errorf("read requirements registry: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var rf registryFile
	if err := dec.Decode(&rf); err != nil {
		return nil, fmt.Errorf("decode requirements.yaml: %w", err)
	}
	sources, err := anchorSources(fsys)
	if err != nil {
		return nil, err
	}
	reg := &registry{byID: make(map[string]int, len(rf.Requirements))}
	var errs []error
	for i, r := range rf.Requirements {
		if err := r.check(); err != nil {
			errs = append(errs, fmt.Errorf("requirements.yaml entry %d: %w", i+1, err))
			continue
		}
		if _, dup := reg.byID[r.ID]; dup {
			errs = append(errs, fmt.Errorf("requirements.yaml entry %d: duplicate id %s", i+1, r.ID))
			continue
		}
		r.Source = sources[r.ID]
		reg.byID[r.ID] = len(reg.list)
		reg.list = append(reg.list, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return reg, nil
}

// check validates one registry entry on its own.
func (r Requirement) check() error {
	if !idPattern.MatchString(r.ID) {
		return fmt.Errorf("id %q does not match %s", r.ID, idPattern)
	}
	if area, _, _ := strings.Cut(r.ID, "-"); r.Area != area {
		return fmt.Errorf("%s: area %q is not the id's prefix %q", r.ID, r.Area, area)
	}
	switch r.Level {
	case LevelMust, LevelShould, LevelMay:
	default:
		return fmt.Errorf("%s: level %q is not MUST, SHOULD or MAY", r.ID, r.Level)
	}
	switch r.Profile {
	case ProfileCore, ProfileDefer, ProfileNotifier, ProfileUpdate, ProfileGC:
	default:
		return fmt.Errorf("%s: unknown profile %q", r.ID, r.Profile)
	}
	if len(r.EnforcedBy) == 0 {
		return fmt.Errorf("%s: enforcedBy is empty", r.ID)
	}
	for _, e := range r.EnforcedBy {
		if e != EnforcedByValidator && e != EnforcedByRuntime {
			return fmt.Errorf("%s: enforcedBy %q is not validator or runtime", r.ID, e)
		}
	}
	if strings.TrimSpace(r.Text) == "" {
		return fmt.Errorf("%s: text is empty", r.ID)
	}
	if r.Since == "" {
		return fmt.Errorf("%s: since is empty", r.ID)
	}
	return nil
}

// specFiles lists the embedded spec documents in reading order: spec.md, then spec/*.md sorted.
func specFiles(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "spec/*.md")
	if err != nil {
		return nil, fmt.Errorf("list spec files: %w", err)
	}
	slices.Sort(names)
	return append([]string{"spec.md"}, names...), nil
}

// anchorSources maps every requirement anchor in the spec to the file that holds it (the first
// one, if an ID is anchored twice; the tests reject that).
func anchorSources(fsys fs.FS) (map[string]string, error) {
	names, err := specFiles(fsys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string)
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		for _, m := range anchorPattern.FindAllSubmatch(data, -1) {
			id := string(m[1])
			if _, seen := out[id]; !seen {
				out[id] = path.Clean(name)
			}
		}
	}
	return out, nil
}
