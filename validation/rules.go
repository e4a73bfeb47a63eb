package validation

// Rule IDs this package reports (docs/requirements.yaml has their normative text).
const (
	ruleSchema   = "MAN-002" // a value outside an enumeration or range
	ruleRequired = "MAN-003" // a required value is missing or empty

	ruleName          = "ID-001"
	ruleContainerName = "ID-002"
	ruleLabels        = "ID-003"

	ruleMain = "MAIN-001"

	ruleDepExists    = "DEP-001"
	ruleDepSelf      = "DEP-002"
	ruleDepCycle     = "DEP-003"
	ruleDepReady     = "DEP-004"
	ruleDepCompleted = "DEP-005"
	ruleDepPlacement = "DEP-006"

	ruleExitNeverFires = "EXIT-001"
	ruleBackoff        = "RST-001"
	ruleStopSignal     = "STOP-001"
	ruleDeferBudget    = "STOP-002"

	ruleHookPlacement = "HOOK-001"
	ruleHookHandler   = "HOOK-002"

	ruleNotifierName      = "NTF-001"
	ruleNotifierAction    = "NTF-002"
	ruleNotifierPlacement = "NTF-003"
	ruleNotification      = "NOTIF-001"

	ruleVolumeMountRef = "VOL-001"
	ruleVolume         = "VOL-002"
	ruleVolumeSource   = "VOL-003"

	ruleResources = "RES-001"
	ruleDefer     = "DEFER-001"

	ruleUpdateImmutable = "UPD-001"
	ruleUpdateDeadline  = "UPD-002"

	ruleImage = "IMG-001"
)
