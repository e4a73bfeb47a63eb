//go:build !mutant_uid_without_dashes

package mutant

// UIDWithoutDashes, when true (build tag mutant_uid_without_dashes), makes the runtime break a requirement: a pod's UID is 32 hex digits without the dashes of RFC 9562's text form (breaks ID-004).
const UIDWithoutDashes = false
