package kubernetes

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"podspec.dev/podspec/validation/field"
)

// Kind is how this package reads a document's apiVersion and kind.
type Kind int

// What a document is to this package.
const (
	// NotKubernetes is a document of no Kubernetes API group (podspec's own kinds, or nothing
	// recognisable): other code judges it.
	NotKubernetes Kind = iota
	// Modelled is a kind this package reads and validates (or a modelled kind at an API version
	// Kubernetes does not serve, which it reports).
	Modelled
	// OtherKubernetes is an object of a Kubernetes API group of a kind that carries no pod
	// (a Service, a ConfigMap, a custom resource): it is passed over without findings.
	OtherKubernetes
)

// kindInfo describes one modelled kind.
type kindInfo struct {
	kind string
	new  func() any
}

// kinds are the objects that carry a pod; the API versions each Kubernetes version serves them
// at are in servedVersions.
var kinds = []kindInfo{
	{"Pod", func() any { return new(Pod) }},
	{"Deployment", func() any { return new(Deployment) }},
	{"StatefulSet", func() any { return new(StatefulSet) }},
	{"DaemonSet", func() any { return new(DaemonSet) }},
	{"ReplicaSet", func() any { return new(ReplicaSet) }},
	{"Job", func() any { return new(Job) }},
	{"CronJob", func() any { return new(CronJob) }},
	{"ReplicationController", func() any { return new(ReplicationController) }},
	{"PodTemplate", func() any { return new(PodTemplate) }},
}

// typedListSuffix ends the kind of a typed list (DeploymentList, PodList): its items are objects
// of the kind before the suffix, at the list's apiVersion, and may leave out apiVersion and kind.
const typedListSuffix = "List"

// listItemKind is the kind of the items of a typed list of a modelled kind ("Deployment" for
// "DeploymentList"), or "".
func listItemKind(kind string) string {
	item, ok := strings.CutSuffix(kind, typedListSuffix)
	if !ok || item == "" {
		return ""
	}
	for _, k := range kinds {
		if k.kind == item {
			return item
		}
	}
	return ""
}

// kindList is v1 List, whose items are objects of any kind.
const kindList = "List"

// groups of the API whose objects are read or passed over; a group with a dot (a custom
// resource's, or another built-in one such as networking.k8s.io) is Kubernetes too.
var coreGroups = map[string]bool{"": true, "apps": true, "batch": true, "extensions": true, "policy": true, "autoscaling": true}

// podspecGroup is podspec's own API group, never read here.
const podspecGroup = "podspec.dev"

func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// Classify says what a document with this apiVersion and kind is to this package.
func Classify(apiVersion, kind string) Kind {
	group, version := splitAPIVersion(apiVersion)
	if apiVersion == "" || group == podspecGroup || strings.HasSuffix(group, "."+podspecGroup) {
		return NotKubernetes
	}
	if group == "" && version != "v1" {
		return NotKubernetes // "v1alpha1" and the like: a podspec document without its group
	}
	if !coreGroups[group] && !strings.Contains(group, ".") {
		return NotKubernetes
	}
	if kind == kindList && apiVersion == "v1" {
		return Modelled
	}
	for _, k := range kinds {
		if (k.kind == kind || k.kind == listItemKind(kind)) && coreGroups[group] {
			return Modelled
		}
	}
	return OtherKubernetes
}

// ServedAPIVersion is the apiVersion the newest Kubernetes serves a kind podspec reads at
// (apps/v1 for Deployment, v1 for Pod; a typed list's is its items'), or "" for another kind.
func ServedAPIVersion(kind string) string {
	if kind == kindList {
		return "v1"
	}
	if item := listItemKind(kind); item != "" {
		kind = item
	}
	served := servedAt(kind, Newest())
	if len(served) == 0 {
		return ""
	}
	return served[len(served)-1]
}

// lookupKind finds the kind and checks that Kubernetes version v serves it at apiVersion.
func lookupKind(apiVersion, kind string, v Version) (kindInfo, error) {
	for _, k := range kinds {
		if k.kind != kind {
			continue
		}
		served := servedAt(kind, v)
		if slices.Contains(served, apiVersion) {
			return k, nil
		}
		//lint:ignore ST1005 the message starts with a proper noun
		return k, fmt.Errorf("Kubernetes %s serves %s at apiVersion %s, not %s", v, kind, strings.Join(served, " or "), apiVersion)
	}
	return kindInfo{}, fmt.Errorf("kind %s is not one podspec reads", kind)
}

// Object is one decoded Kubernetes object of a modelled kind.
type Object struct {
	// Kind is the object's kind (Pod, Deployment, ...).
	Kind string
	// Path is where the object is in its document: empty at the top, items[i] in a List.
	Path *field.Path
	// Value is the decoded object: *Pod, *Deployment, ...
	Value any
}

// Template is the pod an object carries, with what its owner makes of it.
type Template struct {
	// Owner is the kind of the object that holds the pod (Pod, Deployment, Job, ...).
	Owner string
	// Meta is the pod's metadata: the Pod's own, or the template's.
	Meta *ObjectMeta
	// Spec is the pod's spec.
	Spec *PodSpec
	// Path is the path of Spec in the document.
	Path *field.Path
	// MetaPath is the path of Meta in the document.
	MetaPath *field.Path
	// PodPath is the path of the pod in the document: the Pod's own (nil at the top), or its
	// template's.
	PodPath *field.Path
	// RunsToCompletion is true for the pods of a Job or CronJob.
	RunsToCompletion bool
	// ClaimVolumes are the volumes a StatefulSet adds to each pod from its
	// volumeClaimTemplates (persistentVolumeClaim volumes of those names).
	ClaimVolumes []string
}

// Template returns the pod the object carries.
func (o *Object) Template() *Template {
	at := func(names ...string) *field.Path {
		p := o.Path
		for _, n := range names {
			if p == nil {
				p = field.NewPath(n)
			} else {
				p = p.Child(n)
			}
		}
		return p
	}
	tmpl := func(t *PodTemplateSpec, job bool, prefix ...string) *Template {
		return &Template{Owner: o.Kind, Meta: &t.ObjectMeta, Spec: &t.Spec, RunsToCompletion: job,
			Path: at(append(prefix, "spec")...), MetaPath: at(append(prefix, "metadata")...), PodPath: at(prefix...)}
	}
	switch v := o.Value.(type) {
	case *Pod:
		return &Template{Owner: o.Kind, Meta: &v.ObjectMeta, Spec: &v.Spec, Path: at("spec"), MetaPath: at("metadata"), PodPath: o.Path}
	case *Deployment:
		return tmpl(&v.Spec.Template, false, "spec", "template")
	case *StatefulSet:
		t := tmpl(&v.Spec.Template, false, "spec", "template")
		for _, c := range v.Spec.VolumeClaimTemplates {
			t.ClaimVolumes = append(t.ClaimVolumes, c.ObjectMeta.Name)
		}
		return t
	case *DaemonSet:
		return tmpl(&v.Spec.Template, false, "spec", "template")
	case *ReplicaSet:
		return tmpl(&v.Spec.Template, false, "spec", "template")
	case *Job:
		return tmpl(&v.Spec.Template, true, "spec", "template")
	case *CronJob:
		return tmpl(&v.Spec.JobTemplate.Spec.Template, true, "spec", "jobTemplate", "spec", "template")
	case *ReplicationController:
		if v.Spec.Template == nil {
			return nil // the API server requires it: validateController reports it
		}
		return tmpl(v.Spec.Template, false, "spec", "template")
	case *PodTemplate:
		return tmpl(&v.Template, false, "template")
	}
	return nil
}

// Decode reads a document's value (as package manifest decodes it) as the Kubernetes objects
// it holds: one, or a List's items of modelled kinds, in order. The errors are every departure
// from the API types and kinds of Kubernetes version v (KUBE-001 to KUBE-005, KUBE-025); the
// objects are decoded as far as they could be, so that the semantic checks still run.
func Decode(value any, v Version) ([]*Object, field.ErrorList) {
	m, ok := value.(map[string]any)
	if !ok {
		return nil, field.ErrorList{field.Invalid(ruleType, nil, nil, "a Kubernetes object must be a JSON object, not "+jsonType(value))}
	}
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if kind == kindList {
		return decodeList(m, v)
	}
	if item := listItemKind(kind); item != "" {
		return decodeTypedList(m, av, kind, item, v)
	}
	o, errs := decodeObject(m, av, kind, nil, v)
	if o == nil {
		return nil, errs
	}
	return []*Object{o}, errs
}

// listItems checks the envelope of a list of kind (apiVersion, kind, metadata and items) and
// returns its items; ok is false when it has no array of items.
func listItems(m map[string]any, kind string, v Version) (items []any, errs field.ErrorList, ok bool) {
	for _, k := range sortedKeys(m) {
		switch k {
		case "apiVersion", "kind", "items":
		case "metadata":
			d := newDecoder(v)
			d.decode(m[k], reflect.ValueOf(new(ListMeta)).Elem(), field.NewPath(k))
			errs = append(errs, d.errs...)
		default:
			errs = append(errs, field.Invalid(ruleUnknown, field.NewPath(k), nil, fmt.Sprintf("unknown field %q: %s has apiVersion, kind, metadata and items", k, kind)).AtKey())
		}
	}
	items, ok = m["items"].([]any)
	switch {
	case ok:
	case m["items"] == nil:
		errs = append(errs, field.Required(ruleRequired, field.NewPath("items"), kind+" requires items"))
	default:
		errs = append(errs, field.Invalid(ruleType, field.NewPath("items"), nil, "must be an array, not "+jsonType(m["items"])))
	}
	return items, errs, ok
}

func decodeList(m map[string]any, v Version) ([]*Object, field.ErrorList) {
	var objs []*Object
	items, errs, ok := listItems(m, kindList, v)
	if !ok {
		return nil, errs
	}
	for i, it := range items {
		p := field.NewPath("items").Index(i)
		im, ok := it.(map[string]any)
		if !ok {
			errs = append(errs, field.Invalid(ruleType, p, nil, "a List item must be an object, not "+jsonType(it)))
			continue
		}
		av, _ := im["apiVersion"].(string)
		kind, _ := im["kind"].(string)
		switch {
		case av == "" || kind == "":
			for _, k := range []string{"apiVersion", "kind"} {
				if s, _ := im[k].(string); s == "" {
					errs = append(errs, field.Required(ruleRequired, p.Child(k), "every List item needs apiVersion and kind"))
				}
			}
			continue
		case Classify(av, kind) != Modelled || kind == kindList || listItemKind(kind) != "":
			continue // an object that carries no pod: passed over
		}
		o, oerrs := decodeObject(im, av, kind, p, v)
		errs = append(errs, oerrs...)
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs, errs
}

// decodeTypedList reads a typed list (DeploymentList): its items are objects of the item kind at
// the list's apiVersion, with apiVersion and kind optional in each item (and then the list's).
func decodeTypedList(m map[string]any, apiVersion, kind, item string, v Version) ([]*Object, field.ErrorList) {
	if _, err := lookupKind(apiVersion, item, v); err != nil {
		return nil, field.ErrorList{field.Invalid(ruleKind, field.NewPath("apiVersion"), apiVersion, strings.Replace(err.Error(), item, kind, 1))}
	}
	items, errs, ok := listItems(m, kind, v)
	if !ok {
		return nil, errs
	}
	var objs []*Object
	for i, it := range items {
		p := field.NewPath("items").Index(i)
		im, ok := it.(map[string]any)
		if !ok {
			errs = append(errs, field.Invalid(ruleType, p, nil, "a "+kind+" item must be an object, not "+jsonType(it)))
			continue
		}
		if k, ok := im["kind"]; ok && k != item {
			errs = append(errs, field.Invalid(ruleKind, p.Child("kind"), k, fmt.Sprintf("an item of a %s is a %s", kind, item)))
			continue
		}
		av := apiVersion
		if a, ok := im["apiVersion"].(string); ok {
			av = a
		}
		o, oerrs := decodeObject(im, av, item, p, v)
		errs = append(errs, oerrs...)
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs, errs
}

// ListMeta is the metadata of a List.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	SelfLink           string `json:"selfLink,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

func decodeObject(m map[string]any, apiVersion, kind string, at *field.Path, v Version) (*Object, field.ErrorList) {
	child := func(name string) *field.Path {
		if at == nil {
			return field.NewPath(name)
		}
		return at.Child(name)
	}
	info, err := lookupKind(apiVersion, kind, v)
	if info.new == nil {
		return nil, field.ErrorList{field.Invalid(ruleKind, child("kind"), kind, err.Error())}
	}
	var errs field.ErrorList
	if err != nil {
		errs = append(errs, field.Invalid(ruleKind, child("apiVersion"), apiVersion, err.Error()))
	}
	obj := info.new()
	d := newDecoder(v)
	d.decode(m, reflect.ValueOf(obj).Elem(), at)
	return &Object{Kind: kind, Path: at, Value: obj}, append(errs, d.errs...)
}
