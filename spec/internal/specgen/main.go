// Command specgen writes the rule catalog, spec/catalog.go, from docs/requirements.yaml and the
// requirement anchors of docs/spec.md and docs/spec/*.md, and the generated rule table of
// docs/validate.md. `go generate ./spec/` runs it; its tests fail when either output is stale.
//
// It checks the registry as it reads it (ID scheme, area, level, profile, enforcers, sentence,
// version, duplicates, a spec anchor for every entry) and refuses to write a catalog from a
// broken one.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	docsDir := flag.String("docs", "../docs", "the docs directory holding requirements.yaml and the spec")
	out := flag.String("o", "catalog.go", "the Go file to write")
	flag.Parse()
	if err := run(*docsDir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "specgen:", err)
		os.Exit(1)
	}
}

func run(docsDir, out string) error {
	reqs, err := load(os.DirFS(docsDir))
	if err != nil {
		return err
	}
	src, err := renderCatalog(reqs)
	if err != nil {
		return err
	}
	if err := writeIfChanged(out, src); err != nil {
		return err
	}
	mdPath := filepath.Join(docsDir, validateDoc)
	md, err := os.ReadFile(mdPath)
	if err != nil {
		return err
	}
	newMD, err := spliceRuleTable(md, reqs)
	if err != nil {
		return fmt.Errorf("%s: %w", mdPath, err)
	}
	return writeIfChanged(mdPath, newMD)
}

// writeIfChanged writes data to path through a temporary file and a rename, and leaves a file
// that already holds data untouched.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
