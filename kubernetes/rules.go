package kubernetes

import "podspec.dev/podspec/spec"

// Rule IDs of the Kubernetes profile, from the rule catalog (docs/spec/kubernetes.md has their
// normative text).
const (
	ruleKind     = spec.KUBE001 // a modelled kind at an API version Kubernetes serves
	ruleUnknown  = spec.KUBE002 // a field the API type does not define
	ruleType     = spec.KUBE003 // a value of the wrong JSON type or range
	ruleEnum     = spec.KUBE004 // a value outside an enumeration
	ruleRequired = spec.KUBE005 // a required field left out

	ruleMetadata   = spec.KUBE006 // names, labels and annotations
	ruleContainers = spec.KUBE007 // container names and images
	rulePorts      = spec.KUBE008 // container ports
	ruleVolumes    = spec.KUBE009 // volumes and their mounts
	ruleProbes     = spec.KUBE010 // probes and hooks per container kind
	ruleRestart    = spec.KUBE011 // pod and container restart policies (KEP-753, KEP-5307)
	ruleController = spec.KUBE012 // selectors and workload fields
	ruleStopSignal = spec.KUBE013 // container stop signals (KEP-4960)

	ruleResources      = spec.KUBE020 // requests, limits and quantities
	ruleTolerations    = spec.KUBE021 // tolerations
	ruleTopologySpread = spec.KUBE022 // topology spread constraints
	ruleSecurity       = spec.KUBE023 // security contexts
	rulePortWarnings   = spec.KUBE024 // the API server's warning on duplicate ports

	ruleVersionField = spec.KUBE025 // a field the chosen Kubernetes version does not have

	rulePreStopBudget  = spec.KUBE014 // a preStop that leaves no time for the stop signal
	ruleSidecarStartup = spec.KUBE015 // a sidecar later init containers start beside without a startup probe
	ruleJobNeverFinish = spec.KUBE016 // a Job pod a container keeps running forever

	ruleNotCarried   = spec.KUBE017 // a Kubernetes field podspec does not model (convert)
	ruleNoKubernetes = spec.KUBE018 // a podspec field Kubernetes has no field for (convert)
	ruleNormalised   = spec.KUBE019 // a value carried over normalised (convert)

	// ruleMountPath is podspec's own rule: a mount path no runtime can mount is as fatal in a
	// Kubernetes Pod, whose runtime meets the same procfs and /dev.
	ruleMountPath = spec.VOL014
)
