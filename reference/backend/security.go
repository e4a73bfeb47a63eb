package backend

import (
	"fmt"
	"strconv"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/reference/image"
	"podspec.dev/podspec/reference/oci"
)

// userSpec is the user specification the process of a container runs as: the image's User
// with the securityContext's runAsUser and runAsGroup in place of its user and group parts
// (SEC-021). A runAsUser replaces the image's group too, so that the user's primary group
// comes from the image's /etc/passwd (or is 0), as containerd and CRI-O do.
func userSpec(imageUser string, sc *v1alpha1.SecurityContext) string {
	if sc == nil || (sc.RunAsUser == nil && sc.RunAsGroup == nil) {
		return imageUser
	}
	userPart, groupPart, _ := strings.Cut(imageUser, ":")
	if sc.RunAsUser != nil {
		userPart, groupPart = strconv.FormatInt(*sc.RunAsUser, 10), ""
	}
	if userPart == "" {
		userPart = "0"
	}
	if sc.RunAsGroup != nil {
		groupPart = strconv.FormatInt(*sc.RunAsGroup, 10)
	}
	if groupPart == "" {
		return userPart
	}
	return userPart + ":" + groupPart
}

// processUser resolves the user of a container's process against its root filesystem and
// refuses user 0 when the container says runAsNonRoot (SEC-022).
func processUser(rootfs, imageUser string, sc *v1alpha1.SecurityContext) (image.User, error) {
	spec := userSpec(imageUser, sc)
	user, err := image.LookupUser(rootfs, spec)
	if err != nil {
		return user, err
	}
	if sc != nil && sc.RunAsNonRoot != nil && *sc.RunAsNonRoot && user.UID == 0 {
		return user, fmt.Errorf("runAsNonRoot is true, but the process would run as user 0 (user %q)", spec)
	}
	return user, nil
}

// securityConfig sets what a container's securityContext asks of its OCI configuration: a
// read-only root filesystem (SEC-023) and the capabilities it drops and adds (SEC-024).
func securityConfig(sc *v1alpha1.SecurityContext, cfg *oci.ContainerConfig) {
	if sc == nil {
		return
	}
	cfg.RootfsReadonly = sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
	if c := sc.Capabilities; c != nil {
		cfg.CapDrop = ociCapabilities(c.Drop)
		cfg.CapAdd = ociCapabilities(c.Add)
	}
}

// ociCapabilities turns Kubernetes' capability names (NET_RAW) into the OCI's (CAP_NET_RAW);
// ALL stays ALL.
func ociCapabilities(caps []v1alpha1.Capability) []string {
	var out []string
	for _, c := range caps {
		if c == "ALL" {
			out = append(out, "ALL")
			continue
		}
		out = append(out, "CAP_"+string(c))
	}
	return out
}
