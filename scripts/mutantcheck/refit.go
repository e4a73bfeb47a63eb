package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// errContextChanged is refit's answer for a hunk whose context and removed lines are nowhere in
// the file as they are in the patch: the change under it was more than a move, and the patch is
// refitted by hand (docs/mutants.md, "When a patch no longer applies").
var errContextChanged = errors.New("context changed, not only moved: refit by hand")

// hunkHeader matches a text fragment's header, keeping whatever follows its second @@.
var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@(.*)$`)

// refitPatch returns the mutant's patch with every hunk header moved to where the hunk's old
// lines (context and removed, in order, byte for byte) are now in the file: the nearest place to
// where the hunk was, after the previous hunk of the same file. Only the @@ lines change; a hunk
// whose old lines are nowhere fails with errContextChanged. The patch still applies strictly
// afterwards: refit moves a patch with its code, it never makes a patch fit code that changed.
func refitPatch(root, name string) ([]byte, bool, error) {
	raw, err := os.ReadFile(patchPath(root, name))
	if err != nil {
		return nil, false, err
	}
	files, err := parsePatchText(name, raw)
	if err != nil {
		return nil, false, err
	}
	var headers []string // the new @@ lines, in the order the patch has them
	for _, f := range files {
		if f.IsNew {
			for _, frag := range f.TextFragments {
				headers = append(headers, header(frag.OldPosition, frag.OldLines, frag.NewPosition, frag.NewLines))
			}
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, f.OldName))
		if err != nil {
			return nil, false, fmt.Errorf("mutant %s: %w", name, err)
		}
		lines := splitLines(src)
		next := 1 // the first line the next hunk may start on
		shift := int64(0)
		for _, frag := range f.TextFragments {
			old := oldLines(frag)
			at := nearest(lines, old, int(frag.OldPosition), next)
			if at == 0 {
				return nil, false, fmt.Errorf("mutant %s: %s: the hunk at line %d: %w", name, f.NewName, frag.OldPosition, errContextChanged)
			}
			newPos := int64(at) + shift
			headers = append(headers, header(int64(at), frag.OldLines, newPos, frag.NewLines))
			shift += frag.NewLines - frag.OldLines
			next = at + len(old)
		}
	}
	out, changed, n := rewriteHeaders(raw, headers)
	if n != len(headers) {
		return nil, false, fmt.Errorf("mutant %s: %d hunk headers in the patch, %d hunks parsed", name, n, len(headers))
	}
	return out, changed, nil
}

// rewriteHeaders replaces the patch's @@ lines, in order, by headers (keeping each line's text
// after its second @@) and returns the patch, whether it changed and how many @@ lines it had.
func rewriteHeaders(raw []byte, headers []string) ([]byte, bool, int) {
	ls := strings.SplitAfter(string(raw), "\n")
	n := 0
	changed := false
	for i, l := range ls {
		body := strings.TrimSuffix(l, "\n")
		m := hunkHeader.FindStringSubmatch(body)
		if m == nil {
			continue
		}
		if n < len(headers) {
			nl := headers[n] + m[1] + strings.TrimPrefix(l, body)
			changed = changed || nl != l
			ls[i] = nl
		}
		n++
	}
	return []byte(strings.Join(ls, "")), changed, n
}

// header formats a hunk header as git does (a count of 1 is left out).
func header(oldPos, oldN, newPos, newN int64) string {
	r := func(pos, n int64) string {
		if n == 1 {
			return fmt.Sprint(pos)
		}
		return fmt.Sprintf("%d,%d", pos, n)
	}
	return fmt.Sprintf("@@ -%s +%s @@", r(oldPos, oldN), r(newPos, newN))
}

// oldLines is what a fragment expects in the file: its context and removed lines, in order.
func oldLines(frag *gitdiff.TextFragment) []string {
	var out []string
	for _, l := range frag.Lines {
		if l.Op != gitdiff.OpAdd {
			out = append(out, l.Line)
		}
	}
	return out
}

// splitLines splits a file into lines that keep their newline, as gitdiff's fragment lines do.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// nearest returns the 1-based line, not before from, where want starts in lines and that is
// closest to was (the earlier one on a tie), or 0 if want is nowhere from there on.
func nearest(lines, want []string, was, from int) int {
	best := 0
	for at := from; at+len(want)-1 <= len(lines); at++ {
		if !matchAt(lines, want, at) {
			continue
		}
		if best == 0 || abs(at-was) < abs(best-was) {
			best = at
		}
	}
	return best
}

// matchAt reports whether want is lines from the 1-based line at on.
func matchAt(lines, want []string, at int) bool {
	for i, w := range want {
		if lines[at-1+i] != w {
			return false
		}
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// refitCommand runs `refit [-registry FILE] [NAME ...]`: every named mutant's patch (all of
// them with no name) follows its code where the code only moved, and is rewritten in place;
// it prints what it moved and what needs a hand, and fails if anything does.
func refitCommand(args []string) int {
	fs := flag.NewFlagSet("refit", flag.ContinueOnError)
	path := fs.String("registry", patchDir+"/mutants.yaml", "the mutant registry")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	names := fs.Args()
	if len(names) == 0 {
		reg, err := loadRegistry(*path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutantcheck:", err)
			return 2
		}
		for _, m := range reg.Mutants {
			names = append(names, m.Name)
		}
	}
	status := 0
	for _, name := range names {
		out, changed, err := refitPatch(".", name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mutantcheck refit:", err)
			status = 1
			continue
		}
		if !changed {
			continue
		}
		if err := os.WriteFile(patchPath(".", name), out, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mutantcheck refit:", err)
			return 2
		}
		fmt.Println("refitted", name)
	}
	return status
}
