package framework

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/ocilayout"
)

// ImageLog is what the harness read of one OCI-layout image a pod's manifest names, just before
// it ran the pod: the imageID a runtime must report for it (IMG-016: `oci:PATH@sha256:HEX`, PATH
// absolute) and the parts of its configuration a workload's report shows the effect of
// (IMG-008's Entrypoint and Cmd, IMG-011's User) or that decides its start (IMG-012: the
// users and groups the image defines).
type ImageLog struct {
	ID         string
	Entrypoint []string
	Cmd        []string
	User       string
	UserDB     UserDB
}

// logImages reads the configuration of every `oci:` image the pod's manifest names, as the
// layout holds it now, before the runtime resolves it at the pod's creation. A reference that
// does not resolve (a scenario that names a missing image on purpose) or names a registry is not
// logged, nor is anything of a manifest that does not decode (a spec may run one on purpose):
// the harness knows nothing of them to judge by.
func (p *Pod) logImages(ctx context.Context) {
	var pod v1alpha1.Pod
	data, err := os.ReadFile(p.Manifest)
	if err == nil {
		err = json.Unmarshal(data, &pod)
	}
	if err != nil {
		return
	}
	refs := []string{}
	for _, list := range [][]v1alpha1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			refs = append(refs, list[i].Image)
		}
	}
	for i := range pod.Spec.DeferContainers {
		refs = append(refs, pod.Spec.DeferContainers[i].Image)
	}
	images := map[string]ImageLog{}
	for _, ref := range refs {
		if _, done := images[ref]; done || !strings.HasPrefix(ref, ocilayout.Transport) {
			continue
		}
		r, err := ocilayout.ParseReference(ref, filepath.Dir(p.Manifest))
		if err != nil {
			continue
		}
		// The layers are not hashed again: only the config is read.
		img, err := ocilayout.Resolve(ctx, r, func(string) bool { return true })
		if err != nil {
			continue
		}
		images[ref] = ImageLog{ID: ocilayout.Transport + r.Path + "@" + img.Digest, Entrypoint: img.Entrypoint, Cmd: img.Cmd, User: img.User,
			UserDB: p.f.userDBOf(ctx, img)}
	}
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	p.images = images
}

// Images is what the harness read of the pod's `oci:` images before it ran the pod, by the
// reference as the manifest writes it (logImages); nil before the pod ran.
func (p *Pod) Images() map[string]ImageLog {
	p.notesMu.Lock()
	defer p.notesMu.Unlock()
	return p.images
}

// ImageUser runs the container name (init or main) from a test image whose configuration sets
// User to user: the probe alone, no busybox, no user database (BuildProbeImageUser), built once
// per user and run in the run's work directory when a pod first asks for it.
func (b *PodBuilder) ImageUser(container, user string) *PodBuilder {
	b.imageUsers = append(b.imageUsers, user)
	b.envMutate = append(b.envMutate, func(p *v1alpha1.Pod, env BuildEnv) {
		ref := env.UserImages[user]
		if ref == "" {
			return // a Build for labels only: no image is named
		}
		for _, list := range [][]v1alpha1.Container{p.Spec.InitContainers, p.Spec.Containers} {
			for i := range list {
				if list[i].Name == container {
					list[i].Image = ref
				}
			}
		}
	})
	return b
}

// userImages builds (once per run and user) the test image of every User the pod builder asks
// for (PodBuilder.ImageUser) and returns their references by user.
func (f *Framework) userImages(ctx context.Context, b *PodBuilder) (map[string]string, error) {
	if len(b.imageUsers) == 0 {
		return nil, nil
	}
	f.userImagesMu.Lock()
	defer f.userImagesMu.Unlock()
	if f.builtUserImages == nil {
		f.builtUserImages = map[string]string{}
	}
	out := map[string]string{}
	for _, user := range b.imageUsers {
		ref, ok := f.builtUserImages[user]
		if !ok {
			dir := filepath.Join(f.cfg.WorkDir, "image-as-"+strings.NewReplacer(":", "-", "/", "-").Replace(user))
			var err error
			if ref, err = BuildProbeImageUser(ctx, dir, f.cfg.ProbeBinary, user); err != nil {
				return nil, err
			}
			f.builtUserImages[user] = ref
		}
		out[user] = ref
	}
	return out, nil
}

// UserDB is what an image's own /etc/passwd and /etc/group define (IMG-011, IMG-012): the user
// and group names, read from the image's layers in order (a later layer's file, or whiteout,
// replacing an earlier one). Known is false when the harness could not read them (a file that
// is not a regular file, a layer it could not read).
type UserDB struct {
	Known         bool
	Users, Groups []string
}

// userDBOf is the user database of a resolved image, read once per run and image digest.
func (f *Framework) userDBOf(ctx context.Context, img *ocilayout.Image) UserDB {
	f.userImagesMu.Lock()
	defer f.userImagesMu.Unlock()
	if db, ok := f.userDBs[img.Digest]; ok {
		return db
	}
	db := userDB(ctx, img)
	if f.userDBs == nil {
		f.userDBs = map[string]UserDB{}
	}
	f.userDBs[img.Digest] = db
	return db
}

// userDB reads the user database of a resolved image.
func userDB(ctx context.Context, img *ocilayout.Image) UserDB {
	files := map[string][]byte{}
	for i, d := range img.Manifest.Layers {
		l, err := ocilayout.OpenLayer(ctx, img.Ref.Path, d, string(img.Config.RootFS.DiffIDs[i]))
		if err != nil {
			return UserDB{}
		}
		err = readUserFiles(l, files)
		l.Close()
		if err != nil {
			return UserDB{}
		}
	}
	if files["etc/passwd"] == nil && files["etc/group"] == nil {
		return UserDB{Known: true}
	}
	db := UserDB{Known: true, Users: names(files["etc/passwd"]), Groups: names(files["etc/group"])}
	for _, f := range []string{"etc/passwd", "etc/group"} {
		if string(files[f]) == unreadable {
			return UserDB{}
		}
	}
	return db
}

// unreadable marks a user database file that is not a regular file.
const unreadable = "\x00unreadable"

// readUserFiles applies one layer's etc/passwd and etc/group (content, whiteout, opaque etc) to
// files.
func readUserFiles(l *ocilayout.Layer, files map[string][]byte) error {
	tr := tar.NewReader(l)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(hdr.Name, "/"))
		switch name {
		case "etc/.wh..wh..opq": // an opaque etc: the lower layers' files are gone
			delete(files, "etc/passwd")
			delete(files, "etc/group")
		case "etc/.wh.passwd", "etc/.wh.group":
			delete(files, "etc/"+strings.TrimPrefix(path.Base(name), ".wh."))
		case "etc/passwd", "etc/group":
			if hdr.Typeflag != tar.TypeReg {
				files[name] = []byte(unreadable)
				continue
			}
			b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
			if err != nil {
				return err
			}
			files[name] = b
		}
	}
}

// names are the first fields of a passwd or group file's entries.
func names(file []byte) []string {
	var out []string
	for _, line := range strings.Split(string(file), "\n") {
		if n, _, _ := strings.Cut(line, ":"); n != "" && !strings.HasPrefix(n, "#") {
			out = append(out, n)
		}
	}
	return out
}
