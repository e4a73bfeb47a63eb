package validation

import (
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// depEdge is one resolved dependsOn entry: container `from` (index in spec.containers) waits
// for container `to`; entry is the index of the entry in from's dependsOn list.
type depEdge struct{ to, entry int }

// validateDependencies checks dependsOn: placement and duplicates (DEP-006), references
// (DEP-001), self-references (DEP-002), condition prerequisites (DEP-004, DEP-005) and cycles
// (DEP-003).
func validateDependencies(s *v1alpha1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range s.InitContainers {
		c := &s.InitContainers[i]
		if len(c.DependsOn) == 0 {
			continue
		}
		what := "an init container"
		if c.IsSidecar() {
			what = "a sidecar"
		}
		errs = append(errs, field.Forbidden(spec.DEP006, p.Child("initContainers").Index(i).Child("dependsOn"),
			"dependsOn is only allowed on main containers; "+what+" starts in list order").AtKey())
	}

	mainIndex := make(map[string]int, len(s.Containers))
	for i := range s.Containers {
		if _, dup := mainIndex[s.Containers[i].Name]; !dup {
			mainIndex[s.Containers[i].Name] = i
		}
	}
	otherKind := func(name string) string {
		for i := range s.InitContainers {
			if s.InitContainers[i].Name == name {
				if s.InitContainers[i].IsSidecar() {
					return "a sidecar"
				}
				return "an init container"
			}
		}
		for i := range s.DeferContainers {
			if s.DeferContainers[i].Name == name {
				return "a defer container"
			}
		}
		return ""
	}

	cp := p.Child("containers")
	adj := make([][]depEdge, len(s.Containers))
	for i := range s.Containers {
		c := &s.Containers[i]
		var seen map[string]bool
		for j := range c.DependsOn {
			d := &c.DependsOn[j]
			dp := cp.Index(i).Child("dependsOn").Index(j)
			np := dp.Child("name")
			if d.Name == "" {
				errs = append(errs, field.Required(spec.MAN003, np, "a dependency names a main container"))
				continue
			}
			if d.Name == c.Name {
				errs = append(errs, field.Invalid(spec.DEP002, np, d.Name, "a container cannot depend on itself"))
				continue
			}
			k, ok := mainIndex[d.Name]
			if !ok {
				if kind := otherKind(d.Name); kind != "" {
					errs = append(errs, field.Invalid(spec.DEP001, np, d.Name,
						"dependsOn may only name main containers, and "+d.Name+" is "+kind))
				} else {
					errs = append(errs, field.NotFound(spec.DEP001, np, d.Name, "no main container of this name"))
				}
				continue
			}
			if seen[d.Name] {
				errs = append(errs, field.Duplicate(spec.DEP006, np, d.Name, "each container may be named once in dependsOn"))
				continue
			}
			if seen == nil {
				seen = make(map[string]bool, len(c.DependsOn))
			}
			seen[d.Name] = true
			adj[i] = append(adj[i], depEdge{to: k, entry: j})
			if e := validateCondition(s, d, &s.Containers[k], dp.Child("condition")); e != nil {
				errs = append(errs, e)
			}
		}
	}
	errs = append(errs, findCycles(s.Containers, adj, cp)...)
	return errs
}

// validateCondition checks what a dependency's condition requires of the dependency: Ready a
// readinessProbe (DEP-004), Completed a restart policy other than Always (DEP-005).
func validateCondition(s *v1alpha1.PodSpec, d *v1alpha1.Dependency, dep *v1alpha1.Container, p *field.Path) *field.Error {
	switch d.Condition {
	case v1alpha1.ConditionStarted, "":
	case v1alpha1.ConditionReady:
		if dep.ReadinessProbe == nil {
			return field.Invalid(spec.DEP004, p, string(d.Condition),
				"condition Ready needs a readinessProbe on "+dep.Name+", which has none")
		}
	case v1alpha1.ConditionCompleted:
		if s.EffectiveRestartPolicy(dep, false) == v1alpha1.RestartPolicyAlways {
			return field.Invalid(spec.DEP005, p, string(d.Condition),
				"condition Completed can never hold: "+dep.Name+" has restartPolicy Always, so it is restarted whenever it exits")
		}
	default:
		return enumProblem(p, d.Condition, v1alpha1.ConditionStarted, v1alpha1.ConditionReady, v1alpha1.ConditionCompleted)
	}
	return nil
}

// findCycles reports every cycle a depth-first search in list order closes with a back edge,
// so each cycle is reported once and the search stays linear in the size of the graph (plus the
// length of the cycles it prints). A cycle is written from its member that comes first in
// spec.containers and reported on the dependsOn entry that closes it, back to that member.
func findCycles(cs []v1alpha1.Container, adj [][]depEdge, p *field.Path) field.ErrorList {
	const (
		white = iota
		onStack
		done
	)
	type frame struct{ node, next int }
	var errs field.ErrorList
	state := make([]uint8, len(cs))
	depth := make([]int, len(cs)) // a node's index in stack while it is on it
	var stack []frame
	for root := range cs {
		if state[root] != white {
			continue
		}
		state[root], depth[root] = onStack, 0
		stack = append(stack[:0], frame{node: root})
		for len(stack) > 0 {
			top := len(stack) - 1
			f := &stack[top]
			if f.next == len(adj[f.node]) {
				state[f.node] = done
				stack = stack[:top]
				continue
			}
			e := adj[f.node][f.next]
			f.next++
			switch state[e.to] {
			case white:
				state[e.to], depth[e.to] = onStack, len(stack)
				stack = append(stack, frame{node: e.to})
			case onStack:
				// The cycle is stack[depth[e.to]:] closed by e. Each member's outgoing edge on the
				// cycle is the one its frame took last (next-1).
				n := len(stack) - depth[e.to]
				members := make([]int, n)
				entries := make([]int, n)
				for t := range n {
					fr := stack[depth[e.to]+t]
					members[t] = fr.node
					entries[t] = adj[fr.node][fr.next-1].entry
				}
				errs = append(errs, cycleError(cs, members, entries, p))
			}
		}
	}
	return errs
}

// cycleError reports the cycle members[0] → members[1] → … → members[0], where entries[t] is
// the dependsOn entry of members[t] naming the next member. It rotates the cycle to start at
// the member first in list order and points at the entry that closes it.
func cycleError(cs []v1alpha1.Container, members, entries []int, p *field.Path) *field.Error {
	start := 0
	for t := range members {
		if members[t] < members[start] {
			start = t
		}
	}
	n := len(members)
	var b strings.Builder
	b.WriteString("cycle: ")
	for t := range n {
		b.WriteString(cs[members[(start+t)%n]].Name)
		b.WriteString(" → ")
	}
	b.WriteString(cs[members[start]].Name)
	last := (start + n - 1) % n
	closing := members[last]
	np := p.Index(closing).Child("dependsOn").Index(entries[last]).Child("name")
	return field.Invalid(spec.DEP003, np, cs[members[start]].Name, b.String())
}
