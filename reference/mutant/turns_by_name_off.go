//go:build !mutant_turns_by_name

package mutant

// TurnsByName, when true (build tag mutant_turns_by_name), makes the runtime break a requirement: a Notification takes its target pods' turns in the order of their names, not of their creation (breaks NOTIF-007).
const TurnsByName = false
