package validator

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
	"podspec.dev/podspec/validation/field"
)

// engineConverted names the findings of a Kubernetes pod's podspec checks (ConvertedPod).
const engineConverted = "convert"

// ConvertedPod is one pod a Kubernetes document carries, converted to a podspec Pod.
type ConvertedPod struct {
	// Pod is the podspec Pod as converted, without defaults.
	Pod *v1alpha1.Pod
	// NotCarried are the fields of the Kubernetes object not carried over (KUBE-017),
	// positioned in the Kubernetes document.
	NotCarried []finding.Finding
	// Findings are the converted pod's own findings as a podspec Pod (its defaults applied),
	// errors and warnings, positioned in the Kubernetes document.
	Findings []finding.Finding
}

// kubernetesFindings validates a document of a Kubernetes API group (package kubernetes):
// the strict decoding into the API types is the schema engine's part, the API server's and the
// lifecycle checks the semantic engine's. ok is false for a document of no Kubernetes group,
// which the podspec kinds' checks judge; a Kubernetes object that carries no pod (a Service, a
// ConfigMap) yields no findings.
//
// When the semantic engine runs and the document has no error, each pod it carries is
// converted to a podspec Pod and checked as one (convertPod); the warnings of those checks are
// the document's too (a variable listed twice in env is IMG-013 on a Deployment's container as
// on a Pod's), its errors are not: they are about what podspec runs (images as OCI layouts),
// not about the Kubernetes object. The conversions are kept in o for Convert and Objects.
func (v *Validator) kubernetesFindings(d *manifest.Document, o *object) (fs []finding.Finding, ok bool) {
	switch kubernetes.Classify(d.APIVersion, d.Kind) {
	case kubernetes.NotKubernetes:
		return nil, false
	case kubernetes.OtherKubernetes:
		o.skipped = fmt.Sprintf("%s %s is not a kind podspec checks: it carries no pod", d.APIVersion, d.Kind)
		return nil, true
	}
	objs, errs := kubernetes.Decode(d.Value, v.opts.KubernetesVersion)
	// A value the schema rejects (a port out of the int32 range, a name left out) is left at
	// its zero value in the decoded object; the semantic checks would judge that zero again,
	// so their findings at a position the schema already reported are dropped.
	rejected := map[finding.Position]bool{}
	add := func(engine string, errs field.ErrorList) {
		for _, e := range errs {
			f := toFinding(d, engine, e)
			if engine == EngineSchema {
				rejected[f.Pos] = true
			} else if rejected[f.Pos] && f.Pos.Known() {
				continue
			}
			fs = append(fs, f)
		}
	}
	semantic := false
	for _, e := range v.engines {
		switch e.name {
		case EngineSchema:
			add(EngineSchema, errs)
		case EngineSemantic:
			semantic = true
			for _, ob := range objs {
				add(EngineSemantic, kubernetes.ValidateObject(ob))
			}
		}
	}
	if !semantic || len(errs) > 0 || countErrors(fs) > 0 {
		return fs, true
	}
	for _, ob := range objs {
		c := convertPod(d, ob, v.opts.Objects)
		if v.opts.Objects {
			o.converted = append(o.converted, c)
		}
		for _, f := range c.Findings {
			if f.Severity != finding.Error {
				fs = append(fs, f)
			}
		}
	}
	return fs, true
}

// convertPod converts the pod of one valid Kubernetes object and validates it as a podspec Pod,
// positioning every finding in the Kubernetes document. keep (Options.Objects) says whether the
// caller keeps the conversion: only then is Pod set, and the pod converted a second time to be
// defaulted for the checks while Pod stays as converted.
func convertPod(d *manifest.Document, ob *kubernetes.Object, keep bool) *ConvertedPod {
	conv, lost := kubernetes.ConvertObject(d.Value, ob)
	c := &ConvertedPod{}
	for _, e := range lost {
		f := toFinding(d, engineConverted, e)
		f.Message = e.Detail
		c.NotCarried = append(c.NotCarried, f)
	}
	pod := conv.Pod
	if keep {
		c.Pod = conv.Pod
		checked, _ := kubernetes.ConvertObject(d.Value, ob) // a copy to default; Pod stays as converted
		pod = checked.Pod
	}
	pod.SetDefaults()
	at := ob.Template().PodPath
	for _, e := range validation.ValidatePod(pod) {
		f := toFinding(d, engineConverted, e)
		f.Pos.Line, f.Pos.Column = d.Position(append(at.Tokens(), e.Field.Tokens()...), e.OnKey)
		if at != nil && f.Path != "" {
			f.Path = at.String() + "." + f.Path
		} else if at != nil {
			f.Path = at.String()
		}
		c.Findings = append(c.Findings, f)
	}
	finding.Sort(c.NotCarried)
	finding.Sort(c.Findings)
	return c
}

// kubernetesScalarAdvice rewrites the MAN-008 findings of a Kubernetes object (objects podspec
// passes over included), where "quote it" would break the manifest: the API server reads YAML
// 1.1, so a quoted number or boolean becomes a string it refuses.
//
//   - A leading-zero number is octal to it: the advice is to write the number in decimal; on a
//     file mode (defaultMode, mode), where octal is what the author means and Kubernetes reads,
//     the finding is a note rather than a warning.
//   - A yes/no/on/off word in a field that takes a boolean (no KUBE-003 at its position): the
//     advice is to write true or false.
func kubernetesScalarAdvice(d *manifest.Document, src *source, fs []finding.Finding) {
	if kubernetes.Classify(d.APIVersion, d.Kind) == kubernetes.NotKubernetes {
		return
	}
	typeErr := map[finding.Position]bool{}
	for _, f := range fs {
		if f.Rule == spec.KUBE003 {
			typeErr[f.Pos] = true
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.Rule != spec.MAN008 || f.Document != d.Index || f.Pos.Column < 1 {
			continue
		}
		line := []rune(src.line(f.Pos.Line))
		if f.Pos.Column > len(line) {
			continue
		}
		text := string(line[f.Pos.Column-1:])
		isKey := func(lit string) bool { return strings.HasPrefix(strings.TrimSpace(text[len(lit):]), ":") }
		if lit, v, ok := manifest.OctalAt(text); ok && !isKey(lit) {
			if strings.HasSuffix(strings.ToLower(f.Path), "mode") {
				f.Severity = finding.Note
				f.Message = fmt.Sprintf("%s is octal to Kubernetes (YAML 1.1), the file mode %d, as intended; write it in decimal, %d, which YAML 1.2 tools read the same (quoting it would make it a string)", lit, v, v)
				continue
			}
			f.Message = fmt.Sprintf("Kubernetes (YAML 1.1) reads %s as octal, %d, YAML 1.2 tools as decimal; write it in decimal, %d if that is what you mean (quoting it would make it a string)", lit, v, v)
			continue
		}
		if word, b, ok := manifest.BoolWordAt(text); ok && !isKey(word) && !typeErr[f.Pos] {
			f.Message = fmt.Sprintf("Kubernetes (YAML 1.1) reads %s as the boolean %t, YAML 1.2 tools as a string; write %t (quoting it would make it a string, which this field refuses)", word, b, b)
		}
	}
}
