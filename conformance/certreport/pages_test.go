package certreport

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The published pages (docs/certification) are what scripts/certification-pages.sh renders from
// the committed bundles and triage files: a page edited by hand, a triage file changed without
// re-rendering, or a bundle replaced without its page fails here.
func TestCommittedPagesAreRenderedFromTheirBundles(t *testing.T) {
	dir := filepath.Join("..", "..", "docs", "certification")
	names := []string{"runc", "crun", "runsc", "podman"}
	titles := []string{"reference on runc", "reference on crun", "reference on runsc", "podman via podspec-podman"}
	var bundles []*Bundle
	for _, n := range names {
		root := t.TempDir()
		if err := untarGz(filepath.Join(dir, "bundles", n+".tar.gz"), root); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		b, err := Load(filepath.Join(root, n))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		bundles = append(bundles, b)
		tr, err := LoadTriage(filepath.Join(dir, "triage", n+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var page bytes.Buffer
		if err := RenderMarkdown(&page, b, tr, "bundles/"+n+".tar.gz"); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		expectSame(t, filepath.Join(dir, n+".md"), page.String())
	}
	var html bytes.Buffer
	if err := RenderMatrix(&html, bundles); err != nil {
		t.Fatal(err)
	}
	expectSame(t, filepath.Join(dir, "matrix.html"), html.String())
	var table bytes.Buffer
	if err := RenderMatrixMarkdown(&table, bundles, titles); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(readme), "<!-- matrix:begin -->\n")
	got, _, ok2 := strings.Cut(rest, "<!-- matrix:end -->")
	if !ok1 || !ok2 {
		t.Fatal("README.md has no matrix markers")
	}
	if got != table.String() {
		t.Error("README.md's matrix is not the one rendered from the bundles: run scripts/certification-pages.sh")
	}
}

func expectSame(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not what its bundle and triage file render: run scripts/certification-pages.sh", path)
	}
}

// untarGz unpacks a bundle archive of regular files and directories into dir.
func untarGz(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			return errors.New("archive entry outside its directory: " + h.Name)
		}
		target := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(target, data, 0o644); err != nil {
				return err
			}
		default:
			return errors.New("unexpected archive entry " + h.Name)
		}
	}
}
