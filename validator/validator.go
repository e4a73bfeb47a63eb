// Package validator is the podspec validate pipeline: it finds manifest files, streams their
// documents through the decoder (package manifest) and the validation engines (the JSON Schema
// generated from the CUE definitions, and the semantic Go checks of package validation), gives
// every finding a file:line:col, applies suppression annotations, and hands results to the
// caller in source order.
//
// It renders nothing (package report does) and decides no exit codes (the command does).
// Documents are validated in parallel by a bounded set of workers, also the documents of one
// file; results come out in the order the files were named and found and the documents appear
// in them, whatever order the workers finish in, and only a bounded number of documents (a few
// small batches per worker) is between reading and output at any time.
package validator

import (
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
)

// Engine names accepted in Options.Engines.
const (
	EngineSchema   = "schema"
	EngineSemantic = "semantic"
)

// Annotations that suppress findings in the annotated object.
const (
	// AnnotationIgnore lists rule IDs to suppress, comma-separated: "EXIT-001,STOP-002".
	AnnotationIgnore = "podspec.dev/ignore"
	// AnnotationIgnoreReason says why; a suppression without one draws a MAN-009 warning.
	AnnotationIgnoreReason = "podspec.dev/ignore-reason"
)

const (
	engineDecode      = "decode"
	engineUpdate      = "update"
	enginePipeline    = "pipeline"
	maxInFlightPerCPU = 4
)

// Options configure a Validator.
type Options struct {
	// Engines to run; empty means DefaultEngines().
	Engines []string
	// Limits bound each input; the zero value means manifest.DefaultLimits().
	Limits manifest.Limits
	// Workers is the number of documents validated at once; 0 means GOMAXPROCS.
	Workers int
	// FailFast stops after the first file (in source order) with an unsuppressed error.
	FailFast bool
	// Objects hands back each document's decoded, defaulted object in Result.Pod or
	// Result.Notification, and the pods of a Kubernetes document converted in Result.Converted
	// (for a caller that goes on to use them, such as podspec run); without it results do not
	// hold on to them.
	Objects bool
	// Exclude lists patterns (path.Match syntax) of files and directories that Run leaves out
	// when it walks a directory: a pattern without a '/' matches an entry's name, one with a '/'
	// its path relative to the directory named. Files named explicitly are always read.
	Exclude []string
	// KubernetesVersion is the Kubernetes version whose API versions and fields Kubernetes
	// objects are checked against; the zero Version is the newest podspec knows.
	KubernetesVersion kubernetes.Version
	// Skipped, when set, is told of every file with a manifest name that Run found under a
	// directory and did not read because it is not a regular file (a named pipe, a socket, a
	// device, a dangling symbolic link), with the reason. It is called from Run's reader.
	Skipped func(name, why string)
}

// engineFunc validates one decoded document of a known kind; o holds its typed object.
type engineFunc func(kind string, d *manifest.Document, o *object) field.ErrorList

// valueEngine adapts an engine that reads the document's JSON value (schema, CUE).
func valueEngine(validate func(kind string, value any) field.ErrorList) engineFunc {
	return func(kind string, d *manifest.Document, _ *object) field.ErrorList { return validate(kind, d.Value) }
}

// object is a document's typed object with defaults applied, decoded at most once, by whichever
// of the semantic engine and the update check asks first, and handed back in the Result.
type object struct {
	d            *manifest.Document
	decoded      bool
	pod          *v1alpha1.Pod
	notification *v1alpha1.Notification
	// bad lists the values that did not fit the typed object; it has them unset.
	bad []manifest.DecodeError
	// converted are the pods of a valid Kubernetes document as podspec Pods.
	converted []*ConvertedPod
	// skipped says why the document was not checked (Result.Skipped).
	skipped string
}

// decode decodes the document into its kind's typed object, once, leaving unset what does not
// fit (the semantic engine reports those values).
func (o *object) decode() {
	if o.decoded {
		return
	}
	o.decoded = true
	switch o.d.Kind {
	case v1alpha1.KindPod:
		o.pod, o.bad = o.d.PartialPod()
		o.pod.SetDefaults()
	case v1alpha1.KindNotification:
		o.notification, o.bad = o.d.PartialNotification()
		o.notification.SetDefaults()
	}
}

// whole reports whether every value of the document fitted its typed object.
func (o *object) whole() bool { o.decode(); return len(o.bad) == 0 }

// Pod is the document's defaulted Pod (with the values that did not fit unset), or nil for a
// document of another kind.
func (o *object) Pod() *v1alpha1.Pod { o.decode(); return o.pod }

// Notification is the document's defaulted Notification (with the values that did not fit
// unset), or nil for a document of another kind.
func (o *object) Notification() *v1alpha1.Notification { o.decode(); return o.notification }

// Validator runs the pipeline. It is safe for concurrent use.
type Validator struct {
	opts    Options
	engines []namedEngine
}

type namedEngine struct {
	name string
	run  engineFunc
}

// available maps engine names to their implementations, in the order they run.
func available() []namedEngine {
	return []namedEngine{
		{EngineSchema, valueEngine(schema.Validate)},
		{EngineSemantic, semantic},
	}
}

// AvailableEngines lists the engines this build can run, in the order they run.
func AvailableEngines() []string {
	var out []string
	for _, e := range available() {
		out = append(out, e.name)
	}
	return out
}

// DefaultEngines are the engines run when Options.Engines is empty: all of them.
//
// The CUE definitions (package cue) are not an engine here: the JSON Schema is generated from
// them and the cue package's tests hold both to the same findings, while linking CUE's
// evaluator would add a quarter to the start time of every podspec command.
func DefaultEngines() []string { return AvailableEngines() }

// New checks the options and returns a Validator.
func New(o Options) (*Validator, error) {
	if o.Limits == (manifest.Limits{}) {
		o.Limits = manifest.DefaultLimits()
	}
	for _, pat := range o.Exclude {
		if _, err := path.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("exclude pattern %q: %w", pat, err)
		}
	}
	if o.Workers < 0 {
		return nil, fmt.Errorf("workers must be positive (0 for GOMAXPROCS), not %d", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if len(o.Engines) == 0 {
		o.Engines = DefaultEngines()
	}
	v := &Validator{opts: o}
	for _, want := range o.Engines {
		if !slices.ContainsFunc(available(), func(e namedEngine) bool { return e.name == want }) {
			return nil, fmt.Errorf("unknown or unavailable engine %q (available: %s)", want, strings.Join(AvailableEngines(), ", "))
		}
	}
	for _, e := range available() {
		if slices.Contains(o.Engines, e.name) {
			v.engines = append(v.engines, e)
		}
	}
	return v, nil
}

// semantic runs the Go checks of package validation on a typed, defaulted copy of the
// document. A value that does not fit its typed field (the wrong type, an integer beyond 64
// bits) leaves that field unset, so that the checks still run on the rest, and is itself a
// finding: `podspec run` decodes the same typed object and could not. Such a finding has the
// rule and position the schema engine gives the same value, so the two de-duplicate; what the
// checks say about the unset field itself (or inside it) is dropped, since it is not what the
// document says.
func semantic(kind string, _ *manifest.Document, o *object) field.ErrorList {
	var out field.ErrorList
	switch kind {
	case v1alpha1.KindPod:
		out = validation.ValidatePod(o.Pod())
	case v1alpha1.KindNotification:
		out = validation.ValidateNotification(o.Notification())
	}
	bad := o.bad
	if len(bad) == 0 {
		return out
	}
	kept := out[:0]
	for _, e := range out {
		if !slices.ContainsFunc(bad, func(b manifest.DecodeError) bool { return within(e.Field, b.Tokens) }) {
			kept = append(kept, e)
		}
	}
	for _, e := range bad {
		kept = append(kept, decodeViolation(e).Error())
	}
	return kept
}

// within reports whether p is the field at tokens or inside it.
func within(p *field.Path, tokens []string) bool {
	if p == nil {
		return len(tokens) == 0
	}
	toks := p.Tokens()
	return len(toks) >= len(tokens) && slices.Equal(toks[:len(tokens)], tokens)
}

// decodeViolation describes a value the typed decode refused as the schema engine would.
func decodeViolation(e manifest.DecodeError) schema.Violation {
	v := schema.Violation{Tokens: e.Tokens, Value: e.Value, HasValue: true}
	switch {
	case e.Op != "":
		v.Kind, v.Op, v.Limit = schema.OutOfRange, e.Op, e.Limit
	case e.Want != "":
		v.Kind, v.Want = schema.WrongType, []string{e.Want}
	default:
		v.Kind, v.Want = schema.Other, []string{e.Err.Error()}
	}
	return v
}

// Bytes validates one stream (a file's content) and returns one result per document, in
// document order. A stream that fails before its first document still yields one result.
func (v *Validator) Bytes(file string, data []byte) []*Result {
	return v.bytesWith(file, data, nil)
}

// bytesWith is Bytes with extra findings per decoded document (update checks).
func (v *Validator) bytesWith(file string, data []byte, extra func(d *manifest.Document, o *object) []finding.Finding) []*Result {
	segs, fs := manifest.Split(file, data, v.opts.Limits)
	var out []*Result
	for _, s := range segs {
		out = append(out, v.segment(s, extra)...)
	}
	return append(out, v.streamFindings(file, fs)...)
}

// streamFindings turns findings about a whole stream (size and document-count limits) into
// results.
func (v *Validator) streamFindings(file string, fs []finding.Finding) []*Result {
	var out []*Result
	for _, f := range fs {
		out = append(out, &Result{File: file, Document: f.Document, Findings: []finding.Finding{f}})
	}
	return out
}

// segment validates the document of one segment: one result, or none for a segment that holds
// only comments.
func (v *Validator) segment(s manifest.Segment, extra func(d *manifest.Document, o *object) []finding.Finding) []*Result {
	docs, decodeFindings := s.Decode(v.opts.Limits)
	src := &source{data: s.Data, offset: s.Line}
	if len(docs) == 0 {
		if len(decodeFindings) == 0 {
			return nil
		}
		return []*Result{finish(&manifest.Document{File: s.File, Index: s.Index}, src, decodeFindings)}
	}
	var out []*Result
	for i, d := range docs {
		var fs []finding.Finding
		if i == 0 {
			fs = decodeFindings // a segment holds one document; its findings go with the first
		}
		o := &object{d: d}
		fs = append(fs, v.documentFindings(d, o)...)
		if extra != nil {
			fs = append(fs, extra(d, o)...)
		}
		kubernetesScalarAdvice(d, src, fs)
		r := finish(d, src, fs)
		if v.opts.Objects && o.decoded && len(o.bad) == 0 {
			r.Pod, r.Notification = o.pod, o.notification
		}
		if v.opts.Objects {
			r.Converted = o.converted
		}
		r.Skipped = o.skipped
		out = append(out, r)
	}
	return out
}

// documentFindings runs the kind check and every engine on one document.
func (v *Validator) documentFindings(d *manifest.Document, o *object) []finding.Finding {
	if fs, ok := v.kubernetesFindings(d, o); ok {
		return fs
	}
	kind, fs := checkKind(d)
	if kind == "" {
		return fs
	}
	for _, e := range v.engines {
		for _, err := range e.run(kind, d, o) {
			fs = append(fs, toFinding(d, e.name, err))
		}
	}
	return fs
}

// checkKind returns the document's kind when it is a podspec.dev/v1alpha1 Pod or Notification,
// and MAN-001/MAN-003 findings otherwise.
func checkKind(d *manifest.Document) (string, []finding.Finding) {
	m, ok := d.Value.(map[string]any)
	if !ok {
		return "", []finding.Finding{pipelineFinding(d, spec.MAN001, nil, false,
			"a manifest must be an object with apiVersion podspec.dev/v1alpha1 and kind Pod or Notification")}
	}
	var fs []finding.Finding
	av, hasAV := m["apiVersion"]
	k, hasKind := m["kind"]
	if !hasAV {
		fs = append(fs, pipelineFinding(d, spec.MAN003, []string{"apiVersion"}, false, missingAPIVersion(k)))
		if hasKind {
			return "", fs // the kind is read with the apiVersion, which is what is missing
		}
	} else if av != v1alpha1.APIVersion {
		fs = append(fs, pipelineFinding(d, spec.MAN001, []string{"apiVersion"}, false,
			fmt.Sprintf("apiVersion must be %s, got %s", v1alpha1.APIVersion, show(av))))
	}
	if !hasKind {
		fs = append(fs, pipelineFinding(d, spec.MAN003, []string{"kind"}, false, "kind is required (Pod or Notification)"))
	} else if k != v1alpha1.KindPod && k != v1alpha1.KindNotification {
		fs = append(fs, pipelineFinding(d, spec.MAN001, []string{"kind"}, false,
			fmt.Sprintf("kind must be Pod or Notification, got %s", show(k))))
	}
	if len(fs) > 0 {
		return "", fs
	}
	return k.(string), nil
}

// missingAPIVersion says what a document of kind k without an apiVersion should name, in the
// terms of the API the kind belongs to.
func missingAPIVersion(k any) string {
	kind, _ := k.(string)
	served := kubernetes.ServedAPIVersion(kind)
	switch {
	case kind == v1alpha1.KindPod:
		return "apiVersion is required: v1 for a Kubernetes Pod, " + v1alpha1.APIVersion + " for a podspec Pod"
	case kind == v1alpha1.KindNotification:
		return "apiVersion is required (" + v1alpha1.APIVersion + ")"
	case served != "":
		return fmt.Sprintf("apiVersion is required: a Kubernetes %s is apiVersion %s", kind, served)
	case kind != "":
		return fmt.Sprintf("apiVersion is required: the API version of the Kubernetes %s (v1, apps/v1, ...), or %s for a podspec Pod or Notification", kind, v1alpha1.APIVersion)
	}
	return "apiVersion is required: " + v1alpha1.APIVersion + " for a podspec Pod or Notification, or the API version of a Kubernetes object (v1, apps/v1, batch/v1, ...)"
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

func pipelineFinding(d *manifest.Document, rule string, tokens []string, onKey bool, msg string) finding.Finding {
	line, col := d.Position(tokens, onKey)
	return finding.Finding{
		Rule: rule, Severity: spec.SeverityOf(rule), Engine: enginePipeline, Path: strings.Join(tokens, "."),
		Message: msg, Pos: finding.Position{File: d.File, Line: line, Column: col}, Document: d.Index,
	}
}

// toFinding maps an engine's field.Error to a positioned finding.
func toFinding(d *manifest.Document, engine string, e *field.Error) finding.Finding {
	rule := e.Rule
	if rule == "" {
		rule = spec.MAN002
	}
	var path string
	var tokens []string
	if e.Field != nil {
		path = e.Field.String()
		tokens = e.Field.Tokens()
	}
	line, col := d.Position(tokens, e.OnKey)
	return finding.Finding{
		Rule: rule, Severity: spec.SeverityOf(rule), Engine: engine, Path: path, Message: e.Message(),
		Pos: finding.Position{File: d.File, Line: line, Column: col}, Document: d.Index,
	}
}

// finish applies suppressions, removes duplicates, sorts, and attaches the source lines the
// findings point at.
func finish(d *manifest.Document, src *source, fs []finding.Finding) *Result {
	r := &Result{File: d.File, Document: d.Index, Kind: d.Kind, APIVersion: d.APIVersion, Name: d.Name()}
	if d.Value != nil {
		fs = suppress(d, fs)
	}
	fs = dedupe(fs) // before sorting, so that the first engine's message is the one kept
	finding.Sort(fs)
	r.Findings = fs
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	for _, f := range r.Findings {
		if f.Pos.Line > 0 {
			if r.Lines == nil {
				r.Lines = map[int]string{}
			}
			r.Lines[f.Pos.Line] = src.line(f.Pos.Line)
		}
	}
	return r
}

// suppress marks findings whose rule the object's podspec.dev/ignore annotation lists, and
// warns (MAN-009) about a suppression without a podspec.dev/ignore-reason.
func suppress(d *manifest.Document, fs []finding.Finding) []finding.Finding {
	ann := d.Annotations()
	ids, ok := ann[AnnotationIgnore]
	if !ok {
		return fs
	}
	reason := strings.TrimSpace(ann[AnnotationIgnoreReason])
	ignored := map[string]bool{}
	for _, id := range strings.Split(ids, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ignored[id] = true
		}
	}
	for i := range fs {
		if ignored[fs[i].Rule] && fs[i].Rule != spec.MAN009 {
			fs[i].Suppressed = true
			fs[i].SuppressedReason = reason
		}
	}
	if reason == "" {
		w := pipelineFinding(d, spec.MAN009, []string{"metadata", "annotations", AnnotationIgnore}, true,
			fmt.Sprintf("suppression without a reason: add the annotation %s saying why %s are ignored", AnnotationIgnoreReason, ids))
		w.Path = "metadata.annotations[" + AnnotationIgnore + "]"
		fs = append(fs, w)
	}
	return fs
}

// dedupe drops findings with the same position and rule as an earlier one (engines often agree;
// the first engine's message is kept). Findings without a position are kept unless identical.
func dedupe(fs []finding.Finding) []finding.Finding {
	type key struct {
		line, col int
		rule, msg string
	}
	seen := make(map[key]bool, len(fs))
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Pos.Line, f.Pos.Column, f.Rule, ""}
		if f.Pos.Line == 0 {
			k.msg = f.Message
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// source gives the text of a line of a file (data holds the file's lines from offset+1 on),
// indexing line starts on first use.
type source struct {
	data   []byte
	offset int
	starts []int
}

func (s *source) line(n int) string {
	n -= s.offset
	if s.starts == nil {
		s.starts = append(s.starts, 0)
		for i, c := range s.data {
			if c == '\n' {
				s.starts = append(s.starts, i+1)
			}
		}
	}
	if n < 1 || n > len(s.starts) {
		return ""
	}
	start := s.starts[n-1]
	end := len(s.data)
	if n < len(s.starts) {
		end = s.starts[n] - 1
	}
	if start > end {
		return ""
	}
	return strings.TrimRight(string(s.data[start:end]), "\r")
}
