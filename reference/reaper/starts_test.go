package reaper

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestSupervisorStartsChildrenOnlyThroughStartCmd: the supervisor is a subreaper whose Reaper
// reaps every child it does not know to be waited for, so each process start in the packages
// it links goes through StartCmd and each wait through WaitCmd (or RunCmd, Output,
// CombinedOutput). A plain cmd.Start, Run, Output, CombinedOutput or Wait on an os/exec
// command, os.StartProcess or syscall.ForkExec there fails this test.
func TestSupervisorStartsChildrenOnlyThroughStartCmd(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,Imports,Standard",
		"podspec.dev/podspec/cmd/podspec-supervisor").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	dec := json.NewDecoder(bytesReader(out))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath, Dir  string
			GoFiles, Imports []string
			Standard         bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.Standard || p.ImportPath == "podspec.dev/podspec/reference/reaper" {
			continue
		}
		if !slices.Contains(p.Imports, "os/exec") && !slices.Contains(p.Imports, "syscall") && !slices.Contains(p.Imports, "os") {
			continue
		}
		for _, f := range p.GoFiles {
			checked++
			checkStarts(t, filepath.Join(p.Dir, f), p.ImportPath)
		}
	}
	if checked == 0 {
		t.Fatal("no file of the supervisor's packages was checked")
	}
}

// notInTheSupervisor are functions of the supervisor's packages that start processes but never
// run in a supervisor, with the reason.
var notInTheSupervisor = map[string]string{
	// ocilayout.Build's helper: layouts are built by `podspec image build` and the suite
	// (ocilayout may not import reference/, which the suite must not link).
	"podspec.dev/podspec/ocilayout.busyboxApplets": "ocilayout.Build runs in podspec image build and the suite",
}

// checkStarts reports the process starts and waits in one file that bypass StartCmd.
func checkStarts(t *testing.T, path, pkg string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // local name -> import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = p
	}
	usesExec := false
	for _, p := range names {
		if p == "os/exec" {
			usesExec = true
		}
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if ok && notInTheSupervisor[pkg+"."+fn.Name.Name] != "" {
			continue
		}
		inspectStarts(t, fset, d, names, usesExec, pkg)
	}
}

func inspectStarts(t *testing.T, fset *token.FileSet, d ast.Node, names map[string]string, usesExec bool, pkg string) {
	t.Helper()
	ast.Inspect(d, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			switch names[id.Name] + "." + sel.Sel.Name {
			case "os.StartProcess", "syscall.ForkExec", "syscall.StartProcess":
				t.Errorf("%s: %s.%s in %s, which the supervisor links: start processes through reaper.StartCmd",
					fset.Position(call.Pos()), id.Name, sel.Sel.Name, pkg)
			}
			if _, isPkg := names[id.Name]; isPkg {
				return true
			}
		}
		if usesExec && len(call.Args) == 0 {
			switch sel.Sel.Name {
			case "Start", "Run", "Output", "CombinedOutput", "Wait":
				t.Errorf("%s: .%s() in %s, which the supervisor links: use reaper.StartCmd, WaitCmd, RunCmd, Output or CombinedOutput",
					fset.Position(call.Pos()), sel.Sel.Name, pkg)
			}
		}
		return true
	})
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
