//go:build mutant_uid_without_dashes

package mutant

// UIDWithoutDashes is true in the mutant build mutant_uid_without_dashes: a pod's UID is 32 hex digits without the dashes of RFC 9562's text form (breaks ID-004).
const UIDWithoutDashes = true
