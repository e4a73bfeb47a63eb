package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// entry is one requirement as requirements.yaml writes it, plus the spec file that anchors it.
type entry struct {
	ID         string   `yaml:"id"`
	Level      string   `yaml:"level"`
	Area       string   `yaml:"area"`
	Text       string   `yaml:"text"`
	EnforcedBy []string `yaml:"enforcedBy"`
	Profile    string   `yaml:"profile"`
	Since      string   `yaml:"since"`
	Clauses    []clause `yaml:"clauses"`
	Source     string   `yaml:"-"`
}

// clause is one part of a requirement's sentence that the gates count on its own: a case, one
// direction of an "if and only if", one field the sentence names.
type clause struct {
	Key  string `yaml:"key"`
	Text string `yaml:"text"`
}

// clauseKey is the shape of a clause's key: lower-case words joined by hyphens. The key follows
// the requirement ID after a dot in the clause's ID (STAT-002.only-if-killed), which must be a valid
// Ginkgo label value: no '&|!,()/' and no spaces.
var clauseKey = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// registryFile is the shape of requirements.yaml.
type registryFile struct {
	Requirements []entry `yaml:"requirements"`
}

// idPattern is the shape of every requirement ID.
var idPattern = regexp.MustCompile(`^[A-Z]+-[0-9]{3}$`)

// anchorPattern finds requirement anchors in the spec text.
var anchorPattern = regexp.MustCompile(`<a name="([A-Z]+-[0-9]{3})"></a>`)

// load parses and checks requirements.yaml from fsys and attaches each requirement's source file.
func load(fsys fs.FS) ([]entry, error) {
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
	seen := make(map[string]bool, len(rf.Requirements))
	var out []entry
	var errs []error
	for i, r := range rf.Requirements {
		if err := r.check(); err != nil {
			errs = append(errs, fmt.Errorf("requirements.yaml entry %d: %w", i+1, err))
			continue
		}
		if seen[r.ID] {
			errs = append(errs, fmt.Errorf("requirements.yaml entry %d: duplicate id %s", i+1, r.ID))
			continue
		}
		seen[r.ID] = true
		r.Source = sources[r.ID]
		if r.Source == "" {
			errs = append(errs, fmt.Errorf("%s is in requirements.yaml but anchored nowhere in spec.md or spec/*.md", r.ID))
			continue
		}
		out = append(out, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// check validates one registry entry on its own.
func (r entry) check() error {
	if !idPattern.MatchString(r.ID) {
		return fmt.Errorf("id %q does not match %s", r.ID, idPattern)
	}
	if area, _, _ := strings.Cut(r.ID, "-"); r.Area != area {
		return fmt.Errorf("%s: area %q is not the id's prefix %q", r.ID, r.Area, area)
	}
	switch r.Level {
	case "MUST", "SHOULD", "MAY":
	default:
		return fmt.Errorf("%s: level %q is not MUST, SHOULD or MAY", r.ID, r.Level)
	}
	switch r.Profile {
	case "core", "defer", "notifier", "update", "gc", "kubernetes":
	default:
		return fmt.Errorf("%s: unknown profile %q", r.ID, r.Profile)
	}
	if len(r.EnforcedBy) == 0 {
		return fmt.Errorf("%s: enforcedBy is empty", r.ID)
	}
	for _, e := range r.EnforcedBy {
		if e != "validator" && e != "runtime" && e != "converter" {
			return fmt.Errorf("%s: enforcedBy %q is not validator, runtime or converter", r.ID, e)
		}
	}
	if slices.Contains(r.EnforcedBy, "converter") && len(r.EnforcedBy) != 1 {
		return fmt.Errorf("%s: a converter requirement is enforced by the converter alone, not also by %v", r.ID, r.EnforcedBy)
	}
	if slices.Contains(r.EnforcedBy, "validator") && r.Level == "MAY" {
		return fmt.Errorf("%s: a validator rule must be MUST (an error) or SHOULD (a warning), not MAY", r.ID)
	}
	if strings.TrimSpace(r.Text) == "" {
		return fmt.Errorf("%s: text is empty", r.ID)
	}
	if r.Since == "" {
		return fmt.Errorf("%s: since is empty", r.ID)
	}
	return r.checkClauses()
}

// checkClauses validates a requirement's clauses: none, or at least two, each with a key of the
// allowed shape used once and a text that occurs in the sentence.
func (r entry) checkClauses() error {
	if len(r.Clauses) == 1 {
		return fmt.Errorf("%s: a single clause is the requirement itself: list two or more, or none", r.ID)
	}
	sentence := normalise(r.Text)
	keys := map[string]bool{}
	for _, c := range r.Clauses {
		switch {
		case !clauseKey.MatchString(c.Key):
			return fmt.Errorf("%s: clause key %q does not match %s", r.ID, c.Key, clauseKey)
		case keys[c.Key]:
			return fmt.Errorf("%s: clause key %q is used twice", r.ID, c.Key)
		case strings.TrimSpace(c.Text) == "":
			return fmt.Errorf("%s.%s: the clause has no text", r.ID, c.Key)
		case !strings.Contains(sentence, normalise(c.Text)):
			return fmt.Errorf("%s.%s: the clause's text %q does not occur in the sentence", r.ID, c.Key, c.Text)
		}
		keys[c.Key] = true
	}
	return nil
}

// normalise folds runs of white space into one space.
func normalise(s string) string { return strings.Join(strings.Fields(s), " ") }

// specFiles lists the spec documents in reading order: spec.md, then spec/*.md sorted.
func specFiles(fsys fs.FS) ([]string, error) {
	names, err := fs.Glob(fsys, "spec/*.md")
	if err != nil {
		return nil, fmt.Errorf("list spec files: %w", err)
	}
	slices.Sort(names)
	return append([]string{"spec.md"}, names...), nil
}

// anchorSources maps every requirement anchor in the spec to the file that holds it (the first
// one, if an ID is anchored twice; package docs' tests reject that).
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
