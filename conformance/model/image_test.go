package model

import (
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/conformance/probe"
	"podspec.dev/podspec/spec"
)

const (
	testImage    = "oci:/layout:probe"
	testImageID  = "oci:/layout@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	otherImage   = "oci:/other:probe"
	otherImageID = "oci:/other@sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

// imageCase is a hand-written history of one container a (its definition set by def), run from
// the image testImage (configured by img), whose process reports what it sees (rep), with the
// final status's imageID for a.
type imageCase struct {
	name    string
	def     func(*v1alpha1.Container)
	img     Image
	rep     func(*probe.Report)
	role    string
	imageID string
	update  func(*v1alpha1.Pod) // an accepted update's change, nil for none
	// startError: a never starts, its only instance ends with reason StartError.
	startError bool
	want       []string
}

func (tc imageCase) hist() *hist {
	h := pod(mains("a"), withC("a", func(c *v1alpha1.Container) {
		c.Image = testImage
		c.Command, c.Args = []string{"/probe", "run", "-name", "a"}, nil
		if tc.def != nil {
			tc.def(c)
		}
	})).add(0, runtimev1.EventPodCreated, "")
	if tc.startError {
		// The scenario image-user-undefined: a fails its start; b's exit 0 ends the pod (exit
		// policy Any) while a waits for its restart, which the stop cancels: a failed terminally.
		h.pod.Spec.RestartPolicy, h.pod.Spec.ExitPolicy = v1alpha1.RestartPolicyOnFailure, v1alpha1.ExitPolicyAny
		h.pod.Spec.Containers = append(h.pod.Spec.Containers, v1alpha1.Container{Name: "b", Image: otherImage, Command: []string{"/probe", "run", "-name", "b"}})
		startError := func(e *runtimev1.Event) { e.Reason, e.Message = v1alpha1.ReasonStartError, "no such user" }
		h.add(100, runtimev1.EventContainerExited, "a", startError).add(101, runtimev1.EventContainerRestarting, "a").
			start(110, "b").exit(250, "b", 0, "Completed").fire(251, "b").terminating(252).
			finish(280, v1alpha1.PodFailed, 1, "a", "Completed") // the failure whose restart the stop cancelled
		h.final.ContainerStatuses = []v1alpha1.ContainerStatus{{Name: "a", Image: testImage, ImageID: testImageID,
			State: v1alpha1.ContainerState{Terminated: &v1alpha1.ContainerStateTerminated{Reason: v1alpha1.ReasonStartError, Message: "no such user"}}},
			{Name: "b", Image: otherImage, ImageID: otherImageID,
				State: v1alpha1.ContainerState{Terminated: &v1alpha1.ContainerStateTerminated{ExitCode: i32(0), Reason: "Completed"}}}}
		img := tc.img
		img.ID = testImageID
		h.images = map[string]Image{testImage: img, otherImage: {ID: otherImageID, Entrypoint: []string{"/probe"}}}
		return h
	}
	h.start(100, "a").work(120, "a", probe.TypeStart)
	role := tc.role
	if role == "" {
		role = probe.RoleWorkload
	}
	h.work(130, "a", probe.TypeReport, func(p *probe.Event) {
		p.Role = role
		p.Report = &probe.Report{Args: []string{"/probe", "run", "-name", "a"}}
		if tc.rep != nil {
			tc.rep(p.Report)
		}
	})
	h.work(900, "a", probe.TypeExit, code(0)).exit(1000, "a", 0, "Completed").fire(1001, "a").
		terminating(1002).finish(1100, v1alpha1.PodSucceeded, 0, "a", "Completed")
	imageID := tc.imageID
	if imageID == "" {
		imageID = testImageID
	}
	h.final.ContainerStatuses = []v1alpha1.ContainerStatus{{Name: "a", Image: testImage, ImageID: imageID,
		State: v1alpha1.ContainerState{Terminated: &v1alpha1.ContainerStateTerminated{ExitCode: i32(0), Reason: "Completed"}}}}
	img := tc.img
	img.ID = testImageID
	h.images = map[string]Image{testImage: img, otherImage: {ID: otherImageID, Entrypoint: []string{"/probe"}}}
	if tc.update != nil {
		next := defaulted(h.pod)
		tc.update(next)
		h.upd = []Update{{Issued: t0.Add(50e6), Returned: t0.Add(60e6), Pod: next, Accepted: true}}
	}
	return h
}

// imageCases are the hand-written histories of the image's configuration, as TestModel runs them.
func imageCases() []modelCase {
	var out []modelCase
	for _, tc := range imageTable() {
		out = append(out, modelCase{"image: " + tc.name, tc.hist(), tc.want})
	}
	return out
}

func imageTable() []imageCase {
	probeImage := Image{Entrypoint: []string{"/probe"}, Cmd: []string{"run", "-name", "default"}}
	argsOnly := func(c *v1alpha1.Container) { c.Args, c.Command = c.Command[1:], nil }
	return []imageCase{
		{name: "a command runs as written, the image's Cmd dropped", img: probeImage},
		{name: "args run after the image's Entrypoint", img: probeImage, def: argsOnly},
		{name: "args run without the Entrypoint (args_replace_entrypoint)", img: probeImage, def: argsOnly,
			rep: func(r *probe.Report) { r.Args = r.Args[1:] }, want: []string{spec.IMG008}},
		{name: "neither command nor args: Entrypoint and Cmd", img: probeImage, def: func(c *v1alpha1.Container) { c.Command = nil },
			rep: func(r *probe.Report) { r.Args = []string{"/probe", "run", "-name", "default"} }},
		{name: "the Cmd kept after a command", img: probeImage,
			rep: func(r *probe.Report) { r.Args = append(r.Args, "run", "-name", "default") }, want: []string{spec.IMG008}},
		{name: "a hook's argv is its own", img: probeImage, role: probe.RoleHook, rep: func(r *probe.Report) { r.Args = []string{"/probe", "hook"} }},
		{name: "an image the harness did not read is not judged", img: probeImage, def: func(c *v1alpha1.Container) { c.Image = "registry.example/probe:1" },
			rep: func(r *probe.Report) { r.Args = []string{"x"} }, imageID: "registry.example/probe@sha256:00"},
		{name: "an update's new args", img: probeImage, rep: func(r *probe.Report) { r.Args = append(r.Args, "-gen2") },
			update: func(p *v1alpha1.Pod) { p.Spec.Containers[0].Command = append(p.Spec.Containers[0].Command, "-gen2") }},
		{name: "args neither definition runs", img: probeImage, rep: func(r *probe.Report) { r.Args = append(r.Args, "-gen3") },
			update: func(p *v1alpha1.Pod) { p.Spec.Containers[0].Command = append(p.Spec.Containers[0].Command, "-gen2") }, want: []string{spec.IMG008}},

		{name: "the User's UID and GID", img: Image{User: "1234:5678"}, rep: func(r *probe.Report) { r.UID, r.GID = 1234, 5678 }},
		{name: "the User's group ignored (user_group_ignored)", img: Image{User: "1234:5678"}, rep: func(r *probe.Report) { r.UID, r.GID = 1234, 0 },
			want: []string{spec.IMG011}},
		{name: "a hook as root under a User", img: Image{User: "1234:5678"}, role: probe.RoleHook, want: []string{spec.IMG011}},
		{name: "a UID alone leaves the group to the user database", img: Image{User: "1234"}, rep: func(r *probe.Report) { r.UID, r.GID = 1234, 99 }},
		{name: "a named User is not judged", img: Image{User: "nobody"}, rep: func(r *probe.Report) { r.UID, r.GID = 7, 7 }},
		{name: "runAsUser decides the user", img: Image{User: "1234:5678"}, def: func(c *v1alpha1.Container) {
			u := int64(42)
			c.SecurityContext = &v1alpha1.SecurityContext{RunAsUser: &u}
		}, rep: func(r *probe.Report) { r.UID = 42 }},

		{name: "a User the image does not define fails the start", img: Image{User: "nosuchuser", UsersKnown: true, Users: []string{"root"}}, startError: true},
		{name: "a User the image does not define run as root (unknown_user_as_root)", img: Image{User: "nosuchuser", UsersKnown: true},
			want: []string{spec.IMG012, spec.IMG012}},
		{name: "a group the image does not define", img: Image{User: "1234:staff", UsersKnown: true, Groups: []string{"root"}},
			want: []string{spec.IMG012, spec.IMG012}},
		{name: "a user the image defines runs", img: Image{User: "app:staff", UsersKnown: true, Users: []string{"app"}, Groups: []string{"staff"}}},
		{name: "a user database the harness could not read is not judged", img: Image{User: "nosuchuser"}},

		{name: "imageID as written (image_id_as_written)", img: probeImage, imageID: testImage, want: []string{spec.IMG016}},
		{name: "imageID of an update's image", img: probeImage, imageID: otherImageID,
			update: func(p *v1alpha1.Pod) { p.Spec.Containers[0].Image = otherImage }},
		{name: "imageID of another image", img: probeImage, imageID: otherImageID, want: []string{spec.IMG016}},
	}
}

func TestNumericUser(t *testing.T) {
	for _, tc := range []struct {
		user     string
		uid, gid int
		ok       bool
	}{
		{"1234:5678", 1234, 5678, true},
		{"1234", 1234, -1, true},
		{"nobody", 0, 0, false},
		{"1234:staff", 0, 0, false},
		{"1234:", 0, 0, false},
		{"", 0, 0, false},
		{"-1", 0, 0, false},
	} {
		uid, gid, ok := numericUser(tc.user)
		if uid != tc.uid || gid != tc.gid || ok != tc.ok {
			t.Errorf("numericUser(%q) = %d, %d, %v; want %d, %d, %v", tc.user, uid, gid, ok, tc.uid, tc.gid, tc.ok)
		}
	}
}
