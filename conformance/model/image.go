package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

// Rules of the image's configuration (docs/spec/runtime.md, "Images"): the process a container
// runs (IMG-008), the user it runs as (IMG-011) or the start it fails (IMG-012), and the imageID its status reports (IMG-016),
// judged against what the harness read of each image before it ran the pod (History.Images) and
// what the workloads reported from inside (their argv, UID and GID). A container whose image the
// harness could not read (a registry image, an update's new image it did not log) is not judged.

// Image is what the harness read of one image a manifest names, before the runtime created the
// pod: the imageID a runtime must report for it, its configuration's Entrypoint, Cmd and User,
// and the user and group names its own /etc/passwd and /etc/group define (UsersKnown false when
// the harness could not read them).
type Image struct {
	ID            string
	Entrypoint    []string
	Cmd           []string
	User          string
	UsersKnown    bool
	Users, Groups []string
}

// definition is what one manifest says of a container: the parts the image rules read.
type definition struct {
	image         string
	command, args []string
	sc            *v1alpha1.SecurityContext
}

// definitionIn is the container name's definition in pod p (ok false when p has no such
// container).
func definitionIn(p *v1alpha1.Pod, name string) (definition, bool) {
	for _, list := range [][]v1alpha1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range list {
			if c := &list[i]; c.Name == name {
				return definition{image: c.Image, command: c.Command, args: c.Args, sc: c.SecurityContext}, true
			}
		}
	}
	for i := range p.Spec.DeferContainers {
		if d := &p.Spec.DeferContainers[i]; d.Name == name {
			return definition{image: d.Image, command: d.Command, args: d.Args}, true
		}
	}
	return definition{}, false
}

// definitions are the container's definitions the history gave it, the manifest's and every
// accepted update's, each with its image as the harness read it; ok is false when the harness
// did not read the image of one of them (the container is not judged).
func (rp *replay) definitions(name string) (defs []definition, imgs []Image, ok bool) {
	pods := []*v1alpha1.Pod{rp.pod}
	for _, a := range rp.accepted {
		pods = append(pods, a.next)
	}
	for _, p := range pods {
		d, found := definitionIn(p, name)
		if !found {
			continue
		}
		img, known := rp.images[d.image]
		if !known {
			return nil, nil, false
		}
		defs, imgs = append(defs, d), append(imgs, img)
	}
	return defs, imgs, len(defs) > 0
}

// argv is the process a definition runs from image img, as in Kubernetes (IMG-008): `command`
// replaces the Entrypoint and `args` the Cmd; with `command` and no `args`, the Cmd is dropped.
func argv(d definition, img Image) []string {
	switch {
	case len(d.command) > 0:
		return slices.Concat(d.command, d.args)
	case len(d.args) > 0:
		return slices.Concat(img.Entrypoint, d.args)
	}
	return slices.Concat(img.Entrypoint, img.Cmd)
}

// checkArgv judges IMG-008: every report a container's own process sent gives, as its argv, the
// process one of the container's definitions runs from its image.
func checkArgv(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		defs, imgs, ok := rp.definitions(c.name)
		if !ok {
			continue
		}
		var want [][]string
		for i := range defs {
			want = append(want, argv(defs[i], imgs[i]))
		}
		for _, p := range rp.probe {
			if p.Container != c.name || p.Role != probe.RoleWorkload || p.Type != probe.TypeReport || p.Report == nil {
				continue
			}
			if !slices.ContainsFunc(want, func(w []string) bool { return slices.Equal(w, p.Report.Args) }) {
				out = append(out, Finding{Rule: spec.IMG008, Container: c.name,
					Message: fmt.Sprintf("the container's process runs %q; its command, args and image's Entrypoint and Cmd make %q", p.Report.Args, want[0])})
				break
			}
		}
	}
	return out
}

// numericUser parses an image User of the form UID or UID:GID (gid -1 when the User gives
// none); ok is false for a User that names a user or group, which only the image's own
// /etc/passwd and /etc/group resolve.
func numericUser(user string) (uid, gid int, ok bool) {
	u, g, hasGroup := strings.Cut(user, ":")
	uid, err := strconv.Atoi(u)
	if err != nil || uid < 0 {
		return 0, 0, false
	}
	if !hasGroup {
		return uid, -1, true
	}
	gid, err = strconv.Atoi(g)
	if err != nil || gid < 0 {
		return 0, 0, false
	}
	return uid, gid, true
}

// checkImageUser judges IMG-011 where the image's User is numeric: every process of a container
// that sets no runAsUser or runAsGroup (its own, and its exec hooks, probes and notifier
// actions) reports the User's UID, and its GID when the User gives one.
func checkImageUser(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		defs, imgs, ok := rp.definitions(c.name)
		if !ok {
			continue
		}
		uid, gid, numeric := numericUser(imgs[0].User)
		if !numeric {
			continue
		}
		same := true
		for i := range defs {
			u, g, _ := numericUser(imgs[i].User)
			same = same && imgs[i].User != "" && u == uid && g == gid &&
				(defs[i].sc == nil || (defs[i].sc.RunAsUser == nil && defs[i].sc.RunAsGroup == nil))
		}
		if !same {
			continue // a securityContext, or another image, decides the user (SEC-021)
		}
		for _, p := range rp.probe {
			if p.Container != c.name || p.Type != probe.TypeReport || p.Report == nil {
				continue
			}
			if p.Report.UID != uid || (gid >= 0 && p.Report.GID != gid) {
				out = append(out, Finding{Rule: spec.IMG011, Container: c.name,
					Message: fmt.Sprintf("a %s process runs as %d:%d; the image's User is %q", p.Role, p.Report.UID, p.Report.GID, imgs[0].User)})
				break
			}
		}
	}
	return out
}

// checkImageIDs judges IMG-016: the final status of every container reports, as imageID, the
// image the harness read for one of its definitions.
func checkImageIDs(rp *replay) []Finding {
	if rp.final == nil {
		return nil
	}
	var out []Finding
	st := rp.final
	for _, list := range [][]v1alpha1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses, st.DeferContainerStatuses} {
		for _, cs := range list {
			_, imgs, ok := rp.definitions(cs.Name)
			if !ok {
				continue
			}
			if !slices.ContainsFunc(imgs, func(img Image) bool { return img.ID == cs.ImageID }) {
				out = append(out, Finding{Rule: spec.IMG016, Container: cs.Name,
					Message: fmt.Sprintf("the status reports imageID %q; the image it names resolves to %q", cs.ImageID, imgs[len(imgs)-1].ID)})
			}
		}
	}
	return out
}

// undefinedUser says what of an image's User the image does not define ("" when the image
// defines it, or the harness could not read its user database): a user or group name missing
// from its /etc/passwd or /etc/group (a numeric ID needs no entry).
func undefinedUser(img Image) string {
	if img.User == "" || !img.UsersKnown {
		return ""
	}
	user, group, hasGroup := strings.Cut(img.User, ":")
	if _, err := strconv.Atoi(user); err != nil && !slices.Contains(img.Users, user) {
		return "user " + strconv.Quote(user)
	}
	if _, err := strconv.Atoi(group); hasGroup && err != nil && !slices.Contains(img.Groups, group) {
		return "group " + strconv.Quote(group)
	}
	return ""
}

// checkUndefinedUser judges IMG-012: a container whose image User names a user or group the
// image does not define never runs its process; every instance the runtime created ends with
// reason StartError, none started, and no process of it reports anything.
func checkUndefinedUser(rp *replay) []Finding {
	var out []Finding
	for _, c := range rp.order {
		_, imgs, ok := rp.definitions(c.name)
		if !ok || len(imgs) != 1 {
			continue // an update may have given it another image: not judged
		}
		what := undefinedUser(imgs[0])
		if what == "" {
			continue
		}
		bad := func(msg string, seq int64) {
			out = append(out, Finding{Rule: spec.IMG012, Seq: seq, Container: c.name,
				Message: fmt.Sprintf("%s, though its image User %q names a %s the image does not define", msg, imgs[0].User, what)})
		}
		for _, in := range c.insts {
			switch {
			case in.started != nil:
				bad(fmt.Sprintf("instance %d started", in.n+1), in.started.Seq)
			case in.exited != nil && in.exited.Reason != v1alpha1.ReasonStartError:
				bad(fmt.Sprintf("instance %d ended with reason %s, not StartError", in.n+1, in.exited.Reason), in.exited.Seq)
			}
		}
		for _, p := range rp.probe {
			if p.Container == c.name && p.Role == probe.RoleWorkload {
				bad("its process reported "+p.Type, 0)
				break
			}
		}
	}
	return out
}
