package validator

import (
	"errors"
	"fmt"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation"
)

// ErrInvalidOld is returned (wrapped) by Update when the old manifest cannot serve as the base
// of an update: it does not decode, or holds no Pod.
var ErrInvalidOld = errors.New("old manifest is not a valid pod")

// Update validates newFile as an in-place update of oldFile. newFile is validated as usual, and
// each of its Pod documents is compared with the Pod at the same ordinal in oldFile (first Pod
// with first Pod, and so on): a change to an immutable field is an UPD finding positioned in
// newFile. Reading either file may fail with an I/O error; an old manifest that does not decode
// to pods fails with ErrInvalidOld.
func (v *Validator) Update(oldFile, newFile string) ([]*Result, error) {
	oldData, err := ReadFile(oldFile, v.opts.Limits.MaxBytes)
	var big *TooLargeError
	if errors.As(err, &big) {
		return nil, fmt.Errorf("%s: %w: %s", oldFile, ErrInvalidOld, big.Detail())
	}
	if err != nil {
		return nil, err
	}
	oldPods, err := v.pods(oldFile, oldData)
	if err != nil {
		return nil, err
	}
	newData, err := ReadFile(newFile, v.opts.Limits.MaxBytes)
	if err != nil {
		return nil, err
	}
	return v.update(oldFile, oldPods, newFile, newData), nil
}

// UpdateBytes is Update on manifests already read: oldData, named oldFile, and newData, named
// newFile (the names are those its findings and errors give). It fails only with ErrInvalidOld.
func (v *Validator) UpdateBytes(oldFile string, oldData []byte, newFile string, newData []byte) ([]*Result, error) {
	oldPods, err := v.pods(oldFile, oldData)
	if err != nil {
		return nil, err
	}
	return v.update(oldFile, oldPods, newFile, newData), nil
}

// update validates newData as an update of oldPods (decoded from oldFile).
func (v *Validator) update(oldFile string, oldPods []*v1alpha1.Pod, newFile string, newData []byte) []*Result {
	ordinal := 0
	return v.bytesWith(newFile, newData, func(d *manifest.Document, o *object) []finding.Finding {
		if d.Kind != v1alpha1.KindPod || d.APIVersion != v1alpha1.APIVersion {
			return nil
		}
		i := ordinal
		ordinal++
		if !o.whole() {
			return nil // the schema engine reports why it does not decode
		}
		newPod := o.Pod()
		if i >= len(oldPods) {
			return []finding.Finding{pipelineFinding(d, spec.UPD001, []string{"metadata", "name"}, false,
				fmt.Sprintf("no pod #%d in %s to update from (it has %d)", i+1, oldFile, len(oldPods)))}
		}
		var fs []finding.Finding
		for _, e := range validation.ValidatePodUpdate(newPod, oldPods[i]) {
			fs = append(fs, toFinding(d, engineUpdate, e))
		}
		return fs
	})
}

// pods decodes the Pod documents of an old manifest, defaulted.
func (v *Validator) pods(file string, data []byte) ([]*v1alpha1.Pod, error) {
	docs, fs := manifest.Decode(file, data, v.opts.Limits)
	for _, f := range fs {
		if f.Severity == finding.Error {
			return nil, fmt.Errorf("%s: %w: %s", location(f.Pos), ErrInvalidOld, f.Message)
		}
	}
	var out []*v1alpha1.Pod
	for _, d := range docs {
		if d.Kind != v1alpha1.KindPod {
			continue
		}
		p, err := d.Pod()
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w: %w", file, d.Index, ErrInvalidOld, err)
		}
		p.SetDefaults()
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: it holds no Pod", file, ErrInvalidOld)
	}
	return out, nil
}

func location(p finding.Position) string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}
