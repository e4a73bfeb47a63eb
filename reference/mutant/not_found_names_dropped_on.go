//go:build mutant_not_found_names_dropped

package mutant

// NotFoundNamesDropped is true in the mutant build mutant_not_found_names_dropped: a name in spec.pods that names no pod gets no pod record, instead of one Skipped with reason PodNotFound (breaks NOTIF-005).
const NotFoundNamesDropped = true
