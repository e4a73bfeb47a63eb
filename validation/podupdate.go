package validation

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// ValidatePodUpdate checks that newPod differs from oldPod only in fields an in-place update may
// change (decisions: Identity): labels, annotations, the image, command, args, env and resources
// of init and main containers, activeDeadlineSeconds (set or decreased only, UPD-002) and
// terminationGracePeriodSeconds. Every other change is one UPD-001 error at the path of the
// changed leaf, as Kubernetes' ValidatePodUpdate reports; the set of containers (names, order,
// kind) is immutable. Both pods must be defaulted. Status and metadata.generation are ignored.
//
// It reports update findings only: validate newPod on its own with ValidatePod as well.
func ValidatePodUpdate(newPod, oldPod *v1alpha1.Pod) field.ErrorList {
	if newPod == nil || oldPod == nil {
		return field.ErrorList{field.Required(spec.MAN003, nil, "an update needs the old and the new pod")}
	}
	// Every check adds to errs through add (never by returning a list that is appended while
	// another check may still be adding), so the order of findings is the order of the checks.
	var errs field.ErrorList
	add := func(e *field.Error) { errs = append(errs, e) }
	report := func(p *field.Path, oldV, newV reflect.Value) { add(immutableError(p, oldV, newV)) }
	if oldPod.APIVersion != newPod.APIVersion {
		report(field.NewPath("apiVersion"), reflect.ValueOf(oldPod.APIVersion), reflect.ValueOf(newPod.APIVersion))
	}
	if oldPod.Kind != newPod.Kind {
		report(field.NewPath("kind"), reflect.ValueOf(oldPod.Kind), reflect.ValueOf(newPod.Kind))
	}
	if oldPod.Metadata.Name != newPod.Metadata.Name {
		report(field.NewPath("metadata", "name"), reflect.ValueOf(oldPod.Metadata.Name), reflect.ValueOf(newPod.Metadata.Name))
	}

	sp := field.NewPath("spec")
	os, ns := &oldPod.Spec, &newPod.Spec
	diffStruct(sp, reflect.ValueOf(os).Elem(), reflect.ValueOf(ns).Elem(), func(name string) bool {
		switch name {
		case "terminationGracePeriodSeconds", "activeDeadlineSeconds", "initContainers", "containers", "deferContainers":
			return true
		}
		return false
	}, report)
	if e := deadlineUpdate(os.ActiveDeadlineSeconds, ns.ActiveDeadlineSeconds, sp.Child("activeDeadlineSeconds")); e != nil {
		add(e)
	}
	containersUpdate(os.InitContainers, ns.InitContainers, true, sp.Child("initContainers"), add, report)
	containersUpdate(os.Containers, ns.Containers, false, sp.Child("containers"), add, report)
	deferContainersUpdate(os.DeferContainers, ns.DeferContainers, sp.Child("deferContainers"), add, report)
	return errs
}

// deadlineUpdate allows activeDeadlineSeconds to be set or decreased, never raised or removed
// (UPD-002).
func deadlineUpdate(oldD, newD *int64, p *field.Path) *field.Error {
	switch {
	case oldD == nil:
		return nil
	case newD == nil:
		return field.Forbidden(spec.UPD002, p, fmt.Sprintf("activeDeadlineSeconds may only be set or decreased; it cannot be removed (was %d)", *oldD))
	case *newD > *oldD:
		return field.Invalid(spec.UPD002, p, *newD, fmt.Sprintf("activeDeadlineSeconds may only be set or decreased (was %d)", *oldD))
	}
	return nil
}

// mutableContainerFields are the fields of an init or main container an update may change.
func mutableContainerField(name string) bool {
	switch name {
	case "image", "command", "args", "env", "resources":
		return true
	}
	return false
}

// containersUpdate checks that a list of init or main containers keeps its names, order and
// kinds, and that each container changes only mutable fields.
func containersUpdate(oldCs, newCs []v1alpha1.Container, isInit bool, p *field.Path, add func(*field.Error), report func(*field.Path, reflect.Value, reflect.Value)) {
	if e := containerSetChanged(len(oldCs), len(newCs), p); e != nil {
		add(e)
		return
	}
	for i := range newCs {
		o, n := &oldCs[i], &newCs[i]
		cp := p.Index(i)
		if o.Name != n.Name {
			add(renamedError(cp.Child("name"), o.Name, n.Name))
			continue
		}
		kindChanged := isInit && o.IsSidecar() != n.IsSidecar()
		if kindChanged {
			add(field.Forbidden(spec.UPD001, cp.Child("restartPolicy"),
				fmt.Sprintf("the set of containers is immutable: this would turn %s from %s into %s", n.Name, kindWords(initKind(o)), kindWords(initKind(n)))))
		}
		diffStruct(cp, reflect.ValueOf(o).Elem(), reflect.ValueOf(n).Elem(), func(name string) bool {
			return name == "name" || mutableContainerField(name) || (kindChanged && name == "restartPolicy")
		}, report)
	}
}

// deferContainersUpdate checks that defer containers are unchanged (none of their fields is
// mutable in place).
func deferContainersUpdate(oldDs, newDs []v1alpha1.DeferContainer, p *field.Path, add func(*field.Error), report func(*field.Path, reflect.Value, reflect.Value)) {
	if e := containerSetChanged(len(oldDs), len(newDs), p); e != nil {
		add(e)
		return
	}
	for i := range newDs {
		o, n := &oldDs[i], &newDs[i]
		cp := p.Index(i)
		if o.Name != n.Name {
			add(renamedError(cp.Child("name"), o.Name, n.Name))
			continue
		}
		diffStruct(cp, reflect.ValueOf(o).Elem(), reflect.ValueOf(n).Elem(), func(name string) bool { return name == "name" }, report)
	}
}

// kindWords names a container kind in a sentence.
func kindWords(k ContainerKind) string {
	if k == KindSidecar {
		return "a sidecar (restartPolicy Always)"
	}
	return "a regular init container"
}

func containerSetChanged(oldN, newN int, p *field.Path) *field.Error {
	if oldN == newN {
		return nil
	}
	return field.Forbidden(spec.UPD001, p,
		fmt.Sprintf("the set of containers is immutable: %d containers here before, %d now; a new pod is needed", oldN, newN))
}

func renamedError(p *field.Path, oldName, newName string) *field.Error {
	return field.Invalid(spec.UPD001, p, newName,
		fmt.Sprintf("the set of containers is immutable: containers cannot be renamed, added, removed or reordered (was %q)", oldName))
}

// immutableError describes one changed immutable field.
func immutableError(p *field.Path, oldV, newV reflect.Value) *field.Error {
	return field.Forbidden(spec.UPD001, p,
		fmt.Sprintf("field is immutable (was %s, now %s); a new pod is needed", describe(oldV), describe(newV)))
}

// describe renders a value for a message: scalars as themselves, anything else as set or unset.
func describe(v reflect.Value) string {
	if !v.IsValid() {
		return "absent"
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "unset"
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if len(s) > 64 {
			s = s[:61] + "..."
		}
		return fmt.Sprintf("%q", s)
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return fmt.Sprint(v.Interface())
	case reflect.Slice, reflect.Map:
		if v.IsNil() || v.Len() == 0 {
			return "empty"
		}
		return fmt.Sprintf("%d entries", v.Len())
	}
	return "set"
}

// jsonName returns a struct field's JSON name and whether it is inlined.
func jsonName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "-" {
		return "", false
	}
	if name == "" {
		if f.Anonymous || slices.Contains(strings.Split(opts, ","), "inline") {
			return "", true
		}
		return f.Name, false
	}
	return name, false
}

// diffStruct compares two values of the same struct type field by field, skipping the fields
// whose JSON names skip accepts, and reports every differing leaf.
func diffStruct(p *field.Path, oldV, newV reflect.Value, skip func(string) bool, report func(*field.Path, reflect.Value, reflect.Value)) {
	t := oldV.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, inline := jsonName(f)
		if inline {
			diffStruct(p, oldV.Field(i), newV.Field(i), skip, report)
			continue
		}
		if name == "" || skip(name) {
			continue
		}
		diffValue(childPath(p, name), oldV.Field(i), newV.Field(i), report)
	}
}

func childPath(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

// diffValue reports every leaf where oldV and newV (of the same type) differ: a pointer set or
// unset, a list entry added (at its index) or removed (at the list), a map key added or removed,
// or a scalar changed.
func diffValue(p *field.Path, oldV, newV reflect.Value, report func(*field.Path, reflect.Value, reflect.Value)) {
	switch oldV.Kind() {
	case reflect.Pointer:
		if oldV.IsNil() || newV.IsNil() {
			if oldV.IsNil() != newV.IsNil() {
				report(p, oldV, newV)
			}
			return
		}
		diffValue(p, oldV.Elem(), newV.Elem(), report)
	case reflect.Struct:
		diffStruct(p, oldV, newV, func(string) bool { return false }, report)
	case reflect.Slice:
		n := min(oldV.Len(), newV.Len())
		for i := range n {
			diffValue(p.Index(i), oldV.Index(i), newV.Index(i), report)
		}
		for i := n; i < newV.Len(); i++ {
			report(p.Index(i), reflect.Value{}, newV.Index(i))
		}
		if oldV.Len() > newV.Len() {
			report(p, oldV, newV)
		}
	case reflect.Map:
		if oldV.Type().Key().Kind() != reflect.String {
			if !reflect.DeepEqual(oldV.Interface(), newV.Interface()) {
				report(p, oldV, newV)
			}
			return
		}
		keys := make([]string, 0, oldV.Len()+newV.Len())
		seen := make(map[string]bool, cap(keys))
		for _, m := range []reflect.Value{oldV, newV} {
			for _, k := range m.MapKeys() {
				if s := k.String(); !seen[s] {
					seen[s] = true
					keys = append(keys, s)
				}
			}
		}
		slices.Sort(keys)
		kt := oldV.Type().Key()
		for _, k := range keys {
			kv := reflect.ValueOf(k).Convert(kt)
			ov, nv := oldV.MapIndex(kv), newV.MapIndex(kv)
			if !ov.IsValid() || !nv.IsValid() {
				report(p.Key(k), ov, nv)
				continue
			}
			diffValue(p.Key(k), ov, nv, report)
		}
	case reflect.Interface:
		if !reflect.DeepEqual(oldV.Interface(), newV.Interface()) {
			report(p, oldV, newV)
		}
	default:
		if oldV.Comparable() && newV.Comparable() && !oldV.Equal(newV) {
			report(p, oldV, newV)
		}
	}
}
