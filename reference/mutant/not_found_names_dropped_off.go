//go:build !mutant_not_found_names_dropped

package mutant

// NotFoundNamesDropped, when true (build tag mutant_not_found_names_dropped), makes the runtime break a requirement: a name in spec.pods that names no pod gets no pod record, instead of one Skipped with reason PodNotFound (breaks NOTIF-005).
const NotFoundNamesDropped = false
