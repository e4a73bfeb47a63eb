package framework

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"podspec.dev/podspec/ocilayout"
)

// TestRegistryPushesServesAndLogsEachRequest: the registry the specs of registry images run
// takes a push of a layout's tag and of a multi-platform index, serves the blobs from the
// file BlobData names, and Requests/RequestsFor report each request a client made (method,
// path, status), oldest first, for one repository since a mark; a stopped registry refuses
// connections.
func TestRegistryPushesServesAndLogsEachRequest(t *testing.T) {
	if _, err := os.Stat(RegistryBinary); err != nil {
		t.Skip("needs Debian's docker-registry")
	}
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "file")
	if err := os.WriteFile(src, []byte("base"), 0o644); err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(dir, "layout")
	if _, err := ocilayout.Build(ctx, layout, ocilayout.BuildOptions{Files: []ocilayout.File{{Source: src, Dest: "/file"}}, Tag: "base"}); err != nil {
		t.Fatal(err)
	}
	if _, err := AddRawLayer(layout, "base", "top", []RawEntry{{Name: "which", Type: tar.TypeReg, Content: "top"}}); err != nil {
		t.Fatal(err)
	}
	reg, err := StartRegistry(filepath.Join(dir, "registry"))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Stop()
	digest, err := reg.Push(ctx, layout, "top", reg.Ref("one/app:v1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Push(ctx, layout, "absent", reg.Ref("one/app:v2")); err == nil {
		t.Error("a push of a tag the layout lacks succeeded")
	}
	digests, err := reg.PushIndex(ctx, reg.Ref("two/app:multi"),
		PlatformImage{Layout: layout, Tag: "base", OS: "linux", Architecture: "s390x"},
		PlatformImage{Layout: layout, Tag: "top", OS: "linux", Architecture: runtime.GOARCH})
	if err != nil {
		t.Fatal(err)
	}
	if len(digests) != 2 || digests[1] != digest {
		t.Errorf("index digests %v, want the top image's %s second", digests, digest)
	}
	all, err := reg.Requests()
	if err != nil {
		t.Fatal(err)
	}
	mark := len(all)
	r, err := ocilayout.ParseReference("oci:"+layout+":top", "")
	if err != nil {
		t.Fatal(err)
	}
	img, err := ocilayout.Resolve(ctx, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	top := img.Manifest.Layers[len(img.Manifest.Layers)-1].Digest.String()
	data, err := os.ReadFile(reg.BlobData(top))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("sha256:%x", sha256.Sum256(data)); got != top {
		t.Errorf("BlobData(%s) holds %s", top, got)
	}
	for _, path := range []string{"/v2/one/app/manifests/v1", "/v2/one/app/blobs/" + top, "/v2/one/app/manifests/absent", "/v2/two/app/manifests/multi"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+reg.Host+path, nil)
		req.Header.Set("Accept", "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	got, err := reg.RequestsFor("one/app", mark)
	if err != nil {
		t.Fatal(err)
	}
	want := []RegistryRequest{{"GET", "/v2/one/app/manifests/v1", 200}, {"GET", "/v2/one/app/blobs/" + top, 200}, {"GET", "/v2/one/app/manifests/absent", 404}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("RequestsFor(one/app, mark) = %v, want %v", got, want)
	}
	reg.Stop()
	if resp, err := http.Get("http://" + reg.Host + "/v2/"); err == nil {
		resp.Body.Close()
		t.Error("a stopped registry still answers")
	}
}
