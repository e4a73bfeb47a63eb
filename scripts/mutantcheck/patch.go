package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// patchDir holds one patch per mutant, NAME.patch, and the registry.
const patchDir = "reference/mutants"

// patchPath is the patch of mutant name under the repository root.
func patchPath(root, name string) string {
	return filepath.Join(root, patchDir, name+".patch")
}

// applyPatch applies the mutant's patch to the files under root and returns the patched files
// by repository-relative path. It applies with no fuzz: every hunk's context and removed lines
// must be where the patch says (github.com/bluekeyes/go-gitdiff, a strict parser and applier of
// git-style unified diffs; `patch` and `git apply` would need a binary and a work tree).
func applyPatch(root, name string) (map[string][]byte, error) {
	files, err := parsePatch(root, name)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("mutant %s: the patch changes no file", name)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if f.IsDelete || f.IsRename || f.IsCopy || f.IsBinary {
			return nil, fmt.Errorf("mutant %s: %s: a patch only edits or adds source files", name, f.NewName)
		}
		var src []byte
		if !f.IsNew {
			if src, err = os.ReadFile(filepath.Join(root, f.OldName)); err != nil {
				return nil, fmt.Errorf("mutant %s: %w", name, err)
			}
		} else if _, err := os.Stat(filepath.Join(root, f.NewName)); err == nil {
			return nil, fmt.Errorf("mutant %s: adds %s, which exists", name, f.NewName)
		}
		var dst bytes.Buffer
		if err := gitdiff.Apply(&dst, bytes.NewReader(src), f); err != nil {
			return nil, fmt.Errorf("mutant %s: %s does not apply: %w", name, f.NewName, err)
		}
		out[f.NewName] = dst.Bytes()
	}
	return out, nil
}

// writeOverlay writes the patched files of mutant name under dir and an overlay file for
// `go build -overlay` that puts them in place of the tree's files; it returns the overlay's
// path and the packages (./dir patterns) the patch touches. With withoutTests the overlay also
// hides the _test.go files of those packages (for a go vet of the mutant's own code alone).
func writeOverlay(root, dir, name string, withoutTests bool) (string, []string, error) {
	files, err := applyPatch(root, name)
	if err != nil {
		return "", nil, err
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", nil, err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	replace := map[string]string{}
	var pkgs []string
	for rel, b := range files {
		dst := filepath.Join(absDir, "files", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return "", nil, err
		}
		replace[filepath.Join(absRoot, rel)] = dst
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Dir(rel)))
	}
	slices.Sort(pkgs)
	pkgs = slices.Compact(pkgs)
	if withoutTests {
		for _, p := range pkgs {
			tests, err := filepath.Glob(filepath.Join(absRoot, p, "*_test.go"))
			if err != nil {
				return "", nil, err
			}
			for _, t := range tests {
				replace[t] = "" // an empty replacement hides the file
			}
		}
	}
	j, err := json.MarshalIndent(struct{ Replace map[string]string }{replace}, "", "  ")
	if err != nil {
		return "", nil, err
	}
	ov := filepath.Join(absDir, "overlay.json")
	return ov, pkgs, os.WriteFile(ov, j, 0o644)
}

// parsePatch reads and parses the patch of mutant name.
func parsePatch(root, name string) ([]*gitdiff.File, error) {
	b, err := os.ReadFile(patchPath(root, name))
	if err != nil {
		return nil, err
	}
	return parsePatchText(name, b)
}

// parsePatchText parses b, the patch of mutant name.
func parsePatchText(name string, b []byte) ([]*gitdiff.File, error) {
	files, _, err := gitdiff.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("mutant %s: %w", name, err)
	}
	return files, nil
}

// patchedFiles lists the repository-relative files a mutant's patch edits or adds.
func patchedFiles(root, name string) ([]string, error) {
	files, err := parsePatch(root, name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		out = append(out, f.NewName)
	}
	return out, nil
}

// touched lists the mutants whose patch, or a file it patches, changed between base and the
// work tree (git diff --name-only base).
func touched(root string, reg *Registry, base string) ([]Mutant, error) {
	cmd := exec.Command("git", "diff", "--name-only", base)
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git diff --name-only %s: %w", base, err)
	}
	changed := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			changed[l] = true
		}
	}
	var out []Mutant
	for _, m := range reg.Mutants {
		files, err := patchedFiles(root, m.Name)
		if err != nil {
			return nil, err
		}
		hit := changed[filepath.ToSlash(filepath.Join(patchDir, m.Name+".patch"))]
		for _, f := range files {
			hit = hit || changed[f]
		}
		if hit {
			out = append(out, m)
		}
	}
	return out, nil
}
