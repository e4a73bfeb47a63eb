package validator

import (
	"fmt"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
)

// Direction is the API a conversion goes to.
type Direction string

// Directions of Convert.
const (
	// Either converts each document to the other API.
	Either Direction = ""
	// ToPodspec converts Kubernetes objects to podspec Pods.
	ToPodspec Direction = "podspec"
	// ToKubernetes converts podspec Pods to Kubernetes v1 Pods.
	ToKubernetes Direction = "kubernetes"
)

// Conversion is what Convert made of one document.
type Conversion struct {
	// Result is the document's validation, as Bytes gives it.
	Result *Result
	// Objects are the converted objects (podspec Pods, or a Kubernetes v1 Pod), in order; none
	// for a skipped document or one that carries no pod (a Service).
	Objects []any
	// NotCarried are the fields not carried over (KUBE-017 to podspec, KUBE-018 to Kubernetes)
	// and the values carried over changed, positioned in the document.
	NotCarried []finding.Finding
	// Skipped says why the document was not converted ("" when it was or carries no pod).
	Skipped string
}

// Convert validates a stream (as Bytes does) and converts each valid document to the other
// API, document by document: a document with an unsuppressed error, or one that cannot go the
// way asked, is skipped with the reason and the others are still converted. The conversion of
// a Kubernetes pod is the one the validator checked (Result.Converted).
func (v *Validator) Convert(file string, data []byte, to Direction) []*Conversion {
	w := *v
	w.opts.Objects = true
	toKube := map[int]*Conversion{}
	results := w.bytesWith(file, data, func(d *manifest.Document, _ *object) []finding.Finding {
		if to != ToPodspec && d.APIVersion == v1alpha1.APIVersion && d.Kind == v1alpha1.KindPod {
			toKube[d.Index] = podToKubernetes(d)
		}
		return nil
	})
	var out []*Conversion
	for _, r := range results {
		c := &Conversion{Result: r}
		out = append(out, c)
		if hasError(r) {
			c.Skipped = fmt.Sprintf("%d error(s): not converted", countErrors(r.Findings))
			continue
		}
		switch {
		case r.Kubernetes():
			if to == ToKubernetes {
				c.Skipped = fmt.Sprintf("%s %s is already a Kubernetes object", r.APIVersion, r.Kind)
				continue
			}
			for _, p := range r.Converted {
				c.Objects = append(c.Objects, p.Pod)
				c.NotCarried = append(c.NotCarried, p.NotCarried...)
			}
		case kubernetes.Classify(r.APIVersion, r.Kind) == kubernetes.OtherKubernetes:
		case r.APIVersion != v1alpha1.APIVersion:
		case r.Kind != v1alpha1.KindPod:
			c.Skipped = fmt.Sprintf("a %s has no Kubernetes counterpart; only Pods convert", r.Kind)
		case to == ToPodspec:
			c.Skipped = "already a podspec Pod"
		default:
			k := toKube[r.Document]
			if k == nil {
				c.Skipped = "the Pod does not decode"
				continue
			}
			*c = Conversion{Result: r, Objects: k.Objects, NotCarried: k.NotCarried, Skipped: k.Skipped}
		}
	}
	return out
}

// podToKubernetes converts a podspec Pod document, as written, into a Kubernetes v1 Pod.
func podToKubernetes(d *manifest.Document) *Conversion {
	p, err := d.Pod()
	if err != nil {
		return &Conversion{Skipped: err.Error()}
	}
	kp, errs := kubernetes.FromPodspec(p)
	c := &Conversion{Objects: []any{kp}}
	for _, e := range errs {
		f := toFinding(d, engineConverted, e)
		f.Message = e.Detail
		c.NotCarried = append(c.NotCarried, f)
	}
	finding.Sort(c.NotCarried)
	return c
}

// countErrors counts the unsuppressed errors among fs.
func countErrors(fs []finding.Finding) int {
	n := 0
	for _, f := range fs {
		if f.Severity == finding.Error && !f.Suppressed {
			n++
		}
	}
	return n
}
