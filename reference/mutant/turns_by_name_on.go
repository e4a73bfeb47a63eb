//go:build mutant_turns_by_name

package mutant

// TurnsByName is true in the mutant build mutant_turns_by_name: a Notification takes its target pods' turns in the order of their names, not of their creation (breaks NOTIF-007).
const TurnsByName = true
