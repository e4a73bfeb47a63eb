package validator

import (
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/kubernetes"
)

// Result is the outcome of validating one document (or, for a file that could not be split
// into documents, of the file).
type Result struct {
	File     string `json:"file"`
	Document int    `json:"document"`
	Kind     string `json:"kind,omitempty"`
	Name     string `json:"name,omitempty"`
	// Findings are sorted by position; suppressed findings are kept and marked.
	Findings []finding.Finding `json:"findings"`
	// Skipped says why the document was not checked (a Kubernetes object of a kind that carries
	// no pod, such as a Service); "" for a checked document.
	Skipped string `json:"skipped,omitempty"`
	// Lines holds the source text of the lines findings point at, for excerpts.
	Lines map[int]string `json:"-"`
	// APIVersion is the document's apiVersion, as written (with Kind it tells a podspec Pod from
	// a Kubernetes one). Not rendered.
	APIVersion string `json:"-"`
	// Pod is the document decoded as a Pod with defaults applied, the object the semantic
	// checks (and an update's checks) validated; Notification likewise. Set with
	// Options.Objects when those checks ran (the default engines, or Update) on a
	// podspec.dev/v1alpha1 document whose values fit the typed object; nil otherwise. Never
	// rendered.
	Pod          *v1alpha1.Pod          `json:"-"`
	Notification *v1alpha1.Notification `json:"-"`
	// Converted are the pods of a Kubernetes document without errors, converted to podspec
	// Pods and checked as such, in document order. Set with Options.Objects. Never rendered.
	Converted []*ConvertedPod `json:"-"`
}

// Kubernetes reports whether the document is a Kubernetes object that carries pods (a Pod, a
// workload, a List of them), whose pods Converted holds.
func (r *Result) Kubernetes() bool {
	return kubernetes.Classify(r.APIVersion, r.Kind) == kubernetes.Modelled
}

// Summary counts a whole run. Errors and Warnings exclude suppressed findings.
type Summary struct {
	Files      int `json:"files"`
	Documents  int `json:"documents"`
	Errors     int `json:"errors"`
	Warnings   int `json:"warnings"`
	Suppressed int `json:"suppressed"`
	// Notes counts unsuppressed findings of severity note, which are neither errors nor warnings.
	Notes int `json:"notes"`
	// Skipped counts the documents not checked (Result.Skipped).
	Skipped int `json:"skipped"`
}

// Add counts the findings of one result into the summary (documents are counted by the caller).
func (s *Summary) Add(r *Result) {
	if r.Skipped != "" {
		s.Skipped++
	}
	for _, f := range r.Findings {
		switch {
		case f.Suppressed:
			s.Suppressed++
		case f.Severity == finding.Error:
			s.Errors++
		case f.Severity == finding.Note:
			s.Notes++
		default:
			s.Warnings++
		}
	}
}
