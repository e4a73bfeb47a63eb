package framework

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"podspec.dev/podspec/api/v1alpha1"
	"podspec.dev/podspec/ocilayout"
)

// TestTheHarnessLogsWhatAPodsImagesConfigure: before a pod runs, the harness reads each `oci:`
// image its manifest names — the imageID a runtime must report, Entrypoint, Cmd, User and the
// names its own /etc/passwd and /etc/group define — and skips what it cannot read.
func TestTheHarnessLogsWhatAPodsImagesConfigure(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"passwd": "root:x:0:0:root:/root:/bin/sh\n# a comment\napp:x:1000:1000::/home/app:/bin/sh\n",
		"group":  "root:x:0:\nstaff:x:50:app\n",
	} {
		if err := os.WriteFile(filepath.Join(root, "etc", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	layout := filepath.Join(dir, "layout")
	digest, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{FromDir: root, Tag: "t",
		Entrypoint: []string{"/bin/app"}, Cmd: []string{"serve"}, User: "app:staff"})
	if err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare")
	bareDigest, err := ocilayout.Build(ctx, bare, ocilayout.BuildOptions{Tag: "t", User: "nosuchuser",
		Files: []ocilayout.File{{Source: filepath.Join(root, "etc", "group"), Dest: "/data", Mode: 0o644}}})
	if err != nil {
		t.Fatal(err)
	}
	pod := v1alpha1.Pod{Spec: v1alpha1.PodSpec{
		InitContainers:  []v1alpha1.Container{{Name: "i", Image: "oci:layout:t"}}, // relative to the manifest's directory
		Containers:      []v1alpha1.Container{{Name: "a", Image: "oci:" + layout + ":t"}, {Name: "r", Image: "registry.example/app:1"}, {Name: "m", Image: "oci:" + dir + "/missing:t"}},
		DeferContainers: []v1alpha1.DeferContainer{{Name: "d", Image: "oci:" + bare + ":t"}},
	}}
	data, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	p := &Pod{f: &Framework{}, Name: "p", Manifest: filepath.Join(dir, "pod.json")}
	if err := os.WriteFile(p.Manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p.logImages(ctx)
	app := ImageLog{ID: "oci:" + layout + "@" + digest, Entrypoint: []string{"/bin/app"}, Cmd: []string{"serve"}, User: "app:staff",
		UserDB: UserDB{Known: true, Users: []string{"root", "app"}, Groups: []string{"root", "staff"}}}
	want := map[string]ImageLog{
		"oci:layout:t":         app,
		"oci:" + layout + ":t": app,
		"oci:" + bare + ":t":   {ID: "oci:" + bare + "@" + bareDigest, User: "nosuchuser", UserDB: UserDB{Known: true}},
	}
	if got := p.Images(); !reflect.DeepEqual(got, want) {
		t.Errorf("Images() =\n%+v\nwant\n%+v", got, want)
	}
}
