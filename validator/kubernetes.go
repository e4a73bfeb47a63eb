package validator

import (
	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/kubernetes"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/validation/field"
)

// kubernetesFindings validates a document of a Kubernetes API group (package kubernetes):
// the strict decoding into the API types is the schema engine's part, the API server's and the
// lifecycle checks the semantic engine's. ok is false for a document of no Kubernetes group,
// which the podspec kinds' checks judge; a Kubernetes object that carries no pod (a Service, a
// ConfigMap) yields no findings.
func (v *Validator) kubernetesFindings(d *manifest.Document) (fs []finding.Finding, ok bool) {
	switch kubernetes.Classify(d.APIVersion, d.Kind) {
	case kubernetes.NotKubernetes:
		return nil, false
	case kubernetes.OtherKubernetes:
		return nil, true
	}
	objs, errs := kubernetes.Decode(d.Value)
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
	for _, e := range v.engines {
		switch e.name {
		case EngineSchema:
			add(EngineSchema, errs)
		case EngineSemantic:
			for _, o := range objs {
				add(EngineSemantic, kubernetes.ValidateObject(o))
			}
		}
	}
	return fs, true
}
